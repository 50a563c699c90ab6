package gateway

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

func cardPaymentReq() CardPaymentRequest {
	return CardPaymentRequest{
		InvoiceID: "INV-C1", InvoiceDescription: "test", Total: "150.00", CurrencyCode: "TRY", Installments: 1, TransactionType: "Auth",
		CardHolderName: "Ada Lovelace", CardNumber: testCard, ExpiryMonth: "12", ExpiryYear: "2029", CVV: "000",
		Name: "Ada", Surname: "Lovelace", BillEmail: "ada@example.com",
		Items: []CardPaymentItem{{Name: "item", Price: "150.00", Quantity: 1}},
	}
}

// checkPaymentHash fails unless hk is the payment layout's hash_key of the
// request, made with the client's app_secret and merchant_key.
func checkPaymentHash(t *testing.T, hk string) {
	t.Helper()
	plain, err := hashkey.Decrypt(testAppSecret, hk)
	if want := "150.00|1|TRY|" + testMerchantKey + "|INV-C1"; err != nil || plain != want {
		t.Errorf("hash_key decrypts to %q (%v), want %q", plain, err, want)
	}
}

func TestPaySmart2DIsSignedByTheClient(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "paySmart2D", 200, "testdata/cardpay/paysmart2d-ok.json")
	c := newTestClient(t, g.URL+"/ccpayment")
	res, err := c.PaySmart2D(context.Background(), cardPaymentReq())
	if err != nil || res.StatusCode != 100 || res.Order() != "VP17640000001234567" || res.StatusDescription != "Payment process successful" {
		t.Fatalf("%+v %v", res, err)
	}
	rec := g.Last(api("paySmart2D"))
	if !strings.HasPrefix(rec.Header.Get("Authorization"), "Bearer ") || rec.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", rec.Header)
	}
	if rec.Fields["merchant_key"] != testMerchantKey || rec.Fields["cc_no"] != testCard || rec.Fields["installments_number"] != "1" ||
		rec.Fields["items"] != `[{"name":"item","price":"150.00","quantity":1}]` {
		t.Errorf("body %v", rec.Fields)
	}
	hk, _ := rec.Fields["hash_key"].(string)
	checkPaymentHash(t, hk)
}

func TestPaySmart2DAnswersAreTypedErrors(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "paySmart2D", 200, "testdata/cardpay/paysmart2d-declined.json")
	c := newTestClient(t, g.URL+"/ccpayment")
	_, err := c.PaySmart2D(context.Background(), cardPaymentReq())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 41 || apiErr.OrderNo != "VP17640000001234568" || apiErr.PaymentReasonCode != "51" ||
		errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("declined: %#v", err)
	}
	// A 5xx after sending leaves the payment unknown, and it is never
	// sent again.
	answerPage(g, "paySmart2D", http.StatusGatewayTimeout)
	before := g.Count(api("paySmart2D"))
	_, err = c.PaySmart2D(context.Background(), cardPaymentReq())
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusGatewayTimeout || !errors.Is(err, ErrOutcomeUnknown) || g.Count(api("paySmart2D")) != before+1 {
		t.Fatalf("504: %v, %d requests", err, g.Count(api("paySmart2D"))-before)
	}
	// Without a merchant_key nothing is sent.
	c2, _ := New(g.URL+"/ccpayment", Credentials{AppID: testAppID, AppSecret: testAppSecret}, WithClock(c.now))
	if _, err := c2.PaySmart2D(context.Background(), cardPaymentReq()); !errors.Is(err, ErrNoMerchantKey) || g.Count(api("paySmart2D")) != before+1 {
		t.Errorf("no merchant_key: %v", err)
	}
}

func TestCardPaymentsDebugLogMasksTheCard(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "paySmart2D", 200, "testdata/cardpay/paysmart2d-ok.json")
	answerFile(g, "paySmart3D", 200, "testdata/cardpay/paysmart3d-challenge.html")
	var buf bytes.Buffer
	c := newTestClient(t, g.URL+"/ccpayment", WithLogger(debugLogger(&buf)))
	if _, err := c.PaySmart2D(context.Background(), cardPaymentReq()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PaySmart3D(context.Background(), cardPaymentReq()); err != nil {
		t.Fatal(err)
	}
	log := buf.String()
	if !strings.Contains(log, "paySmart2D") || !strings.Contains(log, "paySmart3D") {
		t.Fatalf("the exchanges are not logged:\n%s", log)
	}
	for _, secret := range []string{testCard, testAppSecret, testMerchantKey, url.QueryEscape(testMerchantKey)} {
		if strings.Contains(log, secret) {
			t.Errorf("the debug log holds %q:\n%s", secret, log)
		}
	}
}

