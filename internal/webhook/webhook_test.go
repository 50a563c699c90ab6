package webhook_test

import (
	"errors"
	"maps"
	"net/url"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/webhook"
)

const secret = "app_secret"

// saleHashKey is a known answer of the gateway's reference code for the
// sale-webhook plaintext 1|100.00|INV-001|VP17000000000000001|TRY.
const saleHashKey = "abcdef0123456789:0f1e:rlmFmMUzLyfVb54RwWFByDiKz3dlh1F5PpXHpW+zgCxEzqQWIHFOM4j9i7c8IKyN"

func formBody(fields map[string]string) string {
	v := url.Values{}
	for k, val := range fields {
		v.Set(k, val)
	}
	return v.Encode()
}

func saleFields() map[string]string {
	return map[string]string{"status": "1", "total": "100.00", "invoice_id": "INV-001",
		"order_id": "VP17000000000000001", "currency_code": "TRY", "hash_key": saleHashKey}
}

func TestParseKeepsTextAndOrder(t *testing.T) {
	tests := []struct {
		name, ct, body string
		enc            webhook.Encoding
		want           map[string]string
		names          []string
	}{
		{"form", "application/x-www-form-urlencoded", "status=1&total=150.00&hash_key=a%2Bb%3Ac&note=a+b",
			webhook.Form, map[string]string{"status": "1", "total": "150.00", "hash_key": "a+b:c", "note": "a b"},
			[]string{"status", "total", "hash_key", "note"}},
		{"json numbers keep their digits", "application/json", `{"status": 1, "total": 150.00, "x": null, "ok": true, "n": {"a": [1, 2]}}`,
			webhook.JSON, map[string]string{"status": "1", "total": "150.00", "ok": "true", "n": `{"a":[1,2]}`},
			[]string{"status", "total", "ok", "n"}},
		{"json strings unescaped", "application/json; charset=utf-8", `{"invoice_id": "\u0130\u015eLEM-1", "hash_key": "a\/b"}`,
			webhook.JSON, map[string]string{"invoice_id": "İŞLEM-1", "hash_key": "a/b"}, []string{"invoice_id", "hash_key"}},
		{"sniffed json", "", "  \n{\"status\": \"1\"}\n", webhook.JSON, map[string]string{"status": "1"}, []string{"status"}},
		{"sniffed form", "text/plain", "status=1\n", webhook.Form, map[string]string{"status": "1"}, []string{"status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := webhook.Parse(tt.ct, []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if b.Encoding != tt.enc {
				t.Errorf("encoding %s, want %s", b.Encoding, tt.enc)
			}
			got := b.Fields()
			if len(got) != len(tt.want) {
				t.Errorf("fields %q, want %q", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if strings.Join(b.Names(), ",") != strings.Join(tt.names, ",") {
				t.Errorf("names %q, want %q", b.Names(), tt.names)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, ct, body, want string }{
		{"duplicate form field", "", "total=1&total=2", `field "total" appears more than once`},
		{"duplicate json field", "application/json", `{"total": "1", "total": "2"}`, `field "total" appears more than once`},
		{"duplicate json field after null", "application/json", `{"total": null, "total": "2"}`, `field "total" appears more than once`},
		{"json array", "application/json", `[1]`, "not an object"},
		{"two json values", "application/json", `{} {}`, "more than one JSON value"},
		{"broken json", "application/json", `{"a": `, "invalid JSON"},
		{"bad escape", "", "a=%zz", "bad form encoding"},
		{"empty", "", "", "no fields"},
		{"empty json", "application/json", "{}", "no fields"},
		{"not utf-8", "", "a=\xff", "not UTF-8"},
		{"multipart", "multipart/form-data; boundary=x", "--x--", "unsupported content type"},
		{"too large", "", strings.Repeat("a", webhook.MaxBodySize+1), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webhook.Parse(tt.ct, []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestVerifyKnownAnswer(t *testing.T) {
	for _, enc := range []webhook.Encoding{webhook.Form, webhook.JSON} {
		ct, body, err := webhook.Encode(enc, saleFields())
		if err != nil {
			t.Fatal(err)
		}
		b, err := webhook.Parse(ct, body)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Verify(secret); err != nil {
			t.Errorf("%s: %v", enc, err)
		}
		s := b.Summary()
		if s.Kind != webhook.Sale || s.InvoiceID != "INV-001" || s.OrderID != "VP17000000000000001" || s.Amount != "100.00" || s.Currency != "TRY" || s.Status != "1" {
			t.Errorf("summary %+v", s)
		}
	}
}

func TestVerifyFindsTheField(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string]string)
		secret string
		field  string
		reason string
	}{
		{"amount changed", func(m map[string]string) { m["total"] = "1000.00" }, secret, "total", `total differs: the body says "1000.00", the hash_key "100.00"`},
		{"invoice changed", func(m map[string]string) { m["invoice_id"] = "INV-002" }, secret, "invoice_id", "invoice_id differs"},
		{"status changed", func(m map[string]string) { m["status"] = "0" }, secret, "status", "status differs"},
		{"currency changed", func(m map[string]string) { m["currency_code"] = "USD" }, secret, "currency_code", "currency_code differs"},
		{"order missing", func(m map[string]string) { delete(m, "order_id") }, secret, "order_id", "the body has no order_id"},
		{"hash_key missing", func(m map[string]string) { delete(m, "hash_key") }, secret, "hash_key", "no hash_key"},
		{"forged hash_key", func(m map[string]string) { m["hash_key"] = "abcdef0123456789:0f1e:AAAAAAAAAAAAAAAAAAAAAA==" }, secret, "hash_key", "does not decrypt"},
		{"wrong secret", func(map[string]string) {}, "not_the_secret", "hash_key", "does not decrypt"},
		{"order_no disagrees", func(m map[string]string) { m["order_no"] = "VP2" }, secret, "order_no", "differ"},
		{"amount beside total disagrees", func(m map[string]string) { m["amount"] = "99999" }, secret, "amount", `total "100.00" and amount "99999" differ`},
		{"amount beside total in exponent", func(m map[string]string) { m["amount"] = "1e2" }, secret, "amount", "differ"},
		{"refund status on a sale hash", func(m map[string]string) { m["status"] = "Completed" }, secret, "hash_key", "holds 5 fields (a sale webhook's)"},
		{"exponent amount is text", func(m map[string]string) { m["total"] = "1e2" }, secret, "total", "total differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := saleFields()
			tt.change(m)
			b, err := webhook.Parse("", []byte(formBody(m)))
			if err != nil {
				t.Fatal(err)
			}
			err = b.Verify(tt.secret)
			var ie *webhook.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Verify = %v, want an *InvalidError", err)
			}
			if ie.Field != tt.field || !strings.Contains(ie.Reason, tt.reason) {
				t.Errorf("Verify = field %q, %q; want field %q, %q", ie.Field, ie.Reason, tt.field, tt.reason)
			}
			if strings.Contains(err.Error(), saleHashKey) {
				t.Errorf("the error holds the hash_key: %v", err)
			}
		})
	}
}

// TestVerifyMasksACardInvoice: a reason that quotes an invoice_id shows
// one that is a card number masked (redact.Invoice), the body's and the
// hash_key's alike; the order number, which passes the Luhn check here,
// is quoted whole.
func TestVerifyMasksACardInvoice(t *testing.T) {
	const card, order = "4111111111111111", "17953670015499073"
	signed, err := webhook.Sign(webhook.Sale, map[string]string{"status": "1", "total": "10.00", "invoice_id": card,
		"order_id": order, "currency_code": "TRY"}, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		change func(map[string]string)
		reason string
	}{
		{func(m map[string]string) { m["invoice_id"] = "4012888888881881" }, `invoice_id differs: the body says "401288******1881", the hash_key "411111******1111"`},
		{func(m map[string]string) { delete(m, "invoice_id") }, `the body has no invoice_id (the hash_key holds "411111******1111")`},
		{func(m map[string]string) { m["order_id"] = "VP1" }, `order_id differs: the body says "VP1", the hash_key "` + order + `"`},
	} {
		m := maps.Clone(signed)
		tt.change(m)
		b, err := webhook.Parse("", []byte(formBody(m)))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Verify(secret); err == nil || err.Error() != tt.reason {
			t.Errorf("Verify = %v, want %s", err, tt.reason)
		}
	}
}

func TestVerifyAliasesAndDecimals(t *testing.T) {
	m := saleFields()
	delete(m, "total")
	delete(m, "order_id")
	m["amount"] = "100" // compared as a decimal
	m["order_no"] = "VP17000000000000001"
	b, err := webhook.Parse("", []byte(formBody(m)))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Verify(secret); err != nil {
		t.Fatal(err)
	}
	if s := b.Summary(); s.Amount != "100" || s.OrderID != "VP17000000000000001" {
		t.Errorf("summary %+v", s)
	}
}

// A handler may read either spelling of an aliased field, so a second
// spelling beside the signed one must agree with it.
func TestVerifySecondSpellingMustAgree(t *testing.T) {
	refund, err := webhook.Sign(webhook.Refund, map[string]string{"status": "Completed", "amount": "10.50", "invoice_id": "INV-1", "order_id": "VP1"}, secret)
	if err != nil {
		t.Fatal(err)
	}
	sale := saleFields()
	tests := []struct {
		name   string
		fields map[string]string
		extra  string
		value  string
		ok     bool
	}{
		{"sale amount equal as a decimal", sale, "amount", "100", true},
		{"sale amount tampered", sale, "amount", "99999", false},
		{"refund total equal as a decimal", refund, "total", "10.5", true},
		{"refund total tampered", refund, "total", "0.01", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := maps.Clone(tt.fields)
			m[tt.extra] = tt.value
			b, err := webhook.Parse("", []byte(formBody(m)))
			if err != nil {
				t.Fatal(err)
			}
			err = b.Verify(secret)
			if tt.ok {
				if err != nil {
					t.Fatalf("Verify = %v", err)
				}
				return
			}
			var ie *webhook.InvalidError
			if !errors.As(err, &ie) || ie.Field != tt.extra {
				t.Fatalf("Verify = %v, want an *InvalidError naming %s", err, tt.extra)
			}
		})
	}
}

func TestSignRoundTrip(t *testing.T) {
	tests := []struct {
		kind   webhook.Kind
		fields map[string]string
	}{
		{webhook.Sale, map[string]string{"status": "1", "total": "150.00", "invoice_id": "INV-1001", "order_id": "VP1", "currency_code": "TRY", "extra": "x"}},
		{webhook.Refund, map[string]string{"status": "Completed", "amount": "10.50", "invoice_id": "INV-1001", "order_id": "VP1"}},
		{webhook.Refund, map[string]string{"status": "Fail", "amount": "10.50", "invoice_id": "İŞLEM-1", "order_id": "VP1"}},
	}
	for _, tt := range tests {
		signed, err := webhook.Sign(tt.kind, tt.fields, secret)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tt.fields["hash_key"]; ok {
			t.Fatal("Sign changed its input")
		}
		pt, err := hashkey.Decrypt(secret, signed["hash_key"])
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := tt.kind.Layout().Plaintext(tt.fields); pt != want {
			t.Errorf("%s: signed %q, want %q", tt.kind, pt, want)
		}
		for _, enc := range []webhook.Encoding{webhook.Form, webhook.JSON} {
			ct, body, err := webhook.Encode(enc, signed)
			if err != nil {
				t.Fatal(err)
			}
			b, err := webhook.Parse(ct, body)
			if err != nil {
				t.Fatal(err)
			}
			if b.Kind() != tt.kind {
				t.Errorf("%s signed reads back as %s", tt.kind, b.Kind())
			}
			if err := b.Verify(secret); err != nil {
				t.Errorf("%s %s: %v", tt.kind, enc, err)
			}
			if err := b.Verify("other"); err == nil {
				t.Errorf("%s %s verified with another secret", tt.kind, enc)
			}
		}
	}
}

func TestSignRefuses(t *testing.T) {
	sale := map[string]string{"status": "1", "total": "1", "invoice_id": "I", "order_id": "O", "currency_code": "TRY"}
	tests := []struct {
		name   string
		kind   webhook.Kind
		fields map[string]string
		want   string
	}{
		{"unknown kind", "chargeback", sale, "unknown webhook kind"},
		{"missing field", webhook.Sale, map[string]string{"status": "1"}, "needs total"},
		{"refund status on a sale", webhook.Sale, map[string]string{"status": "Completed", "total": "1", "invoice_id": "I", "order_id": "O", "currency_code": "TRY"}, "not a sale webhook's"},
		{"sale status on a refund", webhook.Refund, map[string]string{"status": "1", "amount": "1", "invoice_id": "I", "order_id": "O"}, "not a refund webhook's"},
		{"pipe in a field", webhook.Sale, map[string]string{"status": "1", "total": "1", "invoice_id": "I|2", "order_id": "O", "currency_code": "TRY"}, "may not contain '|'"},
		{"hash_key given", webhook.Sale, map[string]string{"status": "1", "hash_key": "x"}, "already hold a hash_key"},
	}
	for _, tt := range tests {
		if _, err := webhook.Sign(tt.kind, tt.fields, secret); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Sign = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	v, b := webhook.Check("", []byte(formBody(saleFields())), secret)
	if !v.Valid() || b == nil || v.Kind != webhook.Sale || v.Encoding != webhook.Form {
		t.Errorf("valid body: %+v", v)
	}
	v, b = webhook.Check("application/json", []byte("{"), secret)
	if v.Valid() || b != nil || v.Kind != "" || !strings.Contains(v.Reason, "not a webhook body") {
		t.Errorf("broken body: %+v", v)
	}
}

func TestPrintable(t *testing.T) {
	if got := webhook.Printable("INV\x1b[31m-1\n"); got != `INV\x1b[31m-1\n` {
		t.Errorf("Printable = %q", got)
	}
	if got := webhook.Printable("İŞLEM-1"); got != "İŞLEM-1" {
		t.Errorf("Printable = %q", got)
	}
}

// signedBody is a form body whose hash_key covers plaintext (made here,
// not by Sign, so that a mistake in the rules Sign shares with Verify
// cannot hide), with the body's fields as given.
func signedBody(t *testing.T, plaintext string, fields map[string]string) *webhook.Body {
	t.Helper()
	hk, err := hashkey.Generate(secret, plaintext)
	if err != nil {
		t.Fatal(err)
	}
	m := maps.Clone(fields)
	m["hash_key"] = hk
	b, err := webhook.Parse("", []byte(formBody(m)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyComparesOnlyAmountsAsDecimals: only the amount is compared as
// a decimal; every other field must be the text the hash_key holds, so an
// invoice "0100" is not invoice "100", and a sale status "01" is not "1".
func TestVerifyComparesOnlyAmountsAsDecimals(t *testing.T) {
	sale := map[string]string{"status": "1", "total": "100.00", "invoice_id": "100", "order_id": "200", "currency_code": "TRY"}
	for field, value := range map[string]string{"invoice_id": "0100", "order_id": "0200", "status": "01"} {
		m := maps.Clone(sale)
		m[field] = value
		err := signedBody(t, "1|100.00|100|200|TRY", m).Verify(secret)
		var ie *webhook.InvalidError
		if !errors.As(err, &ie) || ie.Field != field {
			t.Errorf("%s %q against %q in the hash_key: %v, want it refused", field, value, sale[field], err)
		}
	}
	m := maps.Clone(sale)
	m["total"] = "100"
	if err := signedBody(t, "1|100.00|100|200|TRY", m).Verify(secret); err != nil {
		t.Errorf("the amount 100 against 100.00: %v", err)
	}
}

// TestVerifyRefundStatusAnyCase: a refund's status is Completed or Fail
// in any letter case, and reads as a refund (its hash_key has the refund
// layout's four fields).
func TestVerifyRefundStatusAnyCase(t *testing.T) {
	for _, status := range []string{"completed", "COMPLETED", "fail", "Fail"} {
		b := signedBody(t, status+"|10.50|INV-1|VP1", map[string]string{"status": status, "amount": "10.50", "invoice_id": "INV-1", "order_id": "VP1"})
		if err := b.Verify(secret); err != nil || b.Kind() != webhook.Refund {
			t.Errorf("status %q: kind %s, %v", status, b.Kind(), err)
		}
	}
}

// TestVerifyRefundOrderNo: a refund webhook that names its order order_no
// (as the gateway does in some calls) verifies; a different order_no does
// not.
func TestVerifyRefundOrderNo(t *testing.T) {
	fields := map[string]string{"status": "Completed", "amount": "10.50", "invoice_id": "INV-1", "order_no": "VP1"}
	if err := signedBody(t, "Completed|10.50|INV-1|VP1", fields).Verify(secret); err != nil {
		t.Errorf("order_no: %v", err)
	}
	fields["order_no"] = "VP2"
	var ie *webhook.InvalidError
	if err := signedBody(t, "Completed|10.50|INV-1|VP1", fields).Verify(secret); !errors.As(err, &ie) || ie.Field != "order_no" {
		t.Errorf("another order_no: %v", err)
	}
}

// TestVerifyEmptyHashedField: a field the hash_key holds empty matches
// only an empty body field, never whatever the body says.
func TestVerifyEmptyHashedField(t *testing.T) {
	fields := map[string]string{"status": "1", "total": "100.00", "invoice_id": "INV-1", "order_id": "VP-FORGED", "currency_code": "TRY"}
	var ie *webhook.InvalidError
	if err := signedBody(t, "1|100.00|INV-1||TRY", fields).Verify(secret); !errors.As(err, &ie) || ie.Field != "order_id" {
		t.Errorf("order_id %q against an empty one in the hash_key: %v", fields["order_id"], err)
	}
	fields["order_id"] = ""
	if err := signedBody(t, "1|100.00|INV-1||TRY", fields).Verify(secret); err != nil {
		t.Errorf("an empty order_id against an empty one: %v", err)
	}
	fields["order_id"], fields["total"] = "VP1", "100.00"
	if err := signedBody(t, "1||INV-1|VP1|TRY", fields).Verify(secret); !errors.As(err, &ie) || ie.Field != "total" {
		t.Errorf("total 100.00 against an empty one in the hash_key: %v", err)
	}
}
