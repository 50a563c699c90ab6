package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

func linkReq() PaymentLinkRequest {
	return PaymentLinkRequest{InvoiceID: "INV-L1", InvoiceDescription: "Order 42", Total: "250.00", CurrencyCode: "TRY",
		Items:          []PaymentLinkItem{{Name: "Lamp", Price: "100.00", Quantity: 2}, {Name: "Bulb", Price: "50", Quantity: 1}},
		MaxInstallment: 3, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
		Name: "Ayşe", Surname: "Yılmaz", BillEmail: "ayse@example.com", BillPhone: "905555555555"}
}

// TestCreatePaymentLink: the request is the official SDK's
// CreatePaymentLinkRequest (merchant_key, invoice as a string holding the
// invoice's JSON, currency_code, name, surname; the invoice's hash_key in
// the link layout total|currency_code|merchant_key|invoice_id), and the
// answer the SDK's PaymentLinkMapper reads is parsed.
func TestCreatePaymentLink(t *testing.T) {
	answer, err := os.ReadFile("testdata/recorded/purchase_link.json")
	if err != nil {
		t.Fatal(err)
	}
	g := newGateway(t)
	answerText(g, "purchase/link", 200, string(answer))
	c := newTestClient(t, g.URL+"/ccpayment")
	res, err := c.CreatePaymentLink(context.Background(), linkReq())
	if err != nil {
		t.Fatal(err)
	}
	if res.Link != "https://provisioning.sipay.com.tr/ccpayment/purchase/link/6f1c2a9b0e" || res.OrderID != "VP17010000000000001" ||
		res.SuccessMessage != "Payment link created" || res.StatusCode != 100 {
		t.Errorf("result %+v", res)
	}
	rec := g.Last(api("purchase/link"))
	if rec.Fields["merchant_key"] != testMerchantKey || rec.Fields["currency_code"] != "TRY" || rec.Fields["name"] != "Ayşe" || rec.Fields["surname"] != "Yılmaz" {
		t.Errorf("body %s", rec.Raw)
	}
	invoice, ok := rec.Fields["invoice"].(string)
	if !ok {
		t.Fatalf("invoice is not a string holding JSON, as the SDK sends it: %s", rec.Raw)
	}
	var inv map[string]any
	if err := json.Unmarshal([]byte(invoice), &inv); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"invoice_id": "INV-L1", "invoice_description": "Order 42", "total": 250.0, "max_installment": 3.0,
		"return_url": "https://shop.example/ok", "cancel_url": "https://shop.example/no", "bill_email": "ayse@example.com", "bill_phone": "905555555555"}
	for k, v := range want {
		if inv[k] != v {
			t.Errorf("invoice %s = %v, want %v", k, inv[k], v)
		}
	}
	items, _ := json.Marshal(inv["items"])
	if string(items) != `[{"name":"Lamp","price":100,"quantity":2},{"name":"Bulb","price":50,"quantity":1}]` {
		t.Errorf("items %s", items)
	}
	plain, err := hashkey.Decrypt(testAppSecret, inv["hash_key"].(string))
	if want := "250.00|TRY|" + testMerchantKey + "|INV-L1"; err != nil || plain != want {
		t.Errorf("hash_key decrypts to %q (%v), want %q", plain, err, want)
	}
}

// TestPaymentLinkSentOnce: a link takes its invoice, so it is sent once
// like a payment: a failure after sending is an unknown outcome and is not
// retried, nor is an HTTP 401 repeated; status_code 3 is a duplicate; a
// success without a usable link is unknown (the link may exist).
func TestPaymentLinkSentOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer reply
		fault  http.HandlerFunc // a transport fault instead of an answer
		want   error
	}{
		{"503", textReply(503, `{}`), nil, ErrOutcomeUnknown},
		{"cut mid-body", nil, resetMidBody, ErrOutcomeUnknown},
		{"401", textReply(401, `{"message":"Unauthenticated."}`), nil, ErrUnauthorized},
		{"taken", textReply(200, `{"status_code":3,"status_description":"Invoice id is already processed"}`), nil, ErrDuplicateInvoice},
		{"no link", textReply(200, `{"status_code":100,"status_description":"ok","order_id":"VP1"}`), nil, ErrOutcomeUnknown},
		{"not a URL", textReply(200, `{"status_code":100,"link":"javascript:alert(1)","order_id":"VP1"}`), nil, ErrOutcomeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *Client
			var count func() int
			if tc.fault != nil {
				f := newFaultServer(t, tc.fault)
				c, count = f.client(t), f.count
			} else {
				g := newGateway(t)
				tc.answer(g, "purchase/link")
				c, count = newTestClient(t, g.URL+"/ccpayment"), func() int { return g.Count(api("purchase/link")) }
			}
			_, err := c.CreatePaymentLink(context.Background(), linkReq())
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want != ErrOutcomeUnknown && errors.Is(err, ErrOutcomeUnknown) {
				t.Errorf("err = %v reads as unknown", err)
			}
			if n := count(); n != 1 {
				t.Errorf("%d purchase/link requests, want exactly 1", n)
			}
			assertClean(t, err.Error())
		})
	}
}

