package soak

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

func jattempt(class, order string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Invoice: "INV"}}
	if class != "" {
		a.Outcome = &journal.Entry{Type: journal.TypeOutcome, Invoice: "INV", Outcome: class, OrderNo: order}
	}
	return a
}

// TestReconcile feeds the checker one invoice's three views at a time: a
// consistent story passes, and each kind of disagreement the soak exists
// to catch is reported.
func TestReconcile(t *testing.T) {
	completed := map[string]sandbox.Sale{"INV": {InvoiceID: "INV", OrderID: "VP1", State: sandbox.StateCompleted}}
	failed := map[string]sandbox.Sale{"INV": {InvoiceID: "INV", OrderID: "VP1", State: sandbox.StateFailed}}
	none := map[string]sandbox.Sale{}
	csCompleted := checkStatus{found: true, status: "Completed", orderID: "VP1"}
	csFailed := checkStatus{found: true, status: "Failed", orderID: "VP1"}
	tests := []struct {
		name    string
		procs   []attempt
		journal []journal.Attempt
		sales   map[string]sandbox.Sale
		cs      checkStatus
		want    string // a problem containing this; "" for none
	}{
		{"paid once, duplicates after", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 6}, {exit: 8}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Duplicate, ""), jattempt(journal.NotSent, "")}, completed, csCompleted, ""},
		{"charged while unknown", []attempt{{exit: 7}, {exit: 6}},
			[]journal.Attempt{jattempt(journal.Unknown, ""), jattempt(journal.Duplicate, "")}, completed, csCompleted, ""},
		{"declined", []attempt{{exit: 5}}, []journal.Attempt{jattempt(journal.Declined, "")}, failed, csFailed, ""},
		{"never charged", []attempt{{exit: 8}}, nil, none, checkStatus{}, ""},
		{"two processes paid", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "charged twice: 2 processes"},
		{"two orders", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Succeeded, "VP2")}, completed, csCompleted, "charged twice: succeeded with orders"},
		{"answered 100, lost", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, none, checkStatus{}, "answered 100"},
		{"answered 100, stored failed", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, failed, csFailed, "answered 100"},
		{"charged, nobody told", []attempt{{exit: 8}},
			[]journal.Attempt{jattempt(journal.NotSent, "")}, completed, csCompleted, "no process exited 0 or 7"},
		{"check status disagrees", []attempt{{exit: 5}},
			[]journal.Attempt{jattempt(journal.Declined, "")}, failed, csCompleted, "check status says"},
		{"check status knows more", nil, nil, none, csCompleted, "the store does not"},
		{"exit and journal disagree", []attempt{{exit: 7}},
			[]journal.Attempt{jattempt(journal.Declined, "")}, failed, csFailed, "1 declined attempts but no process exited 5"},
		{"killed after sending, charged", []attempt{{exit: -1, killed: true}, {exit: 6}},
			[]journal.Attempt{jattempt("", ""), jattempt(journal.Duplicate, "")}, completed, csCompleted, ""},
		{"killed after the outcome line", []attempt{{exit: -1, killed: true}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, ""},
		{"killed before the intent", []attempt{{exit: -1, killed: true}}, nil, none, checkStatus{}, ""},
		{"more unknowns than kills allow", []attempt{{exit: -1, killed: true}, {exit: 7}},
			[]journal.Attempt{jattempt("", ""), jattempt(journal.Unknown, ""), jattempt(journal.Unknown, "")}, completed, csCompleted, "but the journal has 3 unknown"},
		{"a process killed by something else", []attempt{{exit: -1}}, nil, none, checkStatus{}, "exited -1"},
		{"unexpected exit", []attempt{{exit: 1, stderr: "error: boom"}}, nil, none, checkStatus{}, "exited 1: error: boom"},
		// Broken stdout: the order comes from the warning on stderr.
		{"stdout broken after the charge, order named", []attempt{{exit: 0, trouble: troubleClosedPipe, orderNo: orderFromWarning(resultWarning)}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, ""},
		{"stdout broken after the charge, no order named", []attempt{{exit: 0, trouble: troubleDevFull}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "exited 0 (stdout /dev/full) but named no order"},
		{"stdout broken, killed by SIGPIPE", []attempt{{exit: 141, trouble: troubleClosedPipe, stderr: ""}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "exited 141"},
		// Disk full: the intent refused, or the outcome left unwritten.
		{"intent refused, nothing sent", []attempt{{exit: 1, trouble: troubleDiskFull, stderr: "error: " + intentRefused + ": journal: file too large"}},
			nil, none, checkStatus{}, ""},
		{"intent refused but charged", []attempt{{exit: 1, trouble: troubleDiskFull, stderr: "error: " + intentRefused + ": journal: file too large"}},
			nil, completed, csCompleted, "no process exited 0 or 7"},
		{"exit 1 for another reason", []attempt{{exit: 1, trouble: troubleDiskFull, stderr: "error: cannot read the config: file too large"}},
			nil, none, checkStatus{}, "exited 1: error: cannot read the config"},
		{"outcome unwritten, intent open", []attempt{{exit: 0, trouble: troubleDiskFull, orderNo: "VP1", stderr: outcomeWarning(journal.Succeeded)}},
			[]journal.Attempt{jattempt("", "")}, completed, csCompleted, ""},
		{"outcome unwritten, declined", []attempt{{exit: 5, trouble: troubleDiskFull, stderr: outcomeWarning(journal.Declined) + "\nerror: payment declined"}, {exit: 6}},
			[]journal.Attempt{jattempt("", ""), jattempt(journal.Duplicate, "")}, failed, csFailed, ""},
		{"outcome unwritten, exit 8", []attempt{{exit: 8, trouble: troubleDiskFull, stderr: outcomeWarning(journal.NotSent)}},
			[]journal.Attempt{jattempt("", "")}, none, checkStatus{}, ""},
		{"outcome unwritten but the journal has it", []attempt{{exit: 0, trouble: troubleDiskFull, orderNo: "VP1", stderr: outcomeWarning(journal.Succeeded)}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "1 succeeded attempts but no process exited 0"},
		{"outcome unwritten names another class", []attempt{{exit: 0, trouble: troubleDiskFull, orderNo: "VP1", stderr: outcomeWarning(journal.Declined)}},
			[]journal.Attempt{jattempt("", "")}, completed, csCompleted, "exited 0 but says its outcome declined"},
		{"outcome line lost without a word", []attempt{{exit: 0, trouble: troubleDiskFull, orderNo: "VP1"}},
			[]journal.Attempt{jattempt("", "")}, completed, csCompleted, "1 unknown attempts but no process exited 7"},
		// Held back by the journal before any intent: nothing to account for.
		{"refused while another is in flight", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 6, stderr: inFlightRefusal}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, ""},
		{"refused while another is in flight, its holder unread", []attempt{{exit: 0, orderNo: "VP1"},
			{exit: 6, stderr: "error: another paycli command on invoice INV is in flight; nothing was sent"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, ""},
		{"refused while the last is unknown", []attempt{{exit: -1, killed: true}, {exit: 2, stderr: unknownRefusal}},
			[]journal.Attempt{jattempt("", "")}, completed, csCompleted, ""},
		{"exit 6 without a refusal leaves a duplicate", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 6}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "the processes account for 1 duplicate attempts"},
		{"exit 2 for another reason", []attempt{{exit: 2, stderr: "error: invalid --token: expired"}}, nil, none, checkStatus{}, "exited 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{report: &Report{}}
			r.reconcile(invoice{id: "INV"}, tt.procs, tt.journal, tt.sales, tt.cs)
			got := strings.Join(r.report.Problems, "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("problems:\n%s\nwant none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}

const (
	inFlightRefusal = "error: a walletpay on invoice INV is in flight in pid 4242 since 2026-11-22 13:00:00 +03:00; nothing was sent"
	unknownRefusal  = "error: invoice INV has a walletpay attempt whose outcome is unknown (attempt a1, 2026-11-22 13:00:00 +03:00); nothing was sent"
)

const resultWarning = "warning: the result could not be written to stdout (write /dev/stdout: broken pipe); it is in the journal: succeeded, order VP1"

func outcomeWarning(class string) string {
	return outcomeUnwrittenPrefix + class + outcomeUnwrittenSuffix + ": journal: writing journal.jsonl: file too large"
}

func TestRetryRefOf(t *testing.T) {
	stderr := "error: outcome unknown for the refund of INV-1: the request was sent but no complete answer arrived; it was not retried\n" +
		"Re-send it with the same refund_transaction_id: paycli refund --retry RF5f0c8e2a9b1d --yes"
	if got := retryRefOf(stderr); got != "RF5f0c8e2a9b1d" {
		t.Errorf("got %q", got)
	}
	if got := retryRefOf("error: boom"); got != "" {
		t.Errorf("got %q from no retry line", got)
	}
}

func TestOrderFromWarning(t *testing.T) {
	if got := orderFromWarning("Wallet payment\n" + resultWarning); got != "VP1" {
		t.Errorf("got %q, want VP1", got)
	}
	if got := orderFromWarning("warning: something else, order VP2"); got != "" {
		t.Errorf("got %q from another warning", got)
	}
}

func TestLuhnComplete(t *testing.T) {
	for _, p := range []string{"435508435508435", "552879123456789", "411111111111111"} {
		if err := sandbox.ValidateCardNumber(luhnComplete(p)); err != nil {
			t.Errorf("%s: %v", luhnComplete(p), err)
		}
	}
	if got := luhnComplete("435508435508435"); got != sandbox.DefaultWalletCard {
		t.Errorf("got %s, want %s", got, sandbox.DefaultWalletCard)
	}
}

// TestCheckCardSale feeds the card-sale rules one stored state at a time:
// what refunds, captures and cancels may leave passes; what would mean a
// refund applied twice, money refunded beyond the sale, a capture above
// the hold or after a cancel, or a lost sale is reported.
func TestCheckCardSale(t *testing.T) {
	d := decimal.RequireFromString
	sale := cardSale{id: "C1", amount: d("150.00"), orderID: "O1"}
	hold := cardSale{id: "C2", amount: d("200.00"), preauth: true, orderID: "O2"}
	base := func(cs cardSale) sandbox.Sale {
		s := sandbox.Sale{InvoiceID: cs.id, OrderID: cs.orderID, State: sandbox.StateCompleted, Amount: cs.amount.StringFixed(2)}
		if cs.preauth {
			s.TransactionType = sandbox.TypePreAuth
			s.PreAuth = &sandbox.PreAuth{State: sandbox.PreAuthOpen, Held: cs.amount.StringFixed(2)}
		}
		return s
	}
	refunds := func(amounts ...string) []sandbox.Refund {
		var rs []sandbox.Refund
		for i, a := range amounts {
			rs = append(rs, sandbox.Refund{TransactionID: fmt.Sprintf("R%d", i), Amount: a, Status: sandbox.RefundCompleted})
		}
		return rs
	}
	with := func(cs cardSale, change func(*sandbox.Sale)) sandbox.Sale {
		s := base(cs)
		change(&s)
		return s
	}
	captured := func(amount string) func(*sandbox.Sale) {
		return func(s *sandbox.Sale) { s.PreAuth.State, s.PreAuth.Captured = sandbox.PreAuthCaptured, amount }
	}
	tests := []struct {
		name   string
		cs     cardSale
		sale   sandbox.Sale
		stored bool
		want   string
	}{
		{"untouched", sale, base(sale), true, ""},
		{"refunded in part", sale, with(sale, func(s *sandbox.Sale) { s.Refunds = refunds("50.00", "0.01") }), true, ""},
		{"refunded in full", sale, with(sale, func(s *sandbox.Sale) { s.Refunds = refunds("50.00", "100.00") }), true, ""},
		{"refunded beyond the sale", sale, with(sale, func(s *sandbox.Sale) { s.Refunds = refunds("100.00", "50.01") }), true, "more than the 150.00 it charged"},
		{"refund applied twice", sale, with(sale, func(s *sandbox.Sale) {
			s.Refunds = refunds("10.00", "10.00")
			s.Refunds[1].TransactionID = "R0"
		}), true, "refund R0 applied twice"},
		{"refund of three decimals", sale, with(sale, func(s *sandbox.Sale) { s.Refunds = refunds("1.005") }), true, `refund R0 of "1.005"`},
		{"lost", sale, sandbox.Sale{}, false, "has lost it"},
		{"another order", sale, with(sale, func(s *sandbox.Sale) { s.OrderID = "O9" }), true, "stored as completed order O9"},
		{"hold open", hold, base(hold), true, ""},
		{"hold captured in part, then refunded", hold, with(hold, func(s *sandbox.Sale) {
			captured("120.00")(s)
			s.Refunds = refunds("120.00")
		}), true, ""},
		{"hold cancelled", hold, with(hold, func(s *sandbox.Sale) { s.PreAuth.State = sandbox.PreAuthCancelled }), true, ""},
		{"captured above the hold", hold, with(hold, captured("200.01")), true, "captured \"200.01\" of the 200.00 held"},
		{"captured nothing", hold, with(hold, captured("0")), true, "captured \"0\""},
		{"captured after a cancel", hold, with(hold, func(s *sandbox.Sale) {
			s.PreAuth.State, s.PreAuth.Captured = sandbox.PreAuthCancelled, "200.00"
		}), true, "cancelled but captured 200.00"},
		{"refunded beyond the capture", hold, with(hold, func(s *sandbox.Sale) {
			captured("50.00")(s)
			s.Refunds = refunds("60.00")
		}), true, "more than the 50.00 it charged"},
		{"refunded while open", hold, with(hold, func(s *sandbox.Sale) { s.Refunds = refunds("1.00") }), true, "more than the 0.00 it charged"},
		{"hold changed", hold, with(hold, func(s *sandbox.Sale) { s.PreAuth.Held = "250.00" }), true, `holds "250.00", made to hold 200.00`},
		{"hold became a sale", hold, with(hold, func(s *sandbox.Sale) { s.PreAuth = nil }), true, "stored as a sale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(checkCardSale(tt.cs, tt.sale, tt.stored, map[string]string{}), "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("problems:\n%s\nwant none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
	// One refund id on two sales is one refund applied twice.
	ids := map[string]string{}
	a := with(sale, func(s *sandbox.Sale) { s.Refunds = refunds("1.00") })
	checkCardSale(sale, a, true, ids)
	other := cardSale{id: "C3", amount: d("10.00"), orderID: "O3"}
	b := with(other, func(s *sandbox.Sale) { s.Refunds = refunds("1.00") })
	if got := strings.Join(checkCardSale(other, b, true, ids), "\n"); !strings.Contains(got, "refund R0 applied twice (also to C1)") {
		t.Errorf("problems:\n%s\nwant refund R0 applied twice", got)
	}
}

// heldBackUnknown is what a money-moving command says when an attempt on
// its invoice has an unknown outcome (exit 2).
const heldBackUnknown = "error: invoice C has a refund attempt whose outcome is unknown (attempt a1, …); nothing was sent"

func refundAttempt(ref, class string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: kindRefund, Invoice: "C", Ref: ref}}
	if class != "" {
		a.Outcome = &journal.Entry{Type: journal.TypeOutcome, Kind: kindRefund, Invoice: "C", Ref: ref, Outcome: class}
	}
	return a
}

func opAttempt(kind, class string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: kind, Invoice: "C"}}
	if class != "" {
		a.Outcome = &journal.Entry{Type: journal.TypeOutcome, Kind: kind, Invoice: "C", Outcome: class}
	}
	return a
}

// amountAttempt is an attempt of kind on card sale C for amount, with
// ref (empty for an api refund, which names none).
func amountAttempt(kind, ref, amount, class string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: kind, Invoice: "C", Ref: ref, Amount: amount}}
	if class != "" {
		a.Outcome = &journal.Entry{Type: journal.TypeOutcome, Kind: kind, Invoice: "C", Ref: ref, Amount: amount, Outcome: class}
	}
	return a
}

// timed puts a's intent at second intent and its outcome at second outcome.
func timed(a journal.Attempt, intent, outcome int) journal.Attempt {
	t := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	a.Intent.Time = t.Add(time.Duration(intent) * time.Second)
	if a.Outcome != nil {
		o := *a.Outcome
		o.Time = t.Add(time.Duration(outcome) * time.Second)
		a.Outcome = &o
	}
	return a
}

// TestCheckCardOps feeds the checker the refund, capture and cancel
// processes of one card sale, its journal and its stored state.
func TestCheckCardOps(t *testing.T) {
	d := decimal.RequireFromString
	sale := cardSale{id: "C", amount: d("150.00"), orderID: "O1"}
	hold := cardSale{id: "C", amount: d("200.00"), preauth: true, orderID: "O2"}
	stored := func(cs cardSale, state, captured string, refunds ...string) sandbox.Sale {
		s := sandbox.Sale{InvoiceID: cs.id, OrderID: cs.orderID, State: sandbox.StateCompleted, Amount: cs.amount.StringFixed(2)}
		if cs.preauth {
			s.PreAuth = &sandbox.PreAuth{State: state, Held: cs.amount.StringFixed(2), Captured: captured}
		}
		for _, r := range refunds {
			ref, amount, _ := strings.Cut(r, "=")
			s.Refunds = append(s.Refunds, sandbox.Refund{TransactionID: ref, Amount: amount, Status: sandbox.RefundCompleted})
		}
		return s
	}
	refund := func(exit int) attempt { return attempt{kind: kindRefund, exit: exit, amount: "10.00"} }
	capture := func(exit int, amount string) attempt { return attempt{kind: kindCapture, exit: exit, amount: amount} }
	cancel := func(exit int) attempt { return attempt{kind: kindCancel, exit: exit} }
	tests := []struct {
		name    string
		cs      cardSale
		sale    sandbox.Sale
		procs   []attempt
		journal []journal.Attempt
		want    string
	}{
		{"two refunds, one refused before sending", sale, stored(sale, "", "", "R1=10.00", "R2=10.00"),
			[]attempt{refund(0), refund(0), refund(2)},
			[]journal.Attempt{refundAttempt("R1", journal.Succeeded), refundAttempt("R2", journal.Succeeded)}, ""},
		{"refund made while told unknown", sale, stored(sale, "", "", "R1=10.00"),
			[]attempt{refund(7)}, []journal.Attempt{refundAttempt("R1", journal.Unknown)}, ""},
		{"refund refused by the gateway", sale, stored(sale, "", ""),
			[]attempt{refund(4)}, []journal.Attempt{refundAttempt("R1", journal.Rejected)}, ""},
		{"answered refund lost", sale, stored(sale, "", ""),
			[]attempt{refund(0)}, []journal.Attempt{refundAttempt("R1", journal.Succeeded)}, "refund R1 answered as made (succeeded) but the sandbox has no such refund"},
		{"refund nobody journaled", sale, stored(sale, "", "", "R9=10.00"),
			nil, nil, "refund R9 of 10.00 made but no journal intent names it"},
		{"refund made though refused", sale, stored(sale, "", "", "R1=10.00"),
			[]attempt{refund(4)}, []journal.Attempt{refundAttempt("R1", journal.Rejected)}, "refund R1 of 10.00 made, but the journal says [rejected]"},
		{"unknown, retried, already made", sale, stored(sale, "", "", "R1=10.00"),
			[]attempt{refund(7), {kind: kindRefund, exit: 6, retryRef: "R1"}},
			[]journal.Attempt{refundAttempt("R1", journal.Unknown), refundAttempt("R1", journal.Duplicate)}, ""},
		{"unknown, retried, made by the retry", sale, stored(sale, "", "", "R1=10.00"),
			[]attempt{refund(7), {kind: kindRefund, exit: 0, retryRef: "R1"}},
			[]journal.Attempt{refundAttempt("R1", journal.Unknown), refundAttempt("R1", journal.Succeeded)}, ""},
		{"retry told already made, but nothing was", sale, stored(sale, "", ""),
			[]attempt{refund(7), {kind: kindRefund, exit: 6, retryRef: "R1"}},
			[]journal.Attempt{refundAttempt("R1", journal.Unknown), refundAttempt("R1", journal.Duplicate)}, "refund R1 answered as made (duplicate) but the sandbox has no such refund"},
		{"retried refund applied twice", sale, stored(sale, "", "", "R1=10.00", "R1=10.00"),
			[]attempt{refund(7), {kind: kindRefund, exit: 0, retryRef: "R1"}},
			[]journal.Attempt{refundAttempt("R1", journal.Unknown), refundAttempt("R1", journal.Succeeded)}, "refund R1 applied twice"},
		{"refund exit without its journal line", sale, stored(sale, "", "", "R1=10.00"),
			[]attempt{refund(0), refund(0)}, []journal.Attempt{refundAttempt("R1", journal.Succeeded)}, "the processes account for 2 succeeded attempts"},
		{"captured in part", hold, stored(hold, sandbox.PreAuthCaptured, "100.00"),
			[]attempt{capture(0, "100.00"), capture(6, ""), cancel(4)},
			[]journal.Attempt{opAttempt(kindCapture, journal.Succeeded), opAttempt(kindCapture, journal.Duplicate)}, ""},
		{"captured while told unknown", hold, stored(hold, sandbox.PreAuthCaptured, "200.00"),
			[]attempt{capture(7, "")}, []journal.Attempt{opAttempt(kindCapture, journal.Unknown)}, ""},
		{"cancelled", hold, stored(hold, sandbox.PreAuthCancelled, ""),
			[]attempt{cancel(0), capture(4, "")}, []journal.Attempt{opAttempt(kindCancel, journal.Succeeded)}, ""},
		{"captured twice", hold, stored(hold, sandbox.PreAuthCaptured, "200.00"),
			[]attempt{capture(0, ""), capture(0, "")},
			[]journal.Attempt{opAttempt(kindCapture, journal.Succeeded), opAttempt(kindCapture, journal.Succeeded)}, "captured twice"},
		{"captured after a cancel", hold, stored(hold, sandbox.PreAuthCaptured, "200.00"),
			[]attempt{cancel(0), capture(0, "")},
			[]journal.Attempt{opAttempt(kindCancel, journal.Succeeded), opAttempt(kindCapture, journal.Succeeded)}, "told captured and told cancelled"},
		{"told captured, still open", hold, stored(hold, sandbox.PreAuthOpen, ""),
			[]attempt{capture(0, "")}, []journal.Attempt{opAttempt(kindCapture, journal.Succeeded)}, "but the pre-authorization is open"},
		{"captured another amount", hold, stored(hold, sandbox.PreAuthCaptured, "200.00"),
			[]attempt{capture(0, "50.00")}, []journal.Attempt{opAttempt(kindCapture, journal.Succeeded)}, `a capture of 50.00 told success, the sandbox captured "200.00"`},
		{"captured, nobody told", hold, stored(hold, sandbox.PreAuthCaptured, "200.00"),
			[]attempt{capture(8, "")}, []journal.Attempt{opAttempt(kindCapture, journal.NotSent)}, "captured, but no preauth-capture process was told so"},
		{"cancelled, nobody told", hold, stored(hold, sandbox.PreAuthCancelled, ""),
			[]attempt{cancel(4)}, nil, "cancelled, but no preauth-cancel process was told so"},
		// One refund command, one refund: a command killed and run again
		// at once is one command.
		{"killed refund run again, held back", sale, stored(sale, "", "", "R1=5.03"),
			[]attempt{{kind: kindRefund, exit: -1, killed: true, amount: "5.03"}, {kind: kindRefund, exit: 2, amount: "5.03", rerun: true, stderr: heldBackUnknown}},
			[]journal.Attempt{amountAttempt(kindRefund, "R1", "5.03", "")}, ""},
		{"killed refund run again, refunded twice", sale, stored(sale, "", "", "R1=5.03", "R2=5.03"),
			[]attempt{{kind: kindRefund, exit: -1, killed: true, amount: "5.03"}, {kind: kindRefund, exit: 0, amount: "5.03", rerun: true}},
			[]journal.Attempt{amountAttempt(kindRefund, "R1", "5.03", ""), amountAttempt(kindRefund, "R2", "5.03", journal.Succeeded)},
			"refunded twice: 2 refunds of 5.03 (R1, R2), 1 allowed"},
		{"killed once its success was recorded, run again", sale, stored(sale, "", "", "R1=5.03", "R2=5.03"),
			[]attempt{{kind: kindRefund, exit: -1, killed: true, amount: "5.03"}, {kind: kindRefund, exit: 0, amount: "5.03", rerun: true}},
			[]journal.Attempt{timed(amountAttempt(kindRefund, "R1", "5.03", journal.Succeeded), 0, 1), timed(amountAttempt(kindRefund, "R2", "5.03", journal.Succeeded), 2, 3)}, ""},
		{"sent while the first was unknown", sale, stored(sale, "", "", "R1=5.03", "R2=5.03"),
			[]attempt{{kind: kindRefund, exit: -1, killed: true, amount: "5.03"}, {kind: kindRefund, exit: 0, amount: "5.03", rerun: true}},
			[]journal.Attempt{timed(amountAttempt(kindRefund, "R1", "5.03", journal.Succeeded), 0, 3), timed(amountAttempt(kindRefund, "R2", "5.03", journal.Succeeded), 2, 4)}, "refunded twice"},
		{"a full refund of the same amount", sale, stored(sale, "", "", "R1=5.03", "R2=5.03"),
			[]attempt{{kind: kindRefund, exit: 0, amount: "5.03"}, {kind: kindRefund, exit: 0}},
			[]journal.Attempt{amountAttempt(kindRefund, "R1", "5.03", journal.Succeeded), amountAttempt(kindRefund, "R2", "5.03", journal.Succeeded)}, ""},
		{"api refund made", sale, stored(sale, "", "", "SBX-1=5.03"),
			[]attempt{{kind: kindAPI, exit: 0, amount: "5.03"}},
			[]journal.Attempt{amountAttempt(kindAPI, "", "5.03", journal.Succeeded)}, ""},
		{"api refund journaled as a refund", sale, stored(sale, "", "", "SBX-1=5.03", "R2=6.04"),
			[]attempt{{kind: kindAPI, exit: 0, amount: "5.03"}, {kind: kindRefund, exit: 0, amount: "6.04"}},
			[]journal.Attempt{amountAttempt(kindRefund, "", "5.03", journal.Succeeded), amountAttempt(kindRefund, "R2", "6.04", journal.Succeeded)}, ""},
		{"api refund killed and run again, refunded twice", sale, stored(sale, "", "", "SBX-1=5.03", "SBX-2=5.03"),
			[]attempt{{kind: kindAPI, exit: -1, killed: true, amount: "5.03"}, {kind: kindAPI, exit: 0, amount: "5.03", rerun: true}},
			[]journal.Attempt{amountAttempt(kindAPI, "", "5.03", ""), amountAttempt(kindAPI, "", "5.03", journal.Succeeded)},
			"refunded twice: 2 refunds of 5.03 (SBX-1, SBX-2)"},
		{"api refund answered, lost", sale, stored(sale, "", ""),
			[]attempt{{kind: kindAPI, exit: 0, amount: "5.03"}},
			[]journal.Attempt{amountAttempt(kindAPI, "", "5.03", journal.Succeeded)}, "an api refund of 5.03 answered as made (succeeded) but the sandbox has no refund of that amount"},
		{"api refund made though refused", sale, stored(sale, "", "", "SBX-1=5.03"),
			[]attempt{{kind: kindAPI, exit: 4, amount: "5.03"}},
			[]journal.Attempt{amountAttempt(kindAPI, "", "5.03", journal.Rejected)}, "refund SBX-1 of 5.03 made by an api call, but the journal says [rejected]"},
		{"api refund told success, journal silent", sale, stored(sale, "", "", "SBX-1=5.03"),
			[]attempt{{kind: kindAPI, exit: 0, amount: "5.03"}}, nil, "no journal intent names it"},
		{"exit 1 for another reason", hold, stored(hold, sandbox.PreAuthOpen, ""),
			[]attempt{{kind: kindCancel, exit: 1, stderr: "error: boom"}}, nil, "exited 1: error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{report: &Report{RefundsTold: map[string]int{}, Problems: []string{}}}
			r.checkCardOps(tt.cs, tt.sale, true, tt.procs, tt.journal)
			got := strings.Join(append(r.report.Problems, checkCardSale(tt.cs, tt.sale, true, map[string]string{})...), "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("problems:\n%s\nwant none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}

// TestKillOnLine: a process is killed mid-flight on the --debug line of
// its money-moving call, sent or answered, never on its other calls.
func TestKillOnLine(t *testing.T) {
	const (
		refundSent     = `time=2026-11-25T23:13:41.261Z level=DEBUG msg="http request" method=POST url=http://127.0.0.1:33833/ccpayment/api/refund headers.Accept=application/json body="{}"`
		refundAnswered = `time=2026-11-25T23:13:41.262Z level=DEBUG msg="http response" method=POST url=http://127.0.0.1:33833/ccpayment/api/refund status=200 body="{\"status_code\":100}"`
		captureSent    = `time=2026-11-25T23:13:41.261Z level=DEBUG msg="http request" method=POST url=http://127.0.0.1:1/ccpayment/api/confirmPayment body="{}"`
		paySent        = `time=2026-11-25T23:13:41.261Z level=DEBUG msg="http request" method=POST url=http://127.0.0.1:1/ccpayment/api/walletPay body="{}"`
		statusSent     = `time=2026-11-25T23:13:41.261Z level=DEBUG msg="http request" method=POST url=http://127.0.0.1:1/ccpayment/api/checkstatus body="{\"url\":\"/api/refund\"}"`
		tokenAnswered  = `time=2026-11-25T23:13:41.261Z level=DEBUG msg="http response" method=POST url=http://127.0.0.1:1/ccpayment/api/token status=200`
	)
	for _, tt := range []struct {
		line, msg string
		want      bool
	}{
		{refundSent, httpRequestSent, true},
		{refundSent, httpAnswered, false},
		{refundAnswered, httpAnswered, true},
		{refundAnswered, httpRequestSent, false},
		{captureSent, httpRequestSent, true},
		{paySent, httpRequestSent, true},
		{statusSent, httpRequestSent, false},
		{tokenAnswered, httpAnswered, false},
		{"error: boom", httpAnswered, false},
	} {
		if got := killOnLine(tt.line, tt.msg); got != tt.want {
			t.Errorf("killOnLine(%.60q…, %q) = %v", tt.line, tt.msg, got)
		}
	}
}

// TestLineWatch: every byte is kept, and each line is handed on whole,
// however the writes cut it.
func TestLineWatch(t *testing.T) {
	var lines []string
	w := &lineWatch{onLine: func(l string) { lines = append(lines, l) }}
	for _, part := range []string{"one\ntw", "o", "\nthree\nfo", "ur"} {
		if n, err := w.Write([]byte(part)); n != len(part) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if strings.Join(lines, "|") != "one|two|three" || w.String() != "one\ntwo\nthree\nfour" {
		t.Errorf("lines %q, kept %q", lines, w.String())
	}
}
