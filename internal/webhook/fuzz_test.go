package webhook_test

import (
	"errors"
	"maps"
	"testing"

	"github.com/paycli/paycli/internal/webhook"
)

// FuzzParse feeds Parse what a listener may be sent. It must not panic; a
// body it accepts must survive Encode and Parse with the same fields in
// either encoding, and Verify must answer nil or an *InvalidError.
func FuzzParse(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", formBody(saleFields()))
	f.Add("application/json", mustJSONf(saleFields()))
	f.Add("", `{"status": 1, "total": 1e999999999, "invoice_id": null, "n": [1, {"a": "b"}]}`)
	f.Add("text/plain", "a=%zz&b=c&&=d")
	f.Add("application/json; charset=utf-8", `{"a":"\ud800"}`)
	f.Add("multipart/form-data; boundary=x", "--x--")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		b, err := webhook.Parse(contentType, []byte(body))
		if err != nil {
			return
		}
		for _, enc := range []webhook.Encoding{webhook.Form, webhook.JSON} {
			ct, again, err := webhook.Encode(enc, b.Fields())
			if err != nil {
				t.Fatal(err)
			}
			b2, err := webhook.Parse(ct, again)
			if err != nil {
				t.Fatalf("%s re-encoding %q does not parse: %v", enc, again, err)
			}
			if !maps.Equal(b.Fields(), b2.Fields()) {
				t.Fatalf("%s round trip: %q became %q", enc, b.Fields(), b2.Fields())
			}
		}
		var ie *webhook.InvalidError
		if err := b.Verify(secret); err != nil && !errors.As(err, &ie) {
			t.Fatalf("Verify: %#v", err)
		}
	})
}

// FuzzVerify checks that what Sign makes verifies, and that a body whose
// signed field was changed does not.
func FuzzVerify(f *testing.F) {
	f.Add("app_secret", "1", "150.00", "INV-1001", "VP1", "TRY", "151.00")
	f.Add("app_secret", "1", "150.00", "INV-1001", "VP1", "TRY", "99999")
	f.Add("ş", "Completed", "10.5", "İŞLEM-1", "", "", "10.50")
	f.Add("", "Fail", "x", "a+b=c&d", "%", "", "1e5")
	f.Fuzz(func(t *testing.T, appSecret, status, amount, invoice, order, currency, changedAmount string) {
		kind, amountField := webhook.Sale, "total"
		fields := map[string]string{"status": status, "invoice_id": invoice, "order_id": order}
		if isRefund(status) {
			kind, amountField = webhook.Refund, "amount"
		} else {
			fields["currency_code"] = currency
		}
		fields[amountField] = amount
		signed, err := webhook.Sign(kind, fields, appSecret)
		if err != nil {
			return // a "|" in a field, or a status of the other kind
		}
		for _, enc := range []webhook.Encoding{webhook.Form, webhook.JSON} {
			ct, body, _ := webhook.Encode(enc, signed)
			b, err := webhook.Parse(ct, body)
			if err != nil {
				return // e.g. not UTF-8: no gateway signs that
			}
			if err := b.Verify(appSecret); err != nil {
				t.Fatalf("signed %s body %q: %v", enc, body, err)
			}
			changed := maps.Clone(signed)
			changed[amountField] = changedAmount
			ct, body, _ = webhook.Encode(enc, changed)
			b, err = webhook.Parse(ct, body)
			if err != nil {
				continue
			}
			err = b.Verify(appSecret)
			if sameAmount(amount, changedAmount) != (err == nil) {
				t.Fatalf("amount %q changed to %q: Verify = %v", amount, changedAmount, err)
			}
			// The other spelling of the amount, added beside the signed
			// one, must agree with it too.
			other := maps.Clone(signed)
			other[map[string]string{"total": "amount", "amount": "total"}[amountField]] = changedAmount
			ct, body, _ = webhook.Encode(enc, other)
			if b, err = webhook.Parse(ct, body); err != nil {
				continue
			}
			err = b.Verify(appSecret)
			if sameAmount(amount, changedAmount) != (err == nil) {
				t.Fatalf("amount %q with a second spelling %q: Verify = %v", amount, changedAmount, err)
			}
		}
	})
}
