package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
)

// Kind is what a webhook reports.
type Kind string

const (
	Sale   Kind = "sale"   // a sale's result (also the 3D return): layout sale-webhook
	Refund Kind = "refund" // a refund's result: layout refund-webhook
)

// Layout returns the hash_key layout of the kind (see hashkey.Layouts).
func (k Kind) Layout() hashkey.Layout {
	name := "sale-webhook"
	if k == Refund {
		name = "refund-webhook"
	}
	l, _ := hashkey.LookupLayout(name)
	return l
}

// aliases are the body fields that may carry a layout field, in the order
// they are looked for: the gateway names a sale's order "order_no" in
// some calls and "order_id" in others, and a sale's total "amount" in some.
// nil: the field goes by its own name only.
func aliases(k Kind, field string) []string {
	switch {
	case field == "order_id":
		return []string{"order_id", "order_no"}
	case k == Sale && field == "total":
		return []string{"total", "amount"}
	case k == Refund && field == "amount":
		return []string{"amount", "total"}
	}
	return nil
}

// refundStatuses are the statuses of a refund webhook; a sale's status is
// a number. This is the webhook protocol's own reading, and it stays here
// rather than with the refund operation: which body a webhook is decides
// which fields its hash_key is made of, so it is read before any command
// sees it, by `webhook listen`, `webhook verify` and the sandbox's
// delivery alike (webhook sits below the commands); it says nothing of a
// journal kind.
var refundStatuses = []string{"Completed", "Fail"}

func isRefundStatus(s string) bool {
	for _, r := range refundStatuses {
		if strings.EqualFold(s, r) {
			return true
		}
	}
	return false
}

// Kind tells the body's kind from its status: Completed or Fail is a
// refund, anything else a sale.
func (b *Body) Kind() Kind {
	if s, _ := b.Get("status"); isRefundStatus(s) {
		return Refund
	}
	return Sale
}

// lookup returns the body field that carries a layout field, and its value.
func (b *Body) lookup(k Kind, field string) (name, value string, ok bool) {
	names := aliases(k, field)
	if names == nil {
		names = []string{field}
	}
	for _, n := range names {
		if v, ok := b.Get(n); ok {
			return n, v, true
		}
	}
	return field, "", false
}

// Summary is what a person looks at first in a webhook, as the body says
// it (not checked against the hash_key).
type Summary struct {
	Kind      Kind
	InvoiceID string
	OrderID   string
	Status    string
	// Amount is a sale's total or a refund's amount.
	Amount   string
	Currency string
}

// Summary returns the body's main fields.
func (b *Body) Summary() Summary {
	k := b.Kind()
	s := Summary{Kind: k}
	s.InvoiceID, _ = b.Get("invoice_id")
	_, s.OrderID, _ = b.lookup(k, "order_id")
	s.Status, _ = b.Get("status")
	_, s.Amount, _ = b.lookup(k, k.Layout().Amounts[0])
	s.Currency, _ = b.Get("currency_code")
	return s
}

// Reasons that start an InvalidError's Reason, for callers that count them.
const (
	ReasonNoHashKey = "no hash_key"
	ReasonNoDecrypt = "hash_key does not decrypt with this app_secret"
)

// InvalidError says why a webhook's hash_key does not vouch for its body.
type InvalidError struct {
	// Field is the body field at fault: "hash_key" when the hash_key is
	// missing or does not decrypt, else the field that is missing or
	// differs from the one the hash_key holds.
	Field  string
	Reason string
	// Err is hashkey's error when the hash_key did not decrypt.
	Err error
}

