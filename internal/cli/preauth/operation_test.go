package preauth

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
)

var (
	capture = operation{action: gateway.ConfirmCapture}
	cancel  = operation{action: gateway.ConfirmCancel}
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in           input
		field, error string
		amount       string
	}{
		{in: input{Invoice: "INV-1"}},
		{in: input{Invoice: " INV-1"}, field: "invoice", error: "space"},
		{in: input{Invoice: "INV-1", Amount: " 150.5 "}, amount: "150.5"},
		{in: input{Invoice: ""}, field: "invoice", error: "empty"},
		{in: input{Invoice: "A|B"}, field: "invoice", error: "|"},
		{in: input{Invoice: "INV-1", Amount: "-5"}, field: "amount", error: `"-5" is not more than zero`},
		{in: input{Invoice: "INV-1", Amount: "1,50"}, field: "amount", error: `"1,50" is not a plain decimal; did you mean 1.50?`},
		{in: input{Invoice: "INV-1", Amount: "1e3"}, field: "amount", error: "not a plain decimal"},
		{in: input{Invoice: "INV-1", Amount: "0.00"}, field: "amount", error: "not more than zero"},
	} {
		got, err := capture.Check(&hold{input: tc.in})
		if tc.field == "" {
			if err != nil || got.Invoice != tc.in.Invoice || got.Amount != tc.amount {
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
	h, err := capture.ParseLine([]byte(`{"invoice":"I-1","amount":"10.00"}`))
	if err != nil || h.Invoice != "I-1" || h.Amount != "10.00" {
		t.Errorf("capture line: %+v, %v", h, err)
	}
	for _, line := range []string{`{"invoice":"I-1","amount":""}`, `{"invoice":"I-1","total":"1"}`, `{"invoice":"I-1","Invoice":"I-2"}`, `[1]`} {
		if _, err := capture.ParseLine([]byte(line)); err == nil {
			t.Errorf("capture line %s: accepted", line)
		}
	}
	if h, err := cancel.ParseLine([]byte(`{"invoice":"I-1"}`)); err != nil || h.Invoice != "I-1" {
		t.Errorf("cancel line: %+v, %v", h, err)
	}
	if _, err := cancel.ParseLine([]byte(`{"invoice":"I-1","amount":"1"}`)); err == nil {
		t.Errorf("a cancel line with an amount was accepted")
	}
}

func TestNotOpen(t *testing.T) {
	for _, tc := range []struct {
		typ, status string
		capture     bool
		want        string
	}{
		{"PreAuth", "Pre-Authorized", true, ""},
		{"PreAuth", "Pre-Authorized", false, ""},
		{"Auth", "Completed", true, "is not a pre-authorization"},
		{"PreAuth", "Completed", true, "already captured"},
		{"PreAuth", "Completed", false, "can no longer be cancelled; refund it instead"},
		{"PreAuth", "Cancelled", true, "was cancelled"},
		{"PreAuth", "Failed", true, "not an open pre-authorization"},
		{"PreAuth", "Fail\x1bed", true, `\x1b`},
	} {
		got := notOpen(&gateway.CheckStatusResult{TransactionType: tc.typ, TransactionStatus: tc.status}, tc.capture)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %q capture=%v: %q, want %q", tc.typ, tc.status, tc.capture, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	h := &hold{input: input{Invoice: "INV-1"}}
	ok := &gateway.ConfirmPaymentResult{StatusCode: 100, TransactionStatus: "Completed", OrderID: "VP1", InvoiceID: "INV-1"}
	if o := capture.Classify(h, ok, nil); o.Class != journal.Succeeded || o.OrderNo != "VP1" || *o.StatusCode != 100 {
		t.Errorf("captured: %+v", o)
	}
	if o := cancel.Classify(h, &gateway.ConfirmPaymentResult{TransactionStatus: "Cancelled", OrderID: "VP1"}, nil); o.Class != journal.Succeeded {
		t.Errorf("cancelled: %+v", o)
	}
	if o := capture.Classify(h, &gateway.ConfirmPaymentResult{OrderID: "VP1"}, nil); o.Class != journal.Succeeded {
		t.Errorf("no transaction_status: %+v", o)
	}
	// A success that names the other action (or a failure) reaches the
	// operation as the client's *InconsistentError (gateway
	// TestOneSuccessCheck), with the result: unknown, saying why.
	inconsistent := &gateway.InconsistentError{Endpoint: gateway.EndpointConfirmPayment, StatusCode: 100,
		Reasons: []string{`its transaction_status is "Cancelled"`}, OrderNo: "VP1"}
	if o := capture.Classify(h, &gateway.ConfirmPaymentResult{TransactionStatus: "Cancelled", OrderID: "VP1"}, inconsistent); o.Class != journal.Unknown ||
		!errors.Is(o.Err, gateway.ErrOutcomeUnknown) || !strings.Contains(o.Why, `"Cancelled"`) || o.OrderNo != "VP1" {
		t.Errorf("capture answered cancelled: %+v", o)
	}
	for _, tc := range []struct {
		err   error
		class string
		say   string
	}{
		{&gateway.APIError{Endpoint: gateway.EndpointConfirmPayment, HTTPStatus: 200, StatusCode: 117, HasStatusCode: true}, journal.Duplicate, "already captured or cancelled"},
		{&gateway.APIError{Endpoint: gateway.EndpointConfirmPayment, HTTPStatus: 200, StatusCode: 1, HasStatusCode: true}, journal.Rejected, ""},
		{&gateway.APIError{Endpoint: gateway.EndpointConfirmPayment, HTTPStatus: 502}, journal.Unknown, ""},
		{&gateway.RequestError{Endpoint: gateway.EndpointConfirmPayment, Sent: true, Err: errors.New("reset")}, journal.Unknown, ""},
		{&gateway.RequestError{Endpoint: "token", Err: errors.New("refused")}, journal.NotSent, ""},
		{fmt.Errorf("%w: invoice_id differs", gateway.ErrOutcomeUnknown), journal.Unknown, ""},
	} {
		o := capture.Classify(h, nil, tc.err)
		if o.Class != tc.class || !strings.Contains(o.Say, tc.say) {
			t.Errorf("%v: %+v, want %s", tc.err, o, tc.class)
		}
	}
	unauthorized := &gateway.APIError{Endpoint: gateway.EndpointConfirmPayment, HTTPStatus: 401}
	if o := capture.Classify(h, nil, unauthorized); !o.Refused {
		t.Errorf("401: %+v, want refused", o)
	}
}

func TestKinds(t *testing.T) {
	if capture.Kind() != "preauth-capture" || cancel.Kind() != "preauth-cancel" {
		t.Errorf("kinds %q, %q", capture.Kind(), cancel.Kind())
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[string]string{"0s": "0m", "59s": "0m", "61m": "1h 1m", "50h": "2d 2h", "-5m": "0m"} {
		dur, _ := timeParse(d)
		if got := age(dur); got != want {
			t.Errorf("age(%s) = %q, want %q", d, got, want)
		}
	}
}

func timeParse(s string) (time.Duration, error) { return time.ParseDuration(s) }
