package app

import (
	"strings"
	"testing"
	"time"
)

// TestHungDatabaseBoundsTheCommand (issue 30): the shared journal's
// database hangs (SIGSTOP: it neither answers nor refuses) while a refund
// with --timeout 3s is at the gateway. The command records what it can
// (the outcome goes to the spool), lets go of the lock and the connection
// without waiting for the database, and exits within its time limit and
// the cleanup's grace (moneyop.CleanupGrace) — not after the 10 s of a
// line's write and the 5 s of the lock's release on top (29 s before).
// Once the database answers again, the spooled outcome is written.
func TestHungDatabaseBoundsTheCommand(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	ayse := d.operator(t, "ayse", "")
	d.sale(t, "HG-1", "150.00")
	resumed := make(chan func(), 1)
	gate := func(n int32) {
		if n != 1 {
			return
		}
		resume, err := d.srv.Hang()
		if err != nil {
			t.Error(err)
			resume = func() {}
		}
		resumed <- resume
	}
	d.gate.Store(&gate)
	start := time.Now()
	code, _, stderr := ayse.exec(t, "refund", "--invoice", "HG-1", "--amount", "10.00", "--yes", "--timeout", "3s")
	took := time.Since(start)
	select {
	case resume := <-resumed:
		resume()
	default:
		t.Fatal("the refund never reached the gateway")
	}
	d.gate.Store(nil)
	// The bound: the time limit, the cleanup's grace, and a slack for a
	// loaded machine; far below what a hung database cost before.
	if limit := 3*time.Second + 2*time.Second + 4*time.Second; took > limit {
		t.Errorf("the refund took %v with the database hung, want under %v", took.Round(time.Millisecond), limit)
	}
	if code != ExitOK {
		t.Errorf("exit %d, want 0 (the refund was made; its outcome waits in the spool)\n%s", code, stderr)
	}
	t.Logf("took %v", took.Round(time.Millisecond))
	// The next command that reaches the database writes the spooled outcome.
	if code, _, stderr := ayse.exec(t, "journal", "HG-1"); code != ExitOK {
		t.Errorf("journal after the database answers: exit %d\n%s", code, stderr)
	}
	if got := strings.Join(d.lines(t, "HG-1"), ", "); got != "intent by ayse, outcome succeeded by ayse" {
		t.Errorf("the shared journal: %q", got)
	}
}
