package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Hang stops the server and every one of its processes with SIGSTOP: it
// neither answers nor refuses, as a database whose host froze. Connections
// stay open and new ones are taken by the kernel, then wait. resume sends
// SIGCONT to the same processes; the test must call it before the server
// is stopped (Cleanup does, too).
func (s *Server) Hang() (resume func(), err error) {
	data, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	postmaster, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return nil, fmt.Errorf("postmaster.pid: %w", err)
	}
	pids := append([]int{postmaster}, children(postmaster)...)
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			return nil, fmt.Errorf("SIGSTOP %d: %w", pid, err)
		}
	}
	return func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}, nil
}

// children are the processes whose parent is pid, from /proc.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ")".
		_, rest, ok := strings.Cut(string(stat), ") ")
		if fields := strings.Fields(rest); ok && len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
