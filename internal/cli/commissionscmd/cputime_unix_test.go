//go:build unix

package commissionscmd

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the test process has used so far, user and
// system, on all its threads (GC workers included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op: CPU time per operation, which unlike ns/op
// (wall time) does not grow when other processes share the machine.
func reportCPU(b *testing.B, start time.Duration) {
	if start == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
