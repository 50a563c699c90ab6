package app

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// seedJournal appends entries to the journal of a hostile run's home, as
// an earlier paycli on the hostile gateway's account would have: each
// entry's gateway identity, profile and base URL are filled in.
func seedJournal(t *testing.T, g *hostileGateway, home string, entries ...journal.Entry) {
	t.Helper()
	j, err := journal.Open(filepath.Join(home, "state", "paycli", journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range entries {
		e.Gateway, e.Profile, e.BaseURL = journal.Identity(g.URL+"/ccpayment", hostileAppID), "default", g.URL+"/ccpayment"
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
}

// lostIntent is the intent of an attempt of kind on invoice whose process
// died an hour ago, its request long over: its outcome is unknown.
func lostIntent(kind, attempt, invoice, amount, ref string) journal.Entry {
	sent := time.Now().Add(-time.Hour).UTC()
	return journal.Entry{Type: journal.TypeIntent, Kind: kind, Attempt: attempt, Time: sent, Invoice: invoice, Amount: amount,
		Currency: "TRY", Ref: ref, Deadline: sent.Add(time.Minute)}
}

// TestOneReadingOfAnUnpaidSale (issue 23, defect 10): check status that
// says a sale is Completed with payment_status 0 contradicts itself.
// journal reconcile read it as "the sale was taken" (and recorded a
// walletpay of unknown outcome as succeeded) while refund read it as
// "nothing was paid"; both now read it once (journal.ReadSale) and say
// the same: unknown, nothing recorded as made, nothing refunded.
func TestOneReadingOfAnUnpaidSale(t *testing.T) {
	g := newHostileGateway(t, map[string]http.HandlerFunc{
		"/api/checkstatus": answer(checkStatusOf("INV-P0", "150.00", map[string]any{"payment_status": 0})),
		"/api/refund":      refundAnswer,
	})
	home := t.TempDir()
	seedJournal(t, g, home, lostIntent(journal.KindWalletPay, "w1", "INV-P0", "150.00", ""))
	const says = `the gateway's answer contradicts itself: transaction_status "Completed", but its payment_status is 0, not 1`

	r := runHostile(t, g, home, "journal", "reconcile")
	if r.code != ExitOutcomeUnknown || !strings.Contains(r.stdout, says) || strings.Contains(r.stdout, "the sale was taken") {
		t.Errorf("journal reconcile: exit %d, want 7 saying %q\nstdout:\n%s\nstderr:\n%s", r.code, says, r.stdout, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown {
		t.Errorf("journal reconcile recorded the walletpay %s", a.Class())
	}
	r = runHostile(t, g, home, "refund", "--invoice", "INV-P0", "--full", "--yes")
	if r.code != ExitRejected || !strings.Contains(r.stderr, "invoice INV-P0 cannot be refunded: "+says) || g.calls("/api/refund") != 0 {
		t.Errorf("refund: exit %d, %d refunds sent; want 4 saying %q, nothing sent\n%s", r.code, g.calls("/api/refund"), says, r.stderr)
	}
}
