package refund

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
)

func TestCheck(t *testing.T) {
	op := operation{}
	for _, c := range []struct {
		in    input
		field string // "" when the input is fine
	}{
		{input{Invoice: "INV-1", Amount: "50.00"}, ""},
		{input{Invoice: "INV-1", Amount: "50"}, ""},
		{input{Invoice: "INV-1", Full: true}, ""},
		{input{Invoice: "INV-1", Full: true, ID: "r-1"}, ""},
		{input{Invoice: "", Amount: "5"}, "invoice"},
		{input{Invoice: "INV|1", Amount: "5"}, "invoice"},
		{input{Invoice: " INV-1", Amount: "5"}, "invoice"},
		{input{Invoice: "INV-1"}, "amount"},
		{input{Invoice: "INV-1", Amount: "5", Full: true}, "amount"},
		{input{Invoice: "INV-1", Amount: "0"}, "amount"},
		{input{Invoice: "INV-1", Amount: "0.00"}, "amount"},
		{input{Invoice: "INV-1", Amount: "-5"}, "amount"},
		{input{Invoice: "INV-1", Amount: "5e2"}, "amount"},
		{input{Invoice: "INV-1", Amount: "1,5"}, "amount"},
		{input{Invoice: "INV-1", Amount: "5", ID: "a|b"}, "id"},
		{input{Invoice: "INV-1", Amount: "5", ID: strings.Repeat("x", 65)}, "id"},
		{input{Invoice: "INV-1", Amount: "5", ID: "ré"}, "id"},
	} {
		_, err := op.Check(&refund{input: c.in})
		var fe *moneyop.FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%+v: error %v, want one about %s", c.in, err, c.field)
		}
	}
}

