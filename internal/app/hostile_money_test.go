package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
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

// TestUnreadableRefundFiguresRefused (issue 23, defect 8): a sale whose
// check status cannot say what was refunded — refund amounts written "",
// a total_refunded_amount of "-" — or whose transaction_status disagrees
// with its refund figures is not refunded: what remains is not known, and
// it must never be overstated. A full refund of a sale the gateway calls
// Refunded, its figures unreadable, was sent again ("Refunded: 0.00 in 1
// refund").
func TestUnreadableRefundFiguresRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change map[string]any
		says   string
	}{
		{"refund amounts empty, total a dash", map[string]any{"transaction_status": "Refunded", "total_refunded_amount": "-",
			"refund_info": []map[string]any{{"amount": "", "refund_transaction_id": "RF-OLD", "status": "Completed"}}},
			`the gateway's refund figures cannot be read: refund 1 of its refund_info has the amount ""`},
		{"total a dash", map[string]any{"transaction_status": "Partially Refunded", "total_refunded_amount": "-",
			"refund_info": []map[string]any{{"amount": "50.00", "refund_transaction_id": "RF-OLD"}}},
			`the gateway's refund figures cannot be read: its total_refunded_amount is "-"`},
		{"Refunded, but some remains", map[string]any{"transaction_status": "Refunded", "total_refunded_amount": "50.00",
			"refund_info": []map[string]any{{"amount": "50.00", "refund_transaction_id": "RF-OLD"}}},
			`the gateway's answer contradicts itself: transaction_status "Refunded", but its refunds add up to 50.00 TRY of the 150.00 TRY sale`},
		{"Partially Refunded, but no refund", map[string]any{"transaction_status": "Partially Refunded", "total_refunded_amount": "0.00", "refund_info": []any{}},
			`the gateway's answer contradicts itself: transaction_status "Partially Refunded", but it lists no refund`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newHostileGateway(t, map[string]http.HandlerFunc{
				"/api/checkstatus": answer(checkStatusOf("INV-F", "150.00", tc.change)),
				"/api/refund":      refundAnswer,
			})
			for _, args := range [][]string{{"--full"}, {"--amount", "10.00"}} {
				r := runHostile(t, g, t.TempDir(), append([]string{"refund", "--invoice", "INV-F", "--yes"}, args...)...)
				if r.code != ExitRejected || !strings.Contains(r.stderr, "error: invoice INV-F cannot be refunded: "+tc.says) ||
					!strings.Contains(r.stderr, "nothing was sent") || g.calls("/api/refund") != 0 {
					t.Errorf("refund %v: exit %d, %d refunds sent; want 4 saying %q, nothing sent\n%s", args, r.code, g.calls("/api/refund"), tc.says, r.stderr)
				}
			}
		})
	}
}

// TestQueuedRefundCountsUntilListed (issue 23, defect 8): a refund the
// gateway answered 101 (queued for approval) counts against what remains
// until check status lists it — and, listed, counts once.
func TestQueuedRefundCountsUntilListed(t *testing.T) {
	var mu sync.Mutex
	listed := false
	g := newHostileGateway(t, map[string]http.HandlerFunc{
		"/api/checkstatus": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			change := map[string]any{}
			if listed {
				change = map[string]any{"transaction_status": "Partially Refunded", "total_refunded_amount": "100.00",
					"refund_info": []map[string]any{{"amount": "100.00", "refund_transaction_id": "RF-Q", "status": "Completed"}}}
			}
			answer(checkStatusOf("INV-Q", "150.00", change))(w, r)
		},
		"/api/refund": func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status_code":101,"status_description":"Refund request created","order_no":"RO-1","invoice_id":%q,"ref_no":"R1"}`, body["invoice_id"])
		},
	})
	home := t.TempDir()
	seedJournal(t, g, home, journal.Entry{Type: journal.TypeIntent, Kind: journal.KindRefund, Attempt: "q1", Time: time.Now().UTC(),
		Invoice: "INV-Q", Amount: "100.00", Currency: "TRY", Ref: "RF-Q"})
	code := 101
	seedJournal(t, g, home, journal.Entry{Type: journal.TypeOutcome, Kind: journal.KindRefund, Attempt: "q1", Time: time.Now().UTC(),
		Invoice: "INV-Q", Amount: "100.00", Currency: "TRY", Ref: "RF-Q", Outcome: journal.Succeeded, StatusCode: &code})

	r := runHostile(t, g, home, "refund", "--invoice", "INV-Q", "--amount", "100.00", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "more than what remains refundable, 50.00 TRY of the 150.00 TRY sale (100.00 refunded)") ||
		g.calls("/api/refund") != 0 {
		t.Fatalf("a second 100.00 while the first is queued: exit %d, %d sent; want 2, nothing sent\n%s", r.code, g.calls("/api/refund"), r.stderr)
	}
	r = runHostile(t, g, home, "refund", "--invoice", "INV-Q", "--full", "--yes", "-o", "json")
	if r.code != ExitOK || fmt.Sprint(g.sent(t, "/api/refund", 0)["amount"]) != "50.00" {
		t.Fatalf("--full while the first is queued: exit %d, sent %v; want 50.00\n%s", r.code, g.sent(t, "/api/refund", 0)["amount"], r.stderr)
	}
	// Listed now, the queued refund counts once: with the 50.00 just made
	// (queued too, not listed yet), nothing remains.
	mu.Lock()
	listed = true
	mu.Unlock()
	r = runHostile(t, g, home, "refund", "--invoice", "INV-Q", "--amount", "0.01", "--yes")
	if r.code != ExitRejected || !strings.Contains(r.stderr, "it is already fully refunded (150.00 TRY of 150.00 TRY)") || g.calls("/api/refund") != 1 {
		t.Errorf("after both: exit %d, %d sent; want 4, fully refunded\n%s", r.code, g.calls("/api/refund"), r.stderr)
	}
}
