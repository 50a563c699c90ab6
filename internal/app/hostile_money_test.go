package app

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// seedJournal appends entries to the journal of a hostile run's home, as
// an earlier paycli on the hostile gateway's account would have: each
// entry's gateway identity, profile and base URL (of the server at
// base) are filled in.
func seedJournal(t *testing.T, base, home string, entries ...journal.Entry) {
	t.Helper()
	j, err := journal.Open(filepath.Join(home, "state", "paycli", journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range entries {
		e.Gateway, e.Profile, e.BaseURL = journal.Identity(base+"/ccpayment", hostileAppID), "default", base+"/ccpayment"
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
// "nothing was paid"; both now read it once (journal.SaleOutcome) and say
// the same: unknown, nothing recorded as made, nothing refunded.
func TestOneReadingOfAnUnpaidSale(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-P0", "150.00", map[string]any{"payment_status": 0}),
		"/api/refund":      refundAnswer,
	})
	home := t.TempDir()
	seedJournal(t, g.URL, home, lostIntent("walletpay", "w1", "INV-P0", "150.00", ""))
	const says = `the gateway's answer contradicts itself: transaction_status "Completed", but its payment_status is 0, not 1`

	r := runHostile(t, g.URL, home, "journal", "reconcile")
	if r.code != ExitOutcomeUnknown || !strings.Contains(r.stdout, says) || strings.Contains(r.stdout, "the sale was taken") {
		t.Errorf("journal reconcile: exit %d, want 7 saying %q\nstdout:\n%s\nstderr:\n%s", r.code, says, r.stdout, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown {
		t.Errorf("journal reconcile recorded the walletpay %s", a.Class())
	}
	// The walletpay still unknown holds back every money command on the
	// invoice here (issue 30); refund's own reading is seen from a home
	// that has no such attempt.
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-P0", "--full", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "has a walletpay attempt whose outcome is unknown") || g.Count("/ccpayment/api/refund") != 0 {
		t.Errorf("refund beside the unknown walletpay: exit %d, want 2\n%s", r.code, r.stderr)
	}
	r = runHostile(t, g.URL, t.TempDir(), "refund", "--invoice", "INV-P0", "--full", "--yes")
	if r.code != ExitRejected || !strings.Contains(r.stderr, "invoice INV-P0 cannot be refunded: "+says) || g.Count("/ccpayment/api/refund") != 0 {
		t.Errorf("refund: exit %d, %d refunds sent; want 4 saying %q, nothing sent\n%s", r.code, g.Count("/ccpayment/api/refund"), says, r.stderr)
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
			g := newHostileGateway(t, map[string]string{
				"/api/checkstatus": checkStatusOf("INV-F", "150.00", tc.change),
				"/api/refund":      refundAnswer,
			})
			for _, args := range [][]string{{"--full"}, {"--amount", "10.00"}} {
				r := runHostile(t, g.URL, t.TempDir(), append([]string{"refund", "--invoice", "INV-F", "--yes"}, args...)...)
				if r.code != ExitRejected || !strings.Contains(r.stderr, "error: invoice INV-F cannot be refunded: "+tc.says) ||
					!strings.Contains(r.stderr, "nothing was sent") || g.Count("/ccpayment/api/refund") != 0 {
					t.Errorf("refund %v: exit %d, %d refunds sent; want 4 saying %q, nothing sent\n%s", args, r.code, g.Count("/ccpayment/api/refund"), tc.says, r.stderr)
				}
			}
		})
	}
}

// TestQueuedRefundCountsUntilListed (issue 23, defect 8): a refund the
// gateway answered 101 (queued for approval) counts against what remains
// until check status lists it — and, listed, counts once.
func TestQueuedRefundCountsUntilListed(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-Q", "150.00", nil),
		"/api/refund":      `{"status_code":101,"status_description":"Refund request created","order_no":"RO-1","invoice_id":"{{invoice_id}}","ref_no":"R1"}`,
	})
	home := t.TempDir()
	seedJournal(t, g.URL, home, journal.Entry{Type: journal.TypeIntent, Kind: "refund", Attempt: "q1", Time: time.Now().UTC(),
		Invoice: "INV-Q", Amount: "100.00", Currency: "TRY", Ref: "RF-Q"})
	code := 101
	seedJournal(t, g.URL, home, journal.Entry{Type: journal.TypeOutcome, Kind: "refund", Attempt: "q1", Time: time.Now().UTC(),
		Invoice: "INV-Q", Amount: "100.00", Currency: "TRY", Ref: "RF-Q", Outcome: journal.Succeeded, StatusCode: &code})

	r := runHostile(t, g.URL, home, "refund", "--invoice", "INV-Q", "--amount", "100.00", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "more than what remains refundable, 50.00 TRY of the 150.00 TRY sale (100.00 refunded)") ||
		g.Count("/ccpayment/api/refund") != 0 {
		t.Fatalf("a second 100.00 while the first is queued: exit %d, %d sent; want 2, nothing sent\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-Q", "--full", "--yes", "-o", "json")
	if r.code != ExitOK || fmt.Sprint(sentTo(t, g, "/api/refund", 0)["amount"]) != "50.00" {
		t.Fatalf("--full while the first is queued: exit %d, sent %v; want 50.00\n%s", r.code, sentTo(t, g, "/api/refund", 0)["amount"], r.stderr)
	}
	// The 50.00 just made was answered 101: queued (issue 30, defect 13),
	// it is not settled, and holds back every money command on the
	// invoice until check status finds it made or refused.
	g.AnswerText(http.MethodPost, "/ccpayment/api/checkstatus", 200, checkStatusOf("INV-Q", "150.00", map[string]any{
		"transaction_status": "Partially Refunded", "total_refunded_amount": "100.00",
		"refund_info": []map[string]any{{"amount": "100.00", "refund_transaction_id": "RF-Q", "status": "Completed"}}}))
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-Q", "--amount", "0.01", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "has a refund queued for the gateway team's approval") ||
		!strings.Contains(r.stderr, "paycli status --invoice INV-Q") || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("after both: exit %d, %d sent; want 2, the queued refund named\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
}

// lostAnswer is a faultFront fault: it reads the request and closes the
// connection without an answer: the call may have been made, and its
// outcome is unknown.
func lostAnswer(w http.ResponseWriter, r *http.Request) bool {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
	return true
}

// answeredThenLost is a faultFront fault for the first request alone: g
// gets it and answers, and the answer is lost on its way back (the
// connection closed): the call was made, the client cannot know it.
// Later requests pass.
func answeredThenLost(t *testing.T, g *replay.Server) func(w http.ResponseWriter, r *http.Request) bool {
	var lost atomic.Bool
	return func(w http.ResponseWriter, r *http.Request) bool {
		if lost.Swap(true) {
			return false
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, g.URL+r.URL.RequestURI(), r.Body)
		if err != nil {
			t.Error(err)
			return true
		}
		req.Header = r.Header.Clone()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return lostAnswer(w, r)
	}
}

// TestAPIRefundIsARefund (issue 23, defect 9): `paycli api POST
// /api/refund` whose answer was lost was journaled as an api attempt,
// which neither blocked `paycli refund` of the invoice (two refunds were
// made) nor was seen by reconcile. It is a refund: given a
// refund_transaction_id, journaled as one, it blocks a new refund of the
// invoice until it is settled, reconcile sees it, and `paycli refund
// --retry` re-sends it with its id.
func TestAPIRefundIsARefund(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-A", "150.00", nil),
		"/api/refund":      refundAnswer,
	})
	front, _ := faultFront(t, g, "/ccpayment/api/refund", answeredThenLost(t, g))
	home := t.TempDir()
	r := runHostile(t, front.URL, home, "api", "POST", "/api/refund", "--credentials", "--merchant-key", "--hash", "refund",
		"-f", "invoice_id=INV-A", "-f", "amount=50.00", "--yes")
	if r.code != ExitOutcomeUnknown || g.Count("/ccpayment/api/refund") != 1 {
		t.Fatalf("the api refund: exit %d, %d sent; want 7, sent once\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	ref := fmt.Sprint(sentTo(t, g, "/api/refund", 0)["refund_transaction_id"])
	a := lastAttempt(t, r.journal)
	if a.Intent.Kind != "refund" || a.Intent.Ref != ref || !strings.HasPrefix(ref, "RF") || a.Class() != journal.Unknown {
		t.Fatalf("journal: kind %q ref %q (sent %q) outcome %s; want an unknown refund with the id sent", a.Intent.Kind, a.Intent.Ref, ref, a.Class())
	}
	retry := "paycli refund --retry " + ref + " --yes"
	if !strings.Contains(r.stderr, retry) {
		t.Errorf("the api refund's error does not say how to settle it (%s):\n%s", retry, r.stderr)
	}

	r = runHostile(t, front.URL, home, "refund", "--invoice", "INV-A", "--amount", "50.00", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "invoice INV-A has a refund whose outcome is unknown (refund_transaction_id "+ref+"); nothing was sent") ||
		!strings.Contains(r.stderr, retry) || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("paycli refund after it: exit %d, %d sent; want 2, nothing sent\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	r = runHostile(t, front.URL, home, "journal", "reconcile")
	if r.code != ExitOutcomeUnknown || !strings.Contains(r.stdout, "INV-A") || !strings.Contains(r.stdout, "refund "+ref+": unknown: may still be in flight") {
		t.Errorf("journal reconcile does not check it: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runHostile(t, front.URL, home, "refund", "--retry", ref, "--yes")
	if r.code != ExitOK || g.Count("/ccpayment/api/refund") != 2 || fmt.Sprint(sentTo(t, g, "/api/refund", 1)["refund_transaction_id"]) != ref ||
		fmt.Sprint(sentTo(t, g, "/api/refund", 1)["amount"]) != "50.00" {
		t.Errorf("--retry of the api refund: exit %d, %d sent\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
}

// TestAPIMoneyPathsWhateverTheirSpelling (issue 23, defect 9): a path that
// reaches the refund call however it is written — a prefix such as
// /index.php or /ccpayment, letter case, repeated slashes, an encoded
// slash, a segment's parameters — is a refund: it needs --yes, and is
// journaled as one. `api POST /index.php/api/refund` skipped both, the
// check wanting a path that starts with /api/.
func TestAPIMoneyPathsWhateverTheirSpelling(t *testing.T) {
	for _, tc := range []struct{ path, served string }{
		{"/index.php/api/refund", "/index.php/api/refund"},
		{"/ccpayment/api/refund", "/ccpayment/api/refund"},
		{"/API/Refund", "/API/Refund"},
		{"/api//refund", "/api/refund"},
		{"/api%2Frefund", "/api/refund"},
		{"/index.php/api/refund;v=2", "/index.php/api/refund;v=2"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			g := newHostileGateway(t, map[string]string{tc.served: refundAnswer})
			home := t.TempDir()
			args := []string{"api", "POST", tc.path, "--credentials", "--merchant-key", "--hash", "refund", "-f", "invoice_id=INV-S", "-f", "amount=5.00"}
			r := runHostile(t, g.URL, home, args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, "refusing to send the request without confirmation") || g.Count("/ccpayment"+tc.served) != 0 {
				t.Fatalf("without --yes: exit %d, %d sent; want 2, nothing sent\n%s", r.code, g.Count("/ccpayment"+tc.served), r.stderr)
			}
			r = runHostile(t, g.URL, home, append(args, "--yes")...)
			if r.code != ExitOK || g.Count("/ccpayment"+tc.served) != 1 {
				t.Fatalf("with --yes: exit %d, %d sent\n%s", r.code, g.Count("/ccpayment"+tc.served), r.stderr)
			}
			if a := lastAttempt(t, r.journal); a.Intent.Kind != "refund" || a.Intent.Ref == "" || a.Class() != journal.Succeeded {
				t.Errorf("journal: kind %q ref %q outcome %s; want a refund made", a.Intent.Kind, a.Intent.Ref, a.Class())
			}
		})
	}
}

// TestAPIPaymentBlocksWhileUnknown (issue 23, defect 9): a payment paycli
// has no command for (paySmart2D) sent through `paycli api` stays an api
// attempt, but one whose answer was lost holds the invoice back like any
// other (exit 2, nothing sent) until `paycli status` has settled it, which
// reads it as a sale. It blocked nothing, and nothing settled it.
func TestAPIPaymentBlocksWhileUnknown(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-2D", "100.00", nil),
	})
	front, payments := faultFront(t, g, "/ccpayment/api/paySmart2D", lostAnswer)
	home := t.TempDir()
	pay := []string{"api", "POST", "/api/paySmart2D", "--merchant-key", "-f", "invoice_id=INV-2D", "-f", "total=100.00", "-f", "currency_code=TRY", "--yes"}
	r := runHostile(t, front.URL, home, pay...)
	if a := lastAttempt(t, r.journal); r.code != ExitOutcomeUnknown || a.Intent.Kind != "api" || a.Class() != journal.Unknown {
		t.Fatalf("the lost payment: exit %d, journal kind %q %s; want 7, an unknown api attempt\n%s", r.code, a.Intent.Kind, a.Class(), r.stderr)
	}
	r = runHostile(t, front.URL, home, pay...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "invoice INV-2D has an api attempt whose outcome is unknown") ||
		!strings.Contains(r.stderr, "paycli status --invoice INV-2D") || payments.Load() != 1 {
		t.Fatalf("the same again: exit %d, %d sent; want 2, nothing sent\n%s", r.code, payments.Load(), r.stderr)
	}
	// Its answer lost, the request may still be at the gateway: the sale
	// check status finds may be another attempt's, so it settles nothing
	// until the request's deadline and InFlightMargin are past.
	r = runHostile(t, front.URL, home, "status", "--invoice", "INV-2D")
	if r.code != ExitOK || !strings.Contains(r.stderr, "may still be in flight") {
		t.Errorf("status while the payment may be in flight: exit %d\n%s", r.code, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown {
		t.Errorf("after status while in flight: %s, want unknown", a.Class())
	}
	ageIntents(t, r.journal, 10*time.Minute)
	r = runHostile(t, front.URL, home, "status", "--invoice", "INV-2D")
	if r.code != ExitOK || !strings.Contains(r.stderr, "Recorded in the journal: api of invoice INV-2D succeeded") {
		t.Errorf("status: exit %d\n%s", r.code, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Succeeded {
		t.Errorf("after status: %s, want succeeded", a.Class())
	}
}

// ageIntents moves the deadline of every intent in the file journal at
// path back by d, as if that much time had passed since it was sent.
func ageIntents(t *testing.T, path string, d time.Duration) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		if deadline, ok := e["deadline"].(string); ok && e["type"] == journal.TypeIntent {
			at, err := time.Parse(time.RFC3339Nano, deadline)
			if err != nil {
				t.Fatal(err)
			}
			e["deadline"] = at.Add(-d).Format(time.RFC3339Nano)
		}
		b, _ := json.Marshal(e)
		out = append(out, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAPIConfirmPaymentIsACaptureOrACancel (issue 23, defect 9):
// confirmPayment through `paycli api` is journaled as the capture or the
// cancellation its body's status asks for, so that a lost one holds back
// `paycli preauth capture` of the invoice.
func TestAPIConfirmPaymentIsACaptureOrACancel(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": openHold("H-9", "100.00"),
	})
	front, apiConfirms := faultFront(t, g, "/ccpayment/index.php/api/confirmPayment", lostAnswer)
	for status, kind := range map[string]string{"1": "preauth-capture", "2": "preauth-cancel"} {
		home := t.TempDir()
		r := runHostile(t, front.URL, home, "api", "POST", "/index.php/api/confirmPayment", "--merchant-key", "--hash", "confirm", "-F", "status="+status,
			"-f", "invoice_id=H-9", "--yes")
		if a := lastAttempt(t, r.journal); r.code != ExitOutcomeUnknown || a.Intent.Kind != kind {
			t.Fatalf("status %s: exit %d, kind %q; want 7 and %s\n%s", status, r.code, a.Intent.Kind, kind, r.stderr)
		}
		if kind != "preauth-capture" {
			continue
		}
		sent := apiConfirms.Load()
		r = runHostile(t, front.URL, home, "preauth", "capture", "--invoice", "H-9", "--yes")
		if r.code != ExitUsage || !strings.Contains(r.stderr, "has a preauth-capture attempt whose outcome is unknown") || g.Count("/ccpayment/api/confirmPayment") != 0 ||
			apiConfirms.Load() != sent {
			t.Errorf("preauth capture after the lost api capture: exit %d; want 2, nothing sent\n%s", r.code, r.stderr)
		}
	}
}

// TestUnknownCaptureBlocksEveryKind (issue 30, defect 1): a preauth
// capture killed after it was sent (its intent without an outcome: the
// outcome is unknown) holds back a preauth cancel and a refund of the same
// invoice — exit 2, nothing sent — where before the cancel was sent and
// journaled succeeded, and the capture then charged the customer the desk
// had recorded as cancelled.
func TestUnknownCaptureBlocksEveryKind(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": openHold("H-30", "100.00"),
	})
	home := t.TempDir()
	seedJournal(t, g.URL, home, lostIntent("preauth-capture", "cap-1", "H-30", "100.00", ""))
	for _, args := range [][]string{
		{"preauth", "cancel", "--invoice", "H-30", "--yes"},
		{"refund", "--invoice", "H-30", "--amount", "10.00", "--yes"},
		{"preauth", "capture", "--invoice", "H-30", "--yes"},
	} {
		r := runHostile(t, g.URL, home, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "has a preauth-capture attempt whose outcome is unknown") {
			t.Errorf("%s: exit %d, want 2 naming the capture\n%s", strings.Join(args[:2], " "), r.code, r.stderr)
		}
	}
	if n := g.Count("/ccpayment/api/confirmPayment") + g.Count("/ccpayment/api/refund"); n != 0 {
		t.Errorf("%d money calls sent past the unknown capture", n)
	}
}