// status builds a check-status answer from JSON fields.
func status(t *testing.T, fields string) *gateway.CheckStatusResult {
	t.Helper()
	var r gateway.CheckStatusResult
	if err := json.Unmarshal([]byte("{"+fields+"}"), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

const paid = `"status_code":100,"transaction_amount":"150.00","currency_code":"TRY","payment_status":1,"credit_card_no":"435508******4358"`

func TestSaleOf(t *testing.T) {
	for _, c := range []struct {
		name, fields string
		// remains is what is refundable; "" when the sale is refused (exit 4).
		remains string
		why     string
	}{
		{"completed", paid + `,"transaction_status":"Completed","transaction_type":"Auth"`, "150", ""},
		{"partially refunded (sandbox)", paid + `,"transaction_status":"Partially Refunded","total_refunded_amount":"50.00","refund_info":[{"amount":"50.00","refund_transaction_id":"a"}]`, "100", ""},
		{"refund_info counted when the total lags", paid + `,"transaction_status":"Completed","total_refunded_amount":0,"refund_info":[{"amount":"20.00","refund_transaction_id":"a","status":"Pending Approval"}]`, "130", ""},
		{"the total counted when refund_info lags", paid + `,"transaction_status":"Completed","total_refunded_amount":"30"`, "120", ""},
		{"a negative refund does not add", paid + `,"transaction_status":"Completed","refund_info":[{"amount":"-50","refund_transaction_id":"a"}]`, "150", ""},
		{"captured pre-authorization (gateway)", paid + `,"transaction_status":"Completed","transaction_type":"PostAuth"`, "150", ""},
		{"refunded", paid + `,"transaction_status":"Refunded","total_refunded_amount":"150.00"`, "", "fully refunded"},
		{"completed but all refunded", paid + `,"transaction_status":"Completed","total_refunded_amount":"150.00"`, "", "fully refunded"},
		{"captured pre-authorization", paid + `,"transaction_status":"Completed","transaction_type":"PreAuth"`, "150", ""},
		{"open pre-authorization (other spelling)", paid + `,"transaction_status":"Pre-Authorization","transaction_type":"PreAuth"`, "", "pre-authorization"},
		{"open pre-authorization (sandbox)", paid + `,"transaction_status":"Pre-Authorized","transaction_type":"PreAuth"`, "", "pre-authorization"},
		{"cancelled", paid + `,"transaction_status":"Cancelled"`, "", "Cancelled, not completed"},
		{"failed", paid + `,"transaction_status":"Failed"`, "", "Failed, not completed"},
		{"pending", paid + `,"transaction_status":"Pending"`, "", "Pending, not completed"},
		{"no status", paid, "", "does not say"},
		{"not paid", `"transaction_amount":"150.00","currency_code":"TRY","payment_status":0,"transaction_status":"Completed"`, "", "payment_status is 0"},
		{"unknown currency", `"transaction_amount":"150.00","currency_code":"XXY","transaction_status":"Completed"`, "", "no known currency"},
		{"no amount", `"currency_code":"TRY","transaction_status":"Completed"`, "", "no positive transaction_amount"},
		// The gateway's documented check status has no currency_code: it
		// does not block a refund (issue 23, defect 11).
		{"no currency", `"transaction_amount":"150.00","payment_status":1,"transaction_status":"Completed"`, "150", ""},
		// The gateway's words are quoted with a card number in them masked.
		{"a card in the status", paid + `,"transaction_status":"Held 4111111111111111"`, "", "the sale is Held 411111******1111, not"},
		{"a card as the currency", `"transaction_amount":"150.00","currency_code":"4111111111111111","transaction_status":"Completed"`, "", `currency ("411111******1111")`},
		// Issue 23, defect 8: figures that cannot be read, or a status
		// that disagrees with them, leave what remains unknown.
		{"a refund amount empty", paid + `,"transaction_status":"Refunded","total_refunded_amount":"150.00","refund_info":[{"amount":"","refund_transaction_id":"a"}]`, "", `refund 1 of its refund_info has the amount ""`},
		{"the total a dash", paid + `,"transaction_status":"Completed","total_refunded_amount":"-"`, "", `its total_refunded_amount is "-"`},
		{"no total at all", paid + `,"transaction_status":"Partially Refunded","refund_info":[{"amount":"50","refund_transaction_id":"a"}]`, "100", ""},
		{"Refunded with some remaining", paid + `,"transaction_status":"Refunded","total_refunded_amount":"50.00"`, "", `transaction_status "Refunded", but its refunds add up to 50.00 TRY of the 150.00 TRY sale`},
		{"Partially Refunded with nothing refunded", paid + `,"transaction_status":"Partially Refunded","total_refunded_amount":"0"`, "", "but it lists no refund"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := saleOf("INV-1", "paycli status --invoice INV-1", status(t, c.fields), "", nil)
			if c.remains == "" {
				if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindRejected || !strings.Contains(err.Error(), c.why) {
					t.Errorf("error %v (kind %v), want exit 4 saying %q", err, kind, c.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := decimal.RequireFromString(c.remains); !s.Remaining().Equal(want) {
				t.Errorf("remains %s, want %s", s.Remaining(), want)
			}
		})
	}
}

// TestSaleOfCountsMadeRefunds (issue 23, defect 8): a refund the journal
// records as made (answered 101: queued) counts against what remains until
// check status lists it, and once listed counts once.
func TestSaleOfCountsMadeRefunds(t *testing.T) {
	code := 101
	scope := journal.Scope{Kind: "refund", Gateway: "g"}
	attempt := func(id, ref, amount, outcome string) journal.Attempt {
		e := journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: "g", Attempt: id, Invoice: "INV-1", Amount: amount, Ref: ref}
		o := e
		o.Type, o.Outcome, o.StatusCode = journal.TypeOutcome, outcome, &code
		return journal.Attempt{Intent: e, Outcome: &o}
	}
	attempts := []journal.Attempt{
		attempt("a1", "RF-Q", "100.00", journal.Succeeded),
		attempt("a2", "RF-Q", "100.00", journal.Duplicate), // its re-send: one refund
		attempt("a3", "RF-X", "20.00", journal.Rejected),   // never made
	}
	made := madeRefunds(attempts, scope, "INV-1")
	if len(made) != 1 || made[0].Intent.Ref != "RF-Q" {
		t.Fatalf("made %+v, want RF-Q once", made)
	}
	for _, c := range []struct {
		fields  string
		remains string
	}{
		{`,"transaction_status":"Completed","total_refunded_amount":"0","refund_info":[]`, "50"},
		{`,"transaction_status":"Partially Refunded","total_refunded_amount":"100","refund_info":[{"amount":"100","refund_transaction_id":"RF-Q"}]`, "50"},
		{`,"transaction_status":"Partially Refunded","total_refunded_amount":"10","refund_info":[{"amount":"10","refund_transaction_id":"RF-O"}]`, "40"},
	} {
		s, err := saleOf("INV-1", "", status(t, paid+c.fields), "", made)
		if err != nil || !s.Remaining().Equal(decimal.RequireFromString(c.remains)) {
			t.Errorf("%s: remains %s (%v), want %s", c.fields, s.Remaining(), err, c.remains)
		}
	}
	bad := []journal.Attempt{attempt("a9", "RF-B", "lots", journal.Succeeded)}
	if _, err := saleOf("INV-1", "", status(t, paid+`,"transaction_status":"Completed"`), "", bad); err == nil || !strings.Contains(err.Error(), `the journal's refund RF-B has the amount "lots"`) {
		t.Errorf("a made refund of unreadable amount: %v", err)
	}
}

func apiErr(code int, desc string) error {
	return &gateway.APIError{Endpoint: gateway.EndpointRefund, HTTPStatus: http.StatusOK, StatusCode: code, HasStatusCode: true, Description: desc}
}

func TestClassify(t *testing.T) {
	op := operation{flags: []string{"--sandbox"}}
	r := &refund{input: input{Invoice: "INV-1"}, ref: "RF1"}
	retried := &refund{input: input{Invoice: "INV-1"}, ref: "RF1", retry: "RF1"}
	// Issue 39, defect 2: a 104 to a --retry is its own outcome, made or
	// queued; it does not say the refund it re-sent was made.
	if o := op.Classify(retried, nil, apiErr(104, "not unique")); o.Class != journal.Duplicate || strings.Contains(o.Say, "already made") ||
		!strings.Contains(o.Say, "made or is queued for approval") || !strings.Contains(o.Hint, "paycli status --invoice INV-1 --sandbox") {
		t.Errorf("104 to a --retry: %s, %q, %q", o.Class, o.Say, o.Hint)
	}
	// Issue 39, defect 1: a refused --retry says the refund it re-sent
	// stays unsettled.
	if o := op.Classify(retried, nil, apiErr(49, "Refund failed")); o.Class != journal.Rejected || !strings.Contains(o.Hint, "stays unsettled") {
		t.Errorf("49 to a --retry: %s, %q", o.Class, o.Hint)
	}
	for _, c := range []struct {
		name  string
		ans   *gateway.RefundResult
		err   error
		class string
		say   string // in Say or Hint
	}{
		{"100", &gateway.RefundResult{StatusCode: 100, InvoiceID: "INV-1"}, nil, journal.Succeeded, ""},
		{"101", &gateway.RefundResult{StatusCode: 101, Queued: true, InvoiceID: "INV-1"}, nil, journal.Queued, ""},
		{"104 to a first send", nil, apiErr(104, "not unique"), journal.Duplicate, "from a refund this journal does not record"},
		{"110", nil, apiErr(110, ""), journal.Rejected, "may not refund part of a sale"},
		{"49", nil, apiErr(49, "Refund failed"), journal.Rejected, "more than the refundable amount"},
		{"31", nil, apiErr(31, ""), journal.Rejected, "no sale with invoice INV-1"},
		{"41: a payment's decline is a refusal of the refund", nil, apiErr(41, "x"), journal.Rejected, ""},
		{"3: a payment's duplicate is a refusal of the refund", nil, apiErr(3, "x"), journal.Rejected, ""},
		{"69", nil, apiErr(69, ""), journal.Unknown, "paycli refund --retry RF1 --sandbox --yes"},
		{"5xx", nil, &gateway.APIError{Endpoint: gateway.EndpointRefund, HTTPStatus: 502}, journal.Unknown, "--retry RF1"},
		{"cut off", nil, &gateway.RequestError{Endpoint: gateway.EndpointRefund, Sent: true, Err: errors.New("EOF")}, journal.Unknown, "--retry RF1"},
		{"nothing sent", nil, &gateway.RequestError{Endpoint: gateway.EndpointRefund, Sent: false, Err: errors.New("refused")}, journal.NotSent, ""},
		{"answer about another invoice", nil, fmt.Errorf("%w: invoice_id", gateway.ErrOutcomeUnknown), journal.Unknown, "--retry RF1"},
		{"no answer and no error", nil, nil, journal.Unknown, "--retry RF1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := op.Classify(r, c.ans, c.err)
			if o.Class != c.class {
				t.Errorf("class %s, want %s (%v)", o.Class, c.class, o.Err)
			}
			if !strings.Contains(o.Say+" | "+o.Hint, c.say) {
				t.Errorf("say %q, hint %q: want %q", o.Say, o.Hint, c.say)
			}
		})
	}
	if o := op.Classify(r, nil, &gateway.APIError{Endpoint: gateway.EndpointRefund, HTTPStatus: 401}); !o.Refused {
		t.Errorf("a 401 is not refused credentials: %+v", o)
	}
}

func attempt(ref, class string, recorded bool, at time.Time) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: "refund", Ref: ref, Time: at, Attempt: ref + class}}
	if recorded {
		out := a.Intent
		out.Type, out.Outcome = journal.TypeOutcome, class
		if class == journal.Rejected {
			code := gateway.StatusRefundFailed
			out.StatusCode = &code
		}
		a.Outcome = &out
	}
	return a
}

