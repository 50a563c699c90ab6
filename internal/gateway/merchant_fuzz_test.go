package gateway

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/paycli/paycli/internal/cardno"
)

// fuzzAnswer feeds arbitrary bodies to the answer reader of ep: it must
// never panic, never accept an HTTP status outside 2xx, classify a bad
// answer to a call that moves money as an unknown outcome, and never repeat
// a card number or a control character in an error. check, when set, runs
// the result's own consistency check on an accepted answer.
func fuzzAnswer[T any](f *testing.F, ep endpoint, seeds []string, check func(*T) error) {
	for _, s := range append(seeds, `{"status_code":49,"status_description":"card 4355084355084358 \u001b[2J"}`, `{"status_code":"100"}`, `<html>`, ``, `[]`, `{"status_code":100,"data":null}`) {
		f.Add(s, 200)
		f.Add(s, 500)
	}
	card := regexp.MustCompile(`[0-9]{13,19}`)
	statusCodeShown := regexp.MustCompile(`status_code -?[0-9]+`)
	c, err := New("https://gw.example/ccpayment", Credentials{}, WithClock(func() time.Time { return testNow }))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string, status int) {
		if status < 100 || status > 599 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}}
		var v T
		_, err := c.checkResponse(ep, resp, []byte(body), &v)
		if err == nil {
			if status < 200 || status > 299 {
				t.Fatalf("HTTP %d accepted", status)
			}
			if check == nil {
				return
			}
			if err = check(&v); err == nil {
				return
			}
			var inc *InconsistentError
			if !errors.As(err, &inc) || !errors.Is(err, ErrOutcomeUnknown) {
				t.Fatalf("check: %v is not an unknown outcome", err)
			}
		}
		msg := statusCodeShown.ReplaceAllString(err.Error(), "")
		for _, m := range card.FindAllString(body, -1) {
			if !cardno.Luhn(m) {
				continue // a long number that is no card is shown (docs/protocol.md, Common rules)
			}
			if strings.Contains(msg, m) {
				t.Fatalf("error %q repeats %q from the body", msg, m)
			}
		}
		if strings.IndexFunc(msg, unicode.IsControl) >= 0 {
			t.Fatalf("error %q holds a control character", msg)
		}
		var apiErr *APIError
		if ep.movesMoney() && errors.As(err, &apiErr) && (status >= 500 || status/100 == 2 && apiErr.Problem != "") && !errors.Is(err, ErrOutcomeUnknown) {
			t.Fatalf("HTTP %d %q: %v is not an unknown outcome", status, body, err)
		}
	})
}

func FuzzRefundAnswer(f *testing.F) {
	fuzzAnswer(f, endpointRefund, []string{refundOK, `{"status_code":101,"invoice_id":"INV-1","ref_number":7}`, `{"status_code":104}`},
		func(r *RefundResult) error { return r.check(refundReq()) })
}

func FuzzConfirmPaymentAnswer(f *testing.F) {
	fuzzAnswer(f, endpointConfirmPayment, []string{confirmOK, `{"status_code":100,"invoice_id":"INV-2"}`},
		func(r *ConfirmPaymentResult) error { return r.check(confirmReq()) })
}

func FuzzCompletePaymentAnswer(f *testing.F) {
	fuzzAnswer(f, endpointCompletePayment, []string{completeOK, `{"status_code":100,"data":{"payment_status":"0","order_id":"VP1","invoice_id":"INV-1"}}`},
		func(r *CompletePaymentResult) error { return r.check(completeReq()) })
}

func FuzzGetPOSAnswer(f *testing.F) {
	fuzzAnswer[[]InstallmentOption](f, endpointGetPOS, []string{getPOSOK, `{"status_code":100,"data":[{"installments_number":"12","payable_amount":1e3}]}`}, nil)
}

func FuzzInstallmentsAnswer(f *testing.F) {
	fuzzAnswer[ActiveInstallments](f, endpointInstallments, []string{installmentsOK, `{"status_code":100,"installments":["1","x"]}`}, nil)
}

func FuzzCheckStatusRefundsAnswer(f *testing.F) {
	fuzzAnswer(f, endpointCheckStatus, []string{checkRefundsOK, checkPreAuthOpen, `{"status_code":100,"refund_info":{}}`},
		func(r *CheckStatusResult) error {
			// The accessors read any accepted answer without panicking.
			_, _ = r.PaymentStatus()
			_, _, _ = r.CurrencyCode(), r.CardNo(), r.PreAuthOpen()
			_, _ = r.PreAuth(), r.CreatedAt()
			_, _ = r.Refunds()
			return nil
		})
}

// FuzzCheckStatusPendingAnswer: check status as CheckStatus reads it, where a pending answer (69) also fills the result. Whatever the
// body, the result's accessors read it without panicking, and a result
// filled beside an error is only ever one of a 69.
func FuzzCheckStatusPendingAnswer(f *testing.F) {
	for _, s := range []string{checkPreAuthOpen, `{"status_code":69,"transaction_status":"Pending","order_id":"VP1","three_d_status":"awaiting_merchant_completion"}`,
		`{"status_code":"69","order_id":{"x":1}}`, `{"status_code":69,"transaction_type":"PreAuth","transaction_status":"Pre-Authorized","created_at":"2026-11-22 12:00:00"}`} {
		f.Add(s, 200)
	}
	c, err := New("https://gw.example/ccpayment", Credentials{}, WithClock(func() time.Time { return testNow }))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string, status int) {
		if status < 100 || status > 599 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}}
		var r CheckStatusResult
		_, err := c.checkResponse(endpointCheckStatus, resp, []byte(body), &r)
		if err != nil && !errors.Is(err, ErrPending) && (r.StatusCode != 0 || r.OrderID != "" || r.Extra != nil) {
			t.Fatalf("%v: the result was filled: %+v", err, r)
		}
		_, _ = r.PaymentStatus()
		_, _, _, _ = r.CurrencyCode(), r.CardNo(), r.PreAuth(), r.CreatedAt()
		_, _ = r.Refunds()
	})
}
