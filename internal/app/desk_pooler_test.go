//go:build unix

package app

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// TestDeskThroughSessionPooler: with the shared journal behind PgBouncer in
// session mode, two operators refunding one invoice at once send one
// refund: the second is told the first is in flight (exit 6), and, once
// the first is killed mid-flight, that its outcome is unknown (exit 2):
// its lock went with its client connection (PgBouncer reset the server
// session), and the journal's unknown attempt blocks the invoice.
func TestDeskThroughSessionPooler(t *testing.T) {
	t.Parallel()
	d := newSharedDesk(t)
	p := d.srv.Pooler(t, pgtest.PoolSession)
	ayse, mehmet := d.operator(t, "ayse", ""), d.operator(t, "mehmet", "")
	ayse.journalURL, mehmet.journalURL = p.URL("ayse", d.db), p.URL("mehmet", d.db)
	d.sale(t, "PB-1", "150.00")
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	gate := func(n int32) {
		if n == 1 {
			arrived <- struct{}{}
			<-release
		}
	}
	d.gate.Store(&gate)
	var released atomic.Bool
	releaseOnce := func() {
		if released.CompareAndSwap(false, true) {
			close(release)
		}
	}
	defer releaseOnce()

	held := ayse.start(t, "refund", "--invoice", "PB-1", "--amount", "10.00", "--yes", "--timeout", "2s")
	waitFor(t, arrived, "ayşe's refund to reach the gateway")
	code, _, stderr := mehmet.exec(t, "refund", "--invoice", "PB-1", "--amount", "20.00", "--yes")
	if want := fmt.Sprintf("a refund on invoice PB-1 is in flight in pid %d since ", held.Process.Pid); code != ExitDuplicate || !strings.Contains(stderr, want) {
		t.Errorf("mehmet's refund while ayşe's is in flight: exit %d, want 6 with %q\n%s", code, want, stderr)
	}
	if err := held.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = held.Wait()
	code, _, stderr = mehmet.exec(t, "refund", "--invoice", "PB-1", "--amount", "20.00", "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") {
		t.Errorf("mehmet's refund after ayşe's was killed: exit %d, want 2 (outcome unknown)\n%s", code, stderr)
	}
	releaseOnce()
	d.refunded(t, "PB-1", "10")
	if n := d.arrived.Load(); n != 1 {
		t.Errorf("%d refund requests reached the gateway, want 1", n)
	}
}

// TestSharedJournalBehindSharingPooler: behind PgBouncer in transaction or
// statement mode every command that uses the shared journal refuses with
// exit 2, naming the mode and what to use instead; nothing is sent.
func TestSharedJournalBehindSharingPooler(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	d.env["PAYCLI_BASE_URL"] = "http://127.0.0.1:1/ccpayment"
	d.env["PAYCLI_APP_ID"], d.env["PAYCLI_APP_SECRET"], d.env["PAYCLI_MERCHANT_KEY"] = "app", "secret", "key"
	for _, mode := range []pgtest.PoolMode{pgtest.PoolTransaction, pgtest.PoolStatement} {
		p := d.srv.Pooler(t, mode)
		d.env["PAYCLI_JOURNAL"] = p.URL("ayse", d.db)
		for _, args := range [][]string{{"journal"}, {"refund", "--invoice", "INV-1", "--amount", "1.00", "--yes"}} {
			code, _, stderr := d.run(t, args...)
			want := fmt.Sprintf("is behind a connection pooler in %s mode: invoice locks cannot hold there; point journal at a session-mode pool or the server itself", mode)
			if code != ExitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, "pool_mode = session") {
				t.Errorf("%v behind a %s pool: exit %d, want 2 saying %q\n%s", args, mode, code, want, stderr)
			}
		}
	}
}