func TestResume(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	env := &moneyop.Env{GatewayFlags: []string{"--sandbox"}}
	refusedCredentials := attempt("a", journal.Rejected, true, old)
	refusedCredentials.Outcome.StatusCode = nil
	for _, c := range []struct {
		name     string
		attempts []journal.Attempt
		want     journal.ResumeDecision
	}{
		{"made", []journal.Attempt{attempt("a", journal.Succeeded, true, old)}, journal.ResumeSkip},
		{"made, learnt by its retry", []journal.Attempt{attempt("a", journal.Unknown, true, old), attempt("a", journal.Succeeded, true, old)}, journal.ResumeSkip},
		// Issue 39: a 104 to its retry says the id is made or queued,
		// nothing more: it stays unknown.
		{"unknown, then 104 to its retry", []journal.Attempt{attempt("a", journal.Unknown, true, old), attempt("a", journal.Duplicate, true, old)}, journal.ResumeUnknown},
		{"104 to a first send: the id is another refund's", []journal.Attempt{attempt("a", journal.Duplicate, true, old)}, journal.ResumeSend},
		{"unknown", []journal.Attempt{attempt("a", journal.Unknown, true, old)}, journal.ResumeUnknown},
		{"died mid-call", []journal.Attempt{attempt("a", "", false, old)}, journal.ResumeUnknown},
		{"refused", []journal.Attempt{attempt("a", journal.Rejected, true, old)}, journal.ResumeSend},
		// Issue 39, defect 1: a refusal of its retry (49) tells nothing.
		{"unknown, then refused on retry", []journal.Attempt{attempt("a", journal.Unknown, true, old), attempt("a", journal.Rejected, true, old)}, journal.ResumeUnknown},
		{"unknown, then the retry's credentials refused", []journal.Attempt{attempt("a", journal.Unknown, true, old), refusedCredentials}, journal.ResumeUnknown},
		{"unknown, then the retry not sent", []journal.Attempt{attempt("a", journal.Unknown, true, old), attempt("a", journal.NotSent, true, old)}, journal.ResumeUnknown},
	} {
		d, _, hint := operation{}.Resume(env, c.attempts)
		if d != c.want {
			t.Errorf("%s: %v, want %v", c.name, d, c.want)
		}
		if d == journal.ResumeUnknown && hint != "run paycli refund --retry a --sandbox --yes" {
			t.Errorf("%s: hint %q", c.name, hint)
		}
	}
}