func (e *InvalidError) Error() string { return e.Reason }
func (e *InvalidError) Unwrap() error { return e.Err }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Verify checks the body's hash_key: it must decrypt with appSecret, hold
// as many fields as the kind's layout, and each of them must equal the
// body's field (amounts as decimals, so "150" equals "150.00"; everything
// else exactly). It returns nil or an *InvalidError naming the first field
// at fault. The hash_key's own text is never in the error, and an
// invoice_id it quotes is shown as redact.Invoice shows it (quoted).
func (b *Body) Verify(appSecret string) error {
	hk, _ := b.Get("hash_key")
	if strings.TrimSpace(hk) == "" {
		return invalid("hash_key", ReasonNoHashKey)
	}
	pt, err := hashkey.Decrypt(appSecret, hk)
	if err != nil {
		return &InvalidError{Field: "hash_key", Reason: ReasonNoDecrypt + ": " + err.Error(), Err: err}
	}
	kind := b.Kind()
	layout := kind.Layout()
	got := hashkey.Split(pt)
	if len(got) != len(layout.Fields) {
		other := Refund
		if kind == Refund {
			other = Sale
		}
		why := ""
		if len(got) == len(other.Layout().Fields) {
			why = fmt.Sprintf(" (a %s webhook's), but the body's status %q makes it a %s", other, clip(b.values["status"]), kind)
		}
		return invalid("hash_key", "the hash_key holds %d fields%s; a %s webhook's holds %d (%s)",
			len(got), why, kind, len(layout.Fields), strings.Join(layout.Fields, "|"))
	}
	// Two spellings of one field that disagree would let a handler read
	// the one the hash_key does not cover (a sale's total is checked, its
	// "amount" could say anything), so every spelling present must agree
	// with the first, amounts as decimals.
	for _, field := range layout.Fields {
		if err := b.aliasesAgree(kind, field, field == layout.Amounts[0]); err != nil {
			return err
		}
	}
	for i, field := range layout.Fields {
		name, v, ok := b.lookup(kind, field)
		if !ok {
			return invalid(field, "the body has no %s (the hash_key holds %q)", field, quoted(field, got[i]))
		}
		if !sameValue(v, got[i], field == layout.Amounts[0]) {
			return invalid(name, "%s differs: the body says %q, the hash_key %q", name, quoted(field, v), quoted(field, got[i]))
		}
	}
	return nil
}

// aliasesAgree returns an *InvalidError naming the second spelling of
// field when the body holds two spellings of it that differ.
func (b *Body) aliasesAgree(k Kind, field string, amount bool) error {
	names := aliases(k, field)
	first, firstValue, seen := "", "", false
	for _, n := range names {
		v, ok := b.Get(n)
		if !ok {
			continue
		}
		if !seen {
			first, firstValue, seen = n, v, true
			continue
		}
		if !sameValue(v, firstValue, amount) {
			return invalid(n, "%s %q and %s %q differ", first, quoted(field, firstValue), n, quoted(field, v))
		}
	}
	return nil
}

// quoted is a value of the layout field field as an InvalidError quotes
// it: clipped, and an invoice_id as redact.Invoice shows it. An invoice id
// is the merchant's input, and one that is a card number is masked wherever
// paycli shows it; the order number beside it is the gateway's reference,
// quoted whole.
func quoted(field, v string) string {
	if field == "invoice_id" {
		v = redact.Invoice(v)
	}
	return clip(v)
}

// sameValue compares a body field with the one the hash_key holds: an
// amount as a decimal when both are written plainly as the gateway writes
// amounts (money.ParsePlain), everything else exactly. An amount written in
// an unusual way (exponents, a plus sign, blanks) is compared as text: it
// is a sign of a body built by something other than the gateway, and
// exponents would let a tiny string stand for a huge number.
func sameValue(body, hashed string, amount bool) bool {
	if body == hashed {
		return true
	}
	if !amount {
		return false
	}
	b, bok := money.ParsePlain(body)
	h, hok := money.ParsePlain(hashed)
	return bok && hok && b.Equal(h)
}

// Sign returns fields with a hash_key added, made with appSecret over the
// kind's layout, as the gateway signs its webhooks. fields must hold every
// field of the layout under its own name (sale: status, total, invoice_id,
// order_id, currency_code; refund: status, amount, invoice_id, order_id)
// and may hold more, which are sent but not signed. A refund's status must
// be Completed or Fail and a sale's must not, so that the body reads back
// as the kind it was signed as.
func Sign(kind Kind, fields map[string]string, appSecret string) (map[string]string, error) {
	if kind != Sale && kind != Refund {
		return nil, fmt.Errorf("unknown webhook kind %q: want sale or refund", kind)
	}
	if _, ok := fields["hash_key"]; ok {
		return nil, errors.New("fields already hold a hash_key")
	}
	if isRefundStatus(fields["status"]) != (kind == Refund) {
		return nil, fmt.Errorf("status %q is not a %s webhook's: a refund's is Completed or Fail, a sale's a number", fields["status"], kind)
	}
	pt, err := kind.Layout().Plaintext(fields)
	if err != nil {
		return nil, err
	}
	hk, err := hashkey.Generate(appSecret, pt)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(fields)+1)
	for k, v := range fields {
		out[k] = v
	}
	out["hash_key"] = hk
	return out, nil
}

// Encode writes fields as a body of the given encoding, keys sorted, and
// returns it with its Content-Type. Every value is a JSON string in JSON.
func Encode(enc Encoding, fields map[string]string) (contentType string, body []byte, err error) {
	if enc == JSON {
		body, err = json.Marshal(fields)
		return enc.ContentType(), body, err
	}
	v := url.Values{}
	for k, val := range fields {
		v.Set(k, val)
	}
	return Form.ContentType(), []byte(v.Encode()), nil
}
