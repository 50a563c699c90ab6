package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// answerRefundsOf answers check status of invoice: a completed 150.00 TRY
// sale whose refund_info lists refunds (none: a gateway slow to list a
// refund it made).
func answerRefundsOf(g *replay.Server, invoice string, refunds ...map[string]any) {
	g.AnswerTextFor(http.MethodPost, "/ccpayment/api/checkstatus", "invoice_id", invoice, 200,
		checkStatusOf(invoice, "150.00", map[string]any{"refund_info": append([]map[string]any{}, refunds...)}))
}

// attemptByID is the attempt id of the file journal at path.
func attemptByID(t *testing.T, path, id string) journal.Attempt {
	t.Helper()
	attempts, _, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		if a.Intent.Attempt == id {
			return a
		}
	}
	t.Fatalf("no attempt %s in %s", id, path)
	return journal.Attempt{}
}

// TestRefusedResendDoesNotFreeTheInvoice (issue 39, defect 1): a refund
// of unknown outcome that the gateway made is re-sent with --retry; the
// gateway refuses the re-send 49 ("too soon after the previous refund",
// "more than the refundable amount": what the first being made causes).
// The refusal told the first refund's story, freed the invoice, and a new
// refund went out: refunded twice. Now the first stays unsettled, and the
// new refund is refused, nothing sent.
func TestRefusedResendDoesNotFreeTheInvoice(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/refund": `{"status_code":49,"status_description":"Refund failed"}`,
	})
	answerRefundsOf(g, "INV-49")
	home := t.TempDir()
	seedJournal(t, g.URL, home, lostIntent("refund", "r1", "INV-49", "50.00", "RF-1"))
	r := runHostile(t, g.URL, home, "refund", "--retry", "RF-1", "--yes")
	if r.code != ExitRejected || !strings.Contains(r.stderr, "stays unsettled") || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("the re-send refused 49: exit %d, %d sent; want 4, one sent, saying the first stays unsettled\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	if a := attemptByID(t, r.journal, "r1"); a.Class() != journal.Unknown {
		t.Errorf("the first refund after its re-send was refused: %s, want unknown", a.Class())
	}
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-49", "--amount", "50.00", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "has a refund whose outcome is unknown") || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("a new refund after the refused re-send: exit %d, %d sent; want 2, nothing sent (refunded twice)\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
}

// TestQueuedRefundIsNotRetried (issue 39, defect 2): --retry of a refund
// queued for approval (101) was sent; its 104 read as "already made"
// freed the invoice, and a new refund went out, before the gateway's team
// approved the first. Now --retry of a queued refund is refused (exit 2,
// saying to run paycli status), and a 104 to the retry of an unknown
// refund is the retry's own outcome: the first stays unsettled, a new
// refund is refused.
func TestQueuedRefundIsNotRetried(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/refund": `{"status_code":104,"status_description":"refund_transaction_id is not unique"}`,
	})
	answerRefundsOf(g, "INV-Q")
	answerRefundsOf(g, "INV-U")
	home := t.TempDir()
	queued := lostIntent("refund", "q1", "INV-Q", "50.00", "RF-Q")
	out := queued
	code := 101
	out.Type, out.Outcome, out.StatusCode = journal.TypeOutcome, journal.Queued, &code
	seedJournal(t, g.URL, home, queued, out)
	r := runHostile(t, g.URL, home, "refund", "--retry", "RF-Q", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "queued for the gateway team's approval") ||
		!strings.Contains(r.stderr, "paycli status --invoice INV-Q") || g.Count("/ccpayment/api/refund") != 0 {
		t.Fatalf("--retry of a queued refund: exit %d, %d sent; want 2, nothing sent, naming paycli status\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}

	seedJournal(t, g.URL, home, lostIntent("refund", "u1", "INV-U", "50.00", "RF-U"))
	r = runHostile(t, g.URL, home, "refund", "--retry", "RF-U", "--yes")
	if r.code != ExitDuplicate || strings.Contains(r.stderr, "already made") || !strings.Contains(r.stderr, "made or is queued for approval") {
		t.Fatalf("a 104 to a --retry: exit %d; want 6, not saying it was made\n%s", r.code, r.stderr)
	}
	if a := attemptByID(t, r.journal, "u1"); a.Class() != journal.Unknown {
		t.Errorf("the retried refund after a 104: %s, want unknown", a.Class())
	}
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-U", "--amount", "50.00", "--yes")
	if r.code != ExitUsage || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("a new refund after the 104: exit %d, %d sent; want 2, nothing more sent\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
}

// TestRefundMadeAfterTheClientGaveUp (issue 39, defect 3): a refund sent
// with --timeout 5s gets no answer; the gateway makes it 140 s later. At
// its deadline and the two minutes' margin, journal reconcile finds no
// refund with its ref and recorded not_found, which freed the invoice; a
// new refund went out, then the first landed. Now that reading records
// nothing, says what settles the refund, and the invoice stays blocked
// until check status lists it.
func TestRefundMadeAfterTheClientGaveUp(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/refund": `{"status_code":100,"status_description":"ok","order_no":"RO-2","invoice_id":"INV-140"}`,
	})
	answerRefundsOf(g, "INV-140")
	// The client gives up on the first refund; the gateway goes on.
	front, _ := faultFront(t, g, "/ccpayment/api/refund", answeredThenLost(t, g))
	home := t.TempDir()
	r := runHostile(t, front.URL, home, "refund", "--invoice", "INV-140", "--amount", "50.00", "--yes", "--timeout", "5s")
	if r.code != ExitOutcomeUnknown {
		t.Fatalf("the refund without an answer: exit %d, want 7\n%s", r.code, r.stderr)
	}
	first := lastAttempt(t, r.journal)
	// Its deadline and the margin are past: 5 s, two minutes and more.
	ageIntents(t, r.journal, 5*time.Second+journal.InFlightMargin+time.Second)
	r = runHostile(t, front.URL, home, "journal", "reconcile", "-o", "json")
	if r.code != ExitOutcomeUnknown || !strings.Contains(r.stdout, `"outcome": "unknown"`) ||
		!strings.Contains(r.stdout, "paycli refund --retry "+first.Intent.Ref) || !strings.Contains(r.stdout, "paycli journal settle "+first.Intent.Attempt) {
		t.Errorf("reconcile at the deadline and the margin: exit %d, want 7 naming what settles it\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown || a.Reconciled != nil {
		t.Errorf("after reconcile: %s, reconciled %+v; want unknown, nothing recorded", a.Class(), a.Reconciled)
	}
	r = runHostile(t, front.URL, home, "refund", "--invoice", "INV-140", "--amount", "50.00", "--yes")
	if r.code != ExitUsage || g.Count("/ccpayment/api/refund") != 1 {
		t.Fatalf("a new refund while the first may still land: exit %d, %d sent; want 2, nothing sent\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	// 140 s after it was sent, the gateway made it: check status lists it.
	answerRefundsOf(g, "INV-140", map[string]any{"amount": "50.00", "refund_transaction_id": first.Intent.Ref, "status": "Completed"})
	if r = runHostile(t, front.URL, home, "journal", "reconcile"); r.code != ExitOK {
		t.Fatalf("reconcile once it landed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Succeeded {
		t.Errorf("once check status lists it: %s, want succeeded", a.Class())
	}
}
