package hashkey_test

import (
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

// TestLayoutsTable pins the field orders of docs/protocol.md (hash_key,
// Layouts): a change here
// changes what the gateway accepts.
func TestLayoutsTable(t *testing.T) {
	want := map[string][]string{
		"payment":        {"total", "installment", "currency_code", "merchant_key", "invoice_id"},
		"walletpay":      {"total", "installment", "currency_code", "merchant_key", "invoice_id"},
		"checkstatus":    {"invoice_id", "merchant_key"},
		"refund":         {"amount", "invoice_id", "merchant_key"},
		"confirm":        {"merchant_key", "invoice_id", "status"},
		"complete":       {"merchant_key", "invoice_id", "order_id", "status"},
		"sale-webhook":   {"status", "total", "invoice_id", "order_id", "currency_code"},
		"refund-webhook": {"status", "amount", "invoice_id", "order_id"},
		"savecard":       {"merchant_key", "customer_number", "card_holder_name", "card_number", "expiry_month", "expiry_year"},
		"editcard":       {"merchant_key", "customer_number", "card_token"},
		"deletecard":     {"merchant_key", "customer_number", "card_token"},
		"link":           {"total", "currency_code", "merchant_key", "invoice_id"},
		"transactions":   {"date", "invoice_id", "currency_id", "payment_method_id", "min_amount", "max_amount", "transaction_state"},
		// §11.12, with the merchant key as password.
		"getTransactions": {"date", "invoiceid", "currency_id", "paymentmethodid", "minamount", "maxamount", "transaction_state"},
	}
	got := map[string][]string{}
	for _, l := range hashkey.Layouts {
		if _, dup := got[l.Name]; dup {
			t.Errorf("layout %s listed twice", l.Name)
		}
		got[l.Name] = l.Fields
		if l.Help == "" {
			t.Errorf("layout %s has no help text", l.Name)
		}
		for _, a := range l.Amounts {
			if !slices.Contains(l.Fields, a) {
				t.Errorf("layout %s: amount %s is not one of its fields", l.Name, a)
			}
		}
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("layouts:\n got %v\nwant %v", got, want)
	}
	if names := hashkey.LayoutNames(); len(names) != len(hashkey.Layouts) || names[0] != "payment" {
		t.Errorf("LayoutNames = %v", names)
	}
}

// TestFieldNamesMakeFlags: `paycli hash generate` turns each field name
// into a flag, so names must stay lowercase words joined by "_".
func TestFieldNamesMakeFlags(t *testing.T) {
	word := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	for _, l := range hashkey.Layouts {
		for _, f := range l.Fields {
			if !word.MatchString(f) {
				t.Errorf("layout %s: field %q", l.Name, f)
			}
		}
	}
}

func TestLookupLayout(t *testing.T) {
	l, ok := hashkey.LookupLayout("refund")
	if !ok || l.Name != "refund" || len(l.Fields) != 3 {
		t.Errorf("LookupLayout(refund) = %+v, %v", l, ok)
	}
	if _, ok := hashkey.LookupLayout("Payment"); ok {
		t.Error("LookupLayout(Payment): names are lowercase")
	}
	if _, ok := hashkey.LookupLayout(""); ok {
		t.Error("LookupLayout(\"\") found a layout")
	}
}

func TestLayoutPlaintext(t *testing.T) {
	l, _ := hashkey.LookupLayout("payment")
	values := map[string]string{"invoice_id": "INV-001", "total": "100.00", "merchant_key": "test_merchant_key", "installment": "1", "currency_code": "TRY", "extra": "ignored"}
	got, err := l.Plaintext(values)
	if err != nil || got != "100.00|1|TRY|test_merchant_key|INV-001" {
		t.Errorf("Plaintext = %q, %v", got, err)
	}
	delete(values, "currency_code")
	if _, err := l.Plaintext(values); err == nil {
		t.Error("Plaintext without currency_code: want an error")
	}
	values["currency_code"] = "TR|Y"
	if _, err := l.Plaintext(values); err == nil {
		t.Error("Plaintext with '|' in a value: want an error")
	}
	values["currency_code"] = ""
	if got, err := l.Plaintext(values); err != nil || got != "100.00|1||test_merchant_key|INV-001" {
		t.Errorf("Plaintext with an empty value = %q, %v", got, err)
	}
}

func TestLayoutNamedAndMismatch(t *testing.T) {
	l, _ := hashkey.LookupLayout("sale-webhook")
	fields := []string{"1", "100", "INV-1", "ORD-9", "TRY"}
	named, err := l.Named(fields)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"status": "1", "total": "100", "invoice_id": "INV-1", "order_id": "ORD-9", "currency_code": "TRY"}; !maps.Equal(named, want) {
		t.Errorf("Named = %v", named)
	}
	if _, err := l.Named(fields[:4]); err == nil {
		t.Error("Named with 4 of 5 fields: want an error")
	}

	tests := []struct {
		want map[string]string
		diff string
	}{
		{map[string]string{"total": "100.00", "invoice_id": "INV-1"}, ""},
		{map[string]string{"total": "100.0000"}, ""},
		{map[string]string{"total": "100.01"}, "total"},
		{map[string]string{"total": "abc"}, "total"},
		{map[string]string{"invoice_id": "inv-1"}, "invoice_id"},
		{map[string]string{"status": "01"}, "status"}, // not an amount: compared as text
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		got, err := l.Mismatch(fields, tt.want)
		if err != nil || got != tt.diff {
			t.Errorf("Mismatch(%v) = %q, %v; want %q", tt.want, got, err, tt.diff)
		}
	}
	if _, err := l.Mismatch(fields[:2], nil); err == nil {
		t.Error("Mismatch with a short field list: want an error")
	}
}
