package hashkey

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// Layout is the ordered list of fields one kind of request or callback
// puts in its hash_key. This table is the one place layouts are defined.
type Layout struct {
	Name   string
	Fields []string
	// Amounts names the fields compared as decimals ("100" = "100.00").
	Amounts []string
	Help    string
	// Key names the secret the hash_key is made with: "" for the
	// app_secret, KeyMerchantKey for the merchant_key (getTransactions,
	// the integration document's §11.12).
	Key string
}

// KeyMerchantKey is Layout.Key of a layout made with the merchant_key.
const KeyMerchantKey = "merchant_key"

// Layouts, as docs/protocol.md (hash_key, Layouts) lists them. walletpay is
// this project's decision for a field order the gateway's document leaves
// open (docs/protocol.md, walletPay).
var Layouts = []Layout{
	{Name: "payment", Fields: []string{"total", "installment", "currency_code", "merchant_key", "invoice_id"}, Amounts: []string{"total"}, Help: "card payments (2D, 3D, pre-authorization)"},
	{Name: "walletpay", Fields: []string{"total", "installment", "currency_code", "merchant_key", "invoice_id"}, Amounts: []string{"total"}, Help: "walletPay: total and currency from the wallet token, installment 1"},
	{Name: "checkstatus", Fields: []string{"invoice_id", "merchant_key"}, Help: "check status"},
	{Name: "refund", Fields: []string{"amount", "invoice_id", "merchant_key"}, Amounts: []string{"amount"}, Help: "refund"},
	{Name: "confirm", Fields: []string{"merchant_key", "invoice_id", "status"}, Help: "confirm payment (pre-authorization)"},
	{Name: "complete", Fields: []string{"merchant_key", "invoice_id", "order_id", "status"}, Help: "complete payment (3D)"},
	{Name: "sale-webhook", Fields: []string{"status", "total", "invoice_id", "order_id", "currency_code"}, Amounts: []string{"total"}, Help: "return URL and sale webhook, gateway to merchant"},
	{Name: "refund-webhook", Fields: []string{"status", "amount", "invoice_id", "order_id"}, Amounts: []string{"amount"}, Help: "refund webhook, gateway to merchant"},
	{Name: "savecard", Fields: []string{"merchant_key", "customer_number", "card_holder_name", "card_number", "expiry_month", "expiry_year"}, Help: "save a card"},
	{Name: "editcard", Fields: []string{"merchant_key", "customer_number", "card_token"}, Help: "edit a saved card"},
	{Name: "deletecard", Fields: []string{"merchant_key", "customer_number", "card_token"}, Help: "delete a saved card"},
	{Name: "link", Fields: []string{"total", "currency_code", "merchant_key", "invoice_id"}, Amounts: []string{"total"}, Help: "payment link (the invoice of /purchase/link)"},
	// The filter values as sent, "" for a filter not given; made with the
	// merchant_key, which is not among its fields.
	{Name: "transactions", Fields: []string{"date", "invoice_id", "currency_id", "payment_method_id", "min_amount", "max_amount", "transaction_state"},
		Help: "getTransactions (the ledger's listing), made with the merchant_key", Key: KeyMerchantKey},
	// Platformode's integration document §11.12 (generateAPIHashKey): the
	// filters as sent, "" for those left out; the password is the merchant
	// key, not the app secret. transaction_state is the request's
	// transactionState (field names make flags: lowercase words).
	{Name: "getTransactions", Fields: []string{"date", "invoiceid", "currency_id", "paymentmethodid", "minamount", "maxamount", "transaction_state"}, Help: "getTransactions (the ledger), with the merchant key as password"},
}

// LookupLayout finds a layout by name.
func LookupLayout(name string) (Layout, bool) {
	i := slices.IndexFunc(Layouts, func(l Layout) bool { return l.Name == name })
	if i < 0 {
		return Layout{}, false
	}
	return Layouts[i], true
}

// LayoutNames lists the layouts' names in table order.
func LayoutNames() []string {
	names := make([]string, len(Layouts))
	for i, l := range Layouts {
		names[i] = l.Name
	}
	return names
}

// Plaintext joins values (keyed by field name) in the layout's order. Every
// field must be present; a value may not contain "|", which would shift
// every later field.
func (l Layout) Plaintext(values map[string]string) (string, error) {
	fields := make([]string, len(l.Fields))
	for i, name := range l.Fields {
		v, ok := values[name]
		if !ok {
			return "", fmt.Errorf("layout %s needs %s", l.Name, name)
		}
		if strings.Contains(v, "|") {
			return "", fmt.Errorf("%s may not contain '|'", name)
		}
		fields[i] = v
	}
	return Join(fields...), nil
}

// Named pairs fields with the layout's field names. It fails when the count
// differs, which means the hash_key was made for another layout.
func (l Layout) Named(fields []string) (map[string]string, error) {
	if len(fields) != len(l.Fields) {
		return nil, fmt.Errorf("layout %s has %d fields, the hash_key holds %d", l.Name, len(l.Fields), len(fields))
	}
	named := make(map[string]string, len(fields))
	for i, name := range l.Fields {
		named[name] = fields[i]
	}
	return named, nil
}

// Mismatch compares decrypted fields with expected values, amounts as
// decimals, and returns the first field that differs ("" when all match).
func (l Layout) Mismatch(fields []string, want map[string]string) (string, error) {
	got, err := l.Named(fields)
	if err != nil {
		return "", err
	}
	for _, name := range l.Fields {
		w, ok := want[name]
		if !ok {
			continue
		}
		if slices.Contains(l.Amounts, name) {
			gd, err1 := decimal.NewFromString(got[name])
			wd, err2 := decimal.NewFromString(w)
			if err1 == nil && err2 == nil && gd.Equal(wd) {
				continue
			}
			return name, nil
		}
		if got[name] != w {
			return name, nil
		}
	}
	return "", nil
}
