package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/testkit/replay"
)

// Paths of the recorded-answer server (replay), under the base URL
// newReplayClient gives the client.
const (
	replayToken       = "/ccpayment/api/token"
	replayCheckStatus = "/ccpayment/api/checkstatus"
	replayRefund      = "/ccpayment/api/refund"
	replayPaySmart2D  = "/ccpayment/api/paySmart2D"
	replayGetPOS      = "/ccpayment/api/getpos"
	replayComplete    = "/ccpayment/payment/complete"
)

// newReplayClient starts a recorded-answer server that answers the token
// call, and a client for it that talks to the family member gatewayName
// ("" for one paycli cannot name).
func newReplayClient(t *testing.T, gatewayName string) (*replay.Server, *Client) {
	t.Helper()
	s := replay.New(t)
	s.Answer(http.MethodPost, replayToken, 200, "testdata/recorded/token.json")
	return s, newTestClient(t, s.URL+"/ccpayment", WithGateway(gatewayName))
}

// TestReadsQNBpayArrays (issue 33, item 3): QNBpay's API pages show check
// status, and refusals, as an array of one object; the client reads such
// an answer as the object (it said "does not match the protocol" before),
// with the invoice check and the status codes as for any answer.
func TestReadsQNBpayArrays(t *testing.T) {
	g, c := newReplayClient(t, "qnbpay")
	ctx := context.Background()

	g.Answer(http.MethodPost, replayCheckStatus, 200, "testdata/recorded/checkstatus_qnbpay_array.json")
	res, err := c.CheckStatus(ctx, "33491162435928")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.TransactionAmount.Decimal(); !ok || d.String() != "22.1" || res.OrderID != "162435932934307" ||
		res.Sale().State != SaleCompleted || string(res.Extra["md_status"]) != "1" {
		t.Errorf("read as %+v", res)
	}
	if _, err := c.CheckStatus(ctx, "another-invoice"); err == nil {
		t.Error("an answer about another invoice was taken")
	}

	g.Answer(http.MethodPost, replayCheckStatus, 200, "testdata/recorded/checkstatus_qnbpay_41.json")
	var ae *APIError
	if _, err := c.CheckStatus(ctx, "50781624359247"); !errors.Is(err, ErrDeclined) || !errors.As(err, &ae) || ae.Description != "Oder Failed" {
		t.Errorf("41: %v", err)
	}

	g.Answer(http.MethodPost, replayToken, 400, "testdata/recorded/token_qnbpay_2.json")
	if _, err := c.Token(ctx); !errors.As(err, &ae) || !ae.HasStatusCode || ae.StatusCode != 2 || ae.Description != "Invalid credentials" {
		t.Errorf("token refusal: %v", err)
	}

	for _, body := range []string{`[{"status_code":100},{"status_code":100}]`, `[]`, `[[{"status_code":100}]]`} {
		g.AnswerText(http.MethodPost, replayCheckStatus, 200, body)
		if _, err := c.CheckStatus(ctx, "INV-1"); !errors.As(err, &ae) || ae.Problem == "" {
			t.Errorf("%s: %v, want a body that is not the protocol", body, err)
		}
	}
}

// TestReadsQNBpayNumbers: the refund answer with order_no and invoice_id
// JSON numbers, and paySmart2D's with the commissions as numbers, as
// QNBpay's pages document them (testdata/recorded/README.md).
func TestReadsQNBpayNumbers(t *testing.T) {
	g, c := newReplayClient(t, "qnbpay")
	ctx := context.Background()

	g.Answer(http.MethodPost, replayRefund, 200, "testdata/recorded/refund_qnbpay.json")
	req := RefundRequest{InvoiceID: "66955", Amount: "1.00", RefundTransactionID: "R-1"}
	r, err := c.Refund(ctx, req)
	if err != nil || r.OrderNo != "15925741639038" || r.InvoiceID != "66955" || r.RefNo != "5454545dgdgd545545" {
		t.Errorf("refund: %+v, %v", r, err)
	}
	req.InvoiceID = "66956"
	if _, err := c.Refund(ctx, req); err == nil {
		t.Error("a refund answer about another invoice was taken")
	}
	g.Answer(http.MethodPost, replayRefund, 200, "testdata/recorded/refund_qnbpay_49.json")
	var ae *APIError
	if _, err := c.Refund(ctx, RefundRequest{InvoiceID: "66955", Amount: "1.00", RefundTransactionID: "R-2"}); !errors.As(err, &ae) || ae.StatusCode != 49 {
		t.Errorf("refund 49: %v", err)
	}

	g.Answer(http.MethodPost, replayPaySmart2D, 200, "testdata/recorded/paysmart2d_qnbpay.json")
	p, err := c.PaySmart2D(ctx, CardPaymentRequest{InvoiceID: "denemedeneme1234", Total: "208.33", CurrencyCode: "TRY", Installments: 1,
		CardHolderName: "Ada Lovelace", CardNumber: "4022780520669303", ExpiryMonth: "01", ExpiryYear: "2030", CVV: "000", Name: "Ada", Surname: "Lovelace"})
	if err != nil || p.Order() != "171569694991540" || p.InvoiceID != "denemedeneme1234" {
		t.Errorf("paySmart2D: %+v, %v", p, err)
	}
}

// TestGetPOSDataObject (issue 43, §1 item 1): getpos's data may be one
// option written as a bare object (the Platformode document, §4, says it
// "might be an array"; a recorded answer has one object). The client reads
// both shapes; data it cannot read is an unreadable answer, not an
// unreachable gateway, and the error names no Go type.
func TestGetPOSDataObject(t *testing.T) {
	g, c := newReplayClient(t, "sipay")
	ctx := context.Background()

	g.Answer(http.MethodPost, replayGetPOS, 200, "testdata/recorded/getpos_platformode_object.json")
	res, err := c.GetPOS(ctx, getPOSReq())
	if err != nil {
		t.Fatalf("one object: %v", err)
	}
	if len(res.Options) != 1 || res.Options[0].InstallmentsNumber != 1 || res.Options[0].PosID != 34 || res.Options[0].CardProgram != "BONUS" {
		t.Errorf("one object read as %+v", res.Options)
	}

	g.AnswerText(http.MethodPost, replayGetPOS, 200, getPOSOK)
	if res, err := c.GetPOS(ctx, getPOSReq()); err != nil || len(res.Options) != 2 {
		t.Errorf("an array: %+v %v", res, err)
	}

	for _, body := range []string{
		`{"status_code":100,"status_description":"Success","data":"none"}`,
		`{"status_code":100,"status_description":"Success","data":[{"installments_number":{"n":1}}]}`,
	} {
		g.AnswerText(http.MethodPost, replayGetPOS, 200, body)
		_, err := c.GetPOS(ctx, getPOSReq())
		var ae *APIError
		if !errors.As(err, &ae) || ae.Problem == "" || !errors.Is(err, ErrUnreadable) || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v, want an unreadable answer, not an unavailable gateway", body, err)
		}
		if err != nil && (strings.Contains(err.Error(), "Go value") || strings.Contains(err.Error(), "gateway.") || strings.Contains(err.Error(), "[]")) {
			t.Errorf("%s: the error names a Go type: %v", body, err)
		}
	}
}
