package journalindex

import (
	"runtime"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/journalgen"
)

// scalePlan is issue 41's scale: 1,000,000 lines over ten days, one day
// of 100,000 attempts of the audited account.
var scalePlan = journalgen.Plan{Start: time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC), Days: 10, Lines: 1_000_000,
	Busy: 4, BusyAttempts: 100_000, Account: "acct-live", Other: "acct-other"}

// BenchmarkAccountDay: the journal's side of an audit of a day, one day
// of 100,000 attempts of an account read through the index from a
// journal of 1,000,000 lines (the index built first, as the first reader
// after an upgrade builds it); peak-RSS-MiB is the process's peak while
// the day is read.
func BenchmarkAccountDay(b *testing.B) {
	path, perDay := writePlan(b, scalePlan)
	if _, _, err := Lookup(path, "none"); err != nil {
		b.Fatal(err)
	}
	account := journal.Scope{Gateway: scalePlan.Account}
	from, to := scalePlan.Day(scalePlan.Busy), scalePlan.Day(scalePlan.Busy+1)
	runtime.GC()
	b.ResetTimer()
	var peak int64
	for b.Loop() {
		n := 0
		var err error
		peak, _ = journalgen.PeakRSS(func() {
			err = AccountAttempts(path, account, from, to, func(journal.Attempt) error { n++; return nil })
		})
		if err != nil || n != perDay[scalePlan.Busy] {
			b.Fatalf("%d attempts, %v", n, err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
}
