package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestDryRun(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	req := walletPayReq()
	d, err := c.DryRun(req)
	if err != nil {
		t.Fatal(err)
	}
	out := d.String()
	if !strings.HasPrefix(out, "POST "+g.URL+"/ccpayment/api/walletPay\nAccept: application/json\nAuthorization: Bearer ••••••••\nContent-Type: application/json\n") {
		t.Errorf("request line and headers:\n%s", out)
	}
	for _, want := range []string{`"invoice_id": "` + req.InvoiceID + `"`, `"name": "` + req.Name + `"`, `"merchant_key": "`, `"hash_key": "`} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %s:\n%s", want, out)
		}
	}
	for _, secret := range []string{testMerchantKey, req.WalletTransientToken, req.BillEmail, testAppSecret} {
		if strings.Contains(out, secret) {
			t.Errorf("dump shows the secret %q:\n%s", secret, out)
		}
	}
	if n := len(g.Requests()); n != 0 {
		t.Errorf("a dry run sent %d requests", n)
	}
}

func TestDeclineCarriesReason(t *testing.T) {
	g := newGateway(t)
	answerText(g, "walletPay", 200, `{"status_code":41,"status_description":"Payment failed","data":{"order_no":"VP17953288585328031","payment_reason_code":"51","payment_reason_code_detail":"Insufficient funds"}}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	_, err := c.WalletPay(context.Background(), walletPayReq())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrDeclined) {
		t.Fatalf("err %v", err)
	}
	if apiErr.OrderNo != "VP17953288585328031" || apiErr.PaymentReasonCode != "51" || apiErr.PaymentReasonCodeDetail != "Insufficient funds" {
		t.Errorf("reason not kept: %+v", apiErr)
	}
}

// TestBankErrorKept: the bank's own code and words, in the data object or
// at the top level of any refusal, are kept.
func TestBankErrorKept(t *testing.T) {
	g := newGateway(t)
	answerText(g, "walletPay", 200, `{"status_code":41,"status_description":"Payment failed","data":{"original_bank_error_code":"05","original_bank_error_description":"Do not honor"}}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	_, err := c.WalletPay(context.Background(), walletPayReq())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.OriginalBankErrorCode != "05" || apiErr.OriginalBankErrorDescription != "Do not honor" {
		t.Errorf("bank error not kept: %v %+v", err, apiErr)
	}
}