func TestPaySmart3DAndItsChallenge(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "paySmart3D", 200, "testdata/cardpay/paysmart3d-challenge.html")
	answerFile(g, "challenge", 200, "testdata/cardpay/challenge-approved.json")
	c := newTestClient(t, g.URL+"/ccpayment")
	req := cardPaymentReq()
	req.ThreeD = &ThreeDOptions{CompletedBy: "merchant", ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no"}
	ch, err := c.PaySmart3D(context.Background(), req)
	if err != nil || ch.OrderID != "VP17640000001234569" || ch.Action.String() != g.URL+"/ccpayment/api/challenge" {
		t.Fatalf("%+v %v", ch, err)
	}
	rec := g.Last(api("paySmart3D"))
	form, _ := url.ParseQuery(rec.Raw)
	// A browser's form: no bearer token; the hash_key authenticates it.
	if rec.Header.Get("Authorization") != "" || rec.Header.Get("Content-Type") != formType || !strings.HasPrefix(rec.Header.Get("Accept"), "text/html") || form.Get("payment_completed_by") != "merchant" ||
		form.Get("cancel_url") != "https://shop.example/no" || form.Get("cc_no") != testCard || form.Get("merchant_key") != testMerchantKey {
		t.Errorf("request %v %q", rec.Header, rec.Raw)
	}
	checkPaymentHash(t, form.Get("hash_key"))

	res, err := c.AnswerChallenge(context.Background(), ch, true)
	if err != nil || res.StatusCode != 100 || res.Order() != "VP17640000001234569" {
		t.Fatalf("approve: %+v %v", res, err)
	}
	if answer, _ := url.ParseQuery(g.Last(api("challenge")).Raw); answer.Get("decision") != "approve" || answer.Get("order_id") != "VP17640000001234569" {
		t.Errorf("challenge answer %q", g.Last(api("challenge")).Raw)
	}
	answerFile(g, "challenge", 200, "testdata/cardpay/challenge-declined.json")
	res, err = c.AnswerChallenge(context.Background(), ch, false)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 41 || res == nil || res.Order() != "VP17640000001234569" {
		t.Fatalf("decline: %+v %v", res, err)
	}
	if answer, _ := url.ParseQuery(g.Last(api("challenge")).Raw); answer.Get("decision") != "decline" {
		t.Errorf("challenge answer %q", g.Last(api("challenge")).Raw)
	}
}

func TestPaySmart3DRefusals(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	var apiErr *APIError
	// Refused once the cancel_url is known: the form posted there.
	answerFile(g, "paySmart3D", 200, "testdata/cardpay/paysmart3d-refused.html")
	if _, err := c.PaySmart3D(context.Background(), cardPaymentReq()); !errors.As(err, &apiErr) || apiErr.StatusCode != 3 ||
		apiErr.Description != "Invoice id 'INV-C1' was already used" {
		t.Errorf("refusal page: %v", err)
	}
	// Refused before: JSON, as any call.
	answerText(g, "paySmart3D", 200, `{"status_code":1,"status_description":"The cc no field is required."}`)
	if _, err := c.PaySmart3D(context.Background(), cardPaymentReq()); !errors.As(err, &apiErr) || apiErr.StatusCode != 1 {
		t.Errorf("JSON refusal: %v", err)
	}
	// A challenge posted to another host is not followed.
	answerFile(g, "paySmart3D", 200, "testdata/cardpay/paysmart3d-elsewhere.html")
	if ch, err := c.PaySmart3D(context.Background(), cardPaymentReq()); ch != nil || err == nil || !strings.Contains(err.Error(), "another host") {
		t.Errorf("foreign challenge: %+v %v", ch, err)
	}
	if _, err := c.AnswerChallenge(context.Background(), &ThreeDChallenge{OrderID: "x", Action: &url.URL{Scheme: "https", Host: "acs.example.com", Path: "/ccpayment/c"}}, true); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("answer elsewhere: %v", err)
	}
	// A 5xx leaves the payment unknown.
	answerPage(g, "paySmart3D", http.StatusBadGateway)
	if _, err := c.PaySmart3D(context.Background(), cardPaymentReq()); !errors.Is(err, ErrOutcomeUnknown) || g.Count(api("paySmart3D")) != 4 {
		t.Errorf("502: %v (%d requests)", err, g.Count(api("paySmart3D")))
	}
}
