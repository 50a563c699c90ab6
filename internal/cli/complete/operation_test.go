package complete

import (
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
)

func TestCheck(t *testing.T) {
	op := operation{}
	for _, tc := range []struct {
		in           input
		field, error string
	}{
		{in: input{Invoice: "INV-1", OrderID: "VP1"}},
		{in: input{Invoice: "INV-1"}},
		{in: input{Invoice: "INV-1 ", OrderID: "VP1"}, field: "invoice", error: "space"},
		{in: input{Invoice: "INV-1", OrderID: " VP1"}, field: "order-id", error: "blanks"},
		{in: input{Invoice: "", OrderID: "VP1"}, field: "invoice", error: "empty"},
		{in: input{Invoice: "INV-1", OrderID: "VP|1"}, field: "order-id", error: "'|'"},
		{in: input{Invoice: "INV-1", OrderID: "VP 1"}, field: "order-id", error: "blanks"},
		{in: input{Invoice: "INV-1", OrderID: "VP\x001"}, field: "order-id", error: "control"},
		{in: input{Invoice: "INV-1", OrderID: strings.Repeat("9", 65)}, field: "order-id", error: "longer than 64"},
	} {
		got, err := op.Check(&sale{input: tc.in})
		if tc.field == "" && tc.in.OrderID == "" {
			// No order id: Prepare takes the invoice's own.
			if err != nil || got.Invoice != "INV-1" || got.OrderID != "" {
				t.Errorf("%+v: %+v, %v", tc.in, got, err)
			}
			continue
		}
		if tc.field == "" {
			if err != nil || got.Invoice != "INV-1" || got.OrderID != "VP1" {
				t.Errorf("%+v: %+v, %v", tc.in, got, err)
			}
			continue
		}
		var fe *moneyop.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%+v: %v, want a %s error about %q", tc.in, err, tc.field, tc.error)
		}
	}
}

func TestParseLine(t *testing.T) {
	s, err := operation{}.ParseLine([]byte(`{"invoice":"I-1","order_id":"VP1"}`))
	if err != nil || s.Invoice != "I-1" || s.OrderID != "VP1" {
		t.Errorf("%+v, %v", s, err)
	}
	for _, line := range []string{`{"invoice":"I-1","orderid":"VP1"}`, `{"invoice":"I-1","order_id":1}`, `{"invoice":"I-1","ORDER_ID":"x"}`} {
		if _, err := (operation{}).ParseLine([]byte(line)); err == nil {
			t.Errorf("%s: accepted", line)
		}
	}
}

func TestSettled(t *testing.T) {
	for status, want := range map[string]string{
		"Completed": "already completed", "Partially  Refunded": "already completed", "Cancelled": "was cancelled",
		"canceled": "was cancelled", "Failed": "failed", "Pending": "", "": "", "Pre-Authorization Pending": "",
	} {
		if got := settled(status); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("settled(%q) = %q, want %q", status, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	s := &sale{input: input{Invoice: "INV-1", OrderID: "VP1"}}
	complete, cancel := operation{}, operation{cancel: true}
	if complete.Kind() != "complete" || cancel.Kind() != "complete-cancel" {
		t.Errorf("kinds %q %q", complete.Kind(), cancel.Kind())
	}
	if o := complete.Classify(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{OrderNo: "VP1"}, Status: "Completed"}, nil); o.Class != journal.Succeeded || o.OrderNo != "VP1" {
		t.Errorf("completed: %+v", o)
	}
	if o := cancel.Classify(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{OrderID: "VP1"}, Status: "Cancelled"}, nil); o.Class != journal.Succeeded || o.OrderNo != "VP1" {
		t.Errorf("cancelled: %+v", o)
	}
	dup := &gateway.APIError{Endpoint: gateway.EndpointCompletePayment, HTTPStatus: 200, StatusCode: 117, HasStatusCode: true}
	if o := complete.Classify(s, nil, dup); o.Class != journal.Duplicate || !strings.Contains(o.Say, "already completed or cancelled") {
		t.Errorf("117: %+v", o)
	}
	notFound := &gateway.APIError{Endpoint: gateway.EndpointCompletePayment, HTTPStatus: 200, StatusCode: 31, HasStatusCode: true}
	if o := complete.Classify(s, nil, notFound); o.Class != journal.Rejected {
		t.Errorf("31: %+v", o)
	}
	declined := &gateway.APIError{Endpoint: gateway.EndpointCompletePayment, HTTPStatus: 200, StatusCode: 41, HasStatusCode: true}
	if o := complete.Classify(s, nil, declined); o.Class != journal.Declined {
		t.Errorf("41: %+v", o)
	}
	// The client's success check (gateway.TestOneSuccessCheck): an answer
	// about another order, or answering the other action, comes as an
	// *InconsistentError with its result, and is unknown.
	inconsistent := &gateway.InconsistentError{Endpoint: gateway.EndpointCompletePayment, StatusCode: 100,
		Reasons: []string{`its order_id is "VP2", not the one sent ("VP1")`}, OrderNo: "VP2"}
	if o := complete.Classify(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{OrderNo: "VP2"}}, inconsistent); o.Class != journal.Unknown || o.OrderNo != "VP2" ||
		!errors.Is(o.Err, gateway.ErrOutcomeUnknown) {
		t.Errorf("another order: %+v (%v)", o, inconsistent)
	}
	if o := complete.Classify(s, nil, &gateway.RequestError{Endpoint: gateway.EndpointCompletePayment, Sent: true, Err: errors.New("eof")}); o.Class != journal.Unknown {
		t.Errorf("no answer: %+v", o)
	}
}

// A completed 3D pre-authorization is held, not charged: the verdict says
// so and how to capture or release it; a sale's says it was completed.
func TestResultVerdictOfAPreAuthorization(t *testing.T) {
	s := &sale{input: input{Invoice: "INV-1", OrderID: "VP1"}, amount: "70.00", currency: "TRY"}
	_, verdict := operation{}.Result(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{TransactionType: "PreAuth"}, Status: "Pre-Authorized"})
	if !strings.Contains(verdict, "pre-authorization of 70.00 TRY") || !strings.Contains(verdict, "paycli preauth capture --invoice INV-1") {
		t.Errorf("pre-authorization: %q", verdict)
	}
	_, verdict = operation{}.Result(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{TransactionType: "Auth"}, Status: "Completed"})
	if verdict != "Completed the 3D payment of 70.00 TRY, invoice INV-1, order VP1" {
		t.Errorf("sale: %q", verdict)
	}
}