func TestKey(t *testing.T) {
	op := operation{}
	key := func(in input) string {
		r, err := op.Check(&refund{input: in})
		if err != nil {
			t.Fatal(err)
		}
		return op.Key(r)
	}
	if a, b := key(input{Invoice: "I", Amount: "5"}), key(input{Invoice: "I", Amount: "5.00"}); a != b {
		t.Errorf("5 and 5.00 have keys %q and %q", a, b)
	}
	if a, b := key(input{Invoice: "I", Amount: "5", ID: "x"}), key(input{Invoice: "I", Amount: "5", ID: "y"}); a == b {
		t.Errorf("two ids share the key %q", a)
	}
	if a, b := key(input{Invoice: "I", Full: true}), key(input{Invoice: "I", Amount: "5"}); a == b {
		t.Errorf("full and 5 share the key %q", a)
	}
	if a, b := key(input{Invoice: "I", Full: true, ID: "x"}), key(input{Invoice: "I", Amount: "5", ID: "x"}); a == b {
		t.Errorf("one id for full and for 5 share the key %q", a)
	}
	if a, b := key(input{Invoice: "I", Amount: "5", ID: "x"}), key(input{Invoice: "J", Amount: "5", ID: "x"}); a == b {
		t.Errorf("one id for two invoices share the key %q", a)
	}
}

