package gateway

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// paymentStatusForms are the ways the family writes payment_status, and
// what each says: 1 paid, 0 not.
var paymentStatusForms = []struct {
	json string
	want int
}{
	{`true`, 1}, {`false`, 0},
	{`1`, 1}, {`0`, 0},
	{`"1"`, 1}, {`"0"`, 0},
	{`"true"`, 1}, {`"false"`, 0},
}

// TestPaymentStatusReadInEveryForm (issue 39, defect 10): wherever the
// gateway says whether money moved, payment_status as a boolean, a number
// or a string says the same: 1 (true) is paid and passes the success
// check, 0 (false) is not and makes a status_code 100 answer an unknown
// outcome; check status reads it too.
func TestPaymentStatusReadInEveryForm(t *testing.T) {
	withStatus := func(answer, form string) string {
		if !strings.Contains(answer, `"payment_status":1`) {
			t.Fatalf("no payment_status in %s", answer)
		}
		return strings.Replace(answer, `"payment_status":1`, `"payment_status":`+form, 1)
	}
	calls := []struct {
		name, endpoint, answer string
		call                   func(c *Client) error
	}{
		{"walletPay", "walletPay", walletPayOK, walletPayCall},
		{"capture", "confirmPayment", `{"status_code":100,"invoice_id":"INV-1","transaction_status":"Completed","payment_status":1}`, captureCall(confirmReq())},
		{"complete", "payment/complete", completeOK, completeCall(completeReq())},
		{"api walletPay", "walletPay", walletPayOK, doCall("/api/walletPay", `{"invoice_id":"INV-1"}`)},
		{"api capture", "confirmPayment", `{"status_code":100,"invoice_id":"INV-1","transaction_status":"Completed","payment_status":1}`,
			doCall("/api/confirmPayment", `{"invoice_id":"INV-1","status":1}`)},
		{"api complete", "payment/complete", completeOK, doCall("/payment/complete", `{"invoice_id":"INV-1","status":"complete"}`)},
	}
	for _, form := range paymentStatusForms {
		for _, tc := range calls {
			t.Run(tc.name+" "+form.json, func(t *testing.T) {
				g := newGateway(t)
				answerText(g, tc.endpoint, 200, withStatus(tc.answer, form.json))
				err := tc.call(newTestClient(t, g.URL+"/ccpayment"))
				var inc *InconsistentError
				switch {
				case form.want == 1 && err != nil:
					t.Errorf("a paid answer refused: %v", err)
				case form.want == 0 && (!errors.As(err, &inc) || !errors.Is(err, ErrOutcomeUnknown) || !strings.Contains(inc.Why(), "its payment_status is 0, not 1")):
					t.Errorf("err %v, want an unknown outcome saying its payment_status is 0", err)
				}
			})
		}
		t.Run("checkstatus "+form.json, func(t *testing.T) {
			g := newGateway(t)
			answerText(g, "checkstatus", 200, withStatus(checkRefundsOK, form.json))
			res, err := newTestClient(t, g.URL+"/ccpayment").CheckStatus(context.Background(), "INV-1")
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := res.PaymentStatus(); !ok || got != form.want {
				t.Errorf("PaymentStatus() = %d, %v; want %d", got, ok, form.want)
			}
			if s := res.Sale(); s.Contradicted() != (form.want == 0) {
				t.Errorf("a %s sale with payment_status %s: contradicted %v", s.Status, form.json, s.Contradicted())
			}
		})
	}
}

func doCall(path, sent string) func(c *Client) error {
	return func(c *Client) error {
		res, err := c.Do(context.Background(), Request{Path: path, Body: []byte(sent)})
		if err != nil {
			return err
		}
		return res.Err()
	}
}

// TestCompletePaymentReadsPlatformodesAnswer (issue 39, defect 10): the
// Platformode document's payment/complete success (§11.16), whose
// payment_status is the boolean true, is a completed sale, not an unknown
// outcome.
func TestCompletePaymentReadsPlatformodesAnswer(t *testing.T) {
	body, err := os.ReadFile("testdata/recorded/complete_platformode.json")
	if err != nil {
		t.Fatal(err)
	}
	g := newGateway(t)
	answerText(g, "payment/complete", 200, string(body))
	res, err := newTestClient(t, g.URL+"/ccpayment").CompletePayment(context.Background(),
		CompletePaymentRequest{InvoiceID: "9a197ed9-cfaf-4456-b0fc-da74a95f461c", OrderID: "166254527653758", Status: CompleteStatusComplete})
	if err != nil {
		t.Fatal(err)
	}
	if res.PaymentStatus != 1 || !res.HasPaymentStatus || res.Status != "Completed" || res.OrderNo != "166254527653758" {
		t.Errorf("read as %+v", res)
	}
}