// TestPaymentLinkDryRunRedactsTheInvoice: the invoice travels as a string
// holding JSON; its hash_key, e-mail and phone are masked inside it.
func TestPaymentLinkDryRunRedactsTheInvoice(t *testing.T) {
	c := newTestClient(t, "https://gw.example/ccpayment")
	dump, err := c.DryRun(linkReq())
	if err != nil {
		t.Fatal(err)
	}
	body := dump.Body
	for _, secret := range []string{"ayse@example.com", "905555555555", testMerchantKey} {
		if strings.Contains(body, secret) {
			t.Errorf("the dry run shows %q:\n%s", secret, body)
		}
	}
	if !strings.Contains(body, `\"invoice_id\":\"INV-L1\"`) || !strings.Contains(body, `\"hash_key\":\"`) {
		t.Errorf("dry run body:\n%s", body)
	}
	var top map[string]string
	if err := json.Unmarshal([]byte(body), &top); err != nil {
		t.Fatalf("the redacted body is no longer JSON of strings: %v", err)
	}
	var inv map[string]any
	if err := json.Unmarshal([]byte(top["invoice"]), &inv); err != nil {
		t.Fatalf("the redacted invoice is no longer JSON: %v", err)
	}
	if hk, _ := inv["hash_key"].(string); len(hk) > 20 {
		t.Errorf("hash_key shown: %q", hk)
	}
}

// TestPaymentLinkInvalidNeverSent: a request the gateway cannot take is
// refused before anything is sent.
func TestPaymentLinkInvalidNeverSent(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	for _, edit := range []func(*PaymentLinkRequest){
		func(r *PaymentLinkRequest) { r.Items = nil },
		func(r *PaymentLinkRequest) { r.Total = "0" },
		func(r *PaymentLinkRequest) { r.Items[0].Quantity = 0 },
		func(r *PaymentLinkRequest) { r.ReturnURL = "" },
		func(r *PaymentLinkRequest) { r.Items[1].Price = "1e3" },
	} {
		req := linkReq()
		edit(&req)
		if _, err := c.CreatePaymentLink(context.Background(), req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("err = %v", err)
		}
	}
	if g.Count(api("purchase/link")) != 0 || g.Count(api("token")) != 0 {
		t.Errorf("sent %d links, %d token calls", g.Count(api("purchase/link")), g.Count(api("token")))
	}
}

// FuzzPaymentLinkAnswer: purchase/link's answer reader and success check
// (fuzzAnswer's rules).
func FuzzPaymentLinkAnswer(f *testing.F) {
	fuzzAnswer(f, endpointPaymentLink, []string{
		`{"status_code":100,"status_description":"Payment link created","success_message":"ok","link":"https://gw.example/l/1","order_id":"VP1"}`,
		`{"status_code":100,"link":"javascript:x"}`, `{"status_code":3,"status_description":"Invoice id is already processed"}`,
	}, (*PaymentLinkResult).check)
}

// FuzzRedactNested: a body whose string field holds a JSON object is
// redacted inside it; a secret given to a secret field, nested or not,
// never shows.
func FuzzRedactNested(f *testing.F) {
	for _, s := range []string{`{"hash_key":"s3cr3t-value-1234","bill_email":"a@b.co"}`, `{"x":{"bill_phone":"905555555555"}}`, `{`, `"x"`, `{"a":"{\"b\":1}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, inner string) {
		body, err := json.Marshal(map[string]string{"invoice": inner, "merchant_key": "mk-secret-0123456789"})
		if err != nil {
			return
		}
		out := redactBody(body)
		if strings.Contains(out, "mk-secret-0123456789") {
			t.Fatalf("merchant_key shown: %s", out)
		}
		var obj map[string]any
		if json.Unmarshal([]byte(inner), &obj) != nil {
			return
		}
		for _, k := range []string{"hash_key", "bill_email", "bill_phone"} {
			// A value also written elsewhere in the body may show there.
			if v, ok := obj[k].(string); ok && len(v) > 12 && strings.Count(inner, v) == 1 && strings.Contains(out, v) {
				t.Fatalf("%s %q shown in %s", k, v, out)
			}
		}
	})
}