// FuzzSaleOf feeds check-status answers to the decision a refund is sent
// on: whatever the answer, a refundable sale has a known currency or none, a
// positive amount, and at most that amount left to refund, more than 0.
func FuzzSaleOf(f *testing.F) {
	f.Add([]byte(`{` + paid + `,"transaction_status":"Completed"}`))
	f.Add([]byte(`{` + paid + `,"transaction_status":"Partially Refunded","total_refunded_amount":"50","refund_info":[{"amount":"50.00"}]}`))
	f.Add([]byte(`{"transaction_amount":1e400,"currency_code":"JPY","transaction_status":"completed","refund_info":[{"amount":"-1"},{"amount":"x"}]}`))
	f.Add([]byte(`{"transaction_amount":"0.001","currency_code":"BHD","transaction_status":"Refunded","total_refunded_amount":-5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var r gateway.CheckStatusResult
		if json.Unmarshal(body, &r) != nil {
			return
		}
		s, err := saleOf("INV-1", "", &r, "", nil)
		if err != nil {
			return
		}
		switch {
		case s.Minor < 0:
			t.Fatalf("refundable with %d decimals", s.Minor)
		case s.Currency != "" && !s.MinorFromISO:
			t.Fatalf("refundable in an unknown currency %q", s.Currency)
		case !s.Amount.IsPositive():
			t.Fatalf("refundable with amount %s", s.Amount)
		case s.Refunded.IsNegative():
			t.Fatalf("refunded %s", s.Refunded)
		case !s.Remaining().IsPositive() || s.Remaining().GreaterThan(s.Amount):
			t.Fatalf("remains %s of %s", s.Remaining(), s.Amount)
		}
	})
}

// FuzzParseLine feeds batch lines to the parser and the checks: a line
// they accept has a valid invoice id and exactly one of a positive plain
// amount and full.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"invoice":"INV-1","amount":"50.00"}`))
	f.Add([]byte(`{"invoice":"INV-1","amount":50.00,"id":"r-1"}`))
	f.Add([]byte(`{"invoice":"INV-1","full":true}`))
	f.Add([]byte(`{"invoice":"INV-1","full":true,"amount":"1"}`))
	f.Add([]byte(`{"invoice":"INV-1","invoice":"INV-2","amount":"1"}`))
	f.Add([]byte("{\"invoice\":\"INV\xff\",\"amount\":\"1\"}"))
	op := operation{}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := op.ParseLine(line)
		if err != nil {
			return
		}
		r, err = op.Check(r)
		if err != nil {
			return
		}
		if invoiceid.Check(r.Invoice) != nil {
			t.Fatalf("accepted invoice %q", r.Invoice)
		}
		if r.Full == r.amount.IsPositive() {
			t.Fatalf("accepted full=%v amount=%s", r.Full, r.amount)
		}
		if strings.Contains(op.Key(r), "\n") {
			t.Fatalf("key %q", op.Key(r))
		}
	})
}
