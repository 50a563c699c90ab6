package walletpay

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/render"
)

// ResultFields lists a walletPay result with the seed's field names and
// JSON types (§2.2), whatever spelling the gateway used: the live gateway's
// sipay_status and sipay_payment_method come out as service_status and
// service_payment_method. Amounts are JSON numbers with the gateway's
// digits. Fields the seed does not name follow, sorted, as the gateway
// wrote them.
func ResultFields(r *gateway.WalletPayResult) []render.Field {
	fs := []render.Field{
		IntField("service_status", r.ServiceStatus),
		StringField("order_no", r.OrderNo),
		StringField("order_id", r.OrderID),
		StringField("invoice_id", r.InvoiceID),
		StringField("service_payment_method", r.ServicePaymentMethod),
		StringField("credit_card_no", r.CreditCardNo),
		StringField("transaction_type", r.TransactionType),
		IntField("payment_status", r.PaymentStatus),
		StringField("payment_method", r.PaymentMethod),
		IntField("error_code", r.ErrorCode),
		StringField("error", r.Error),
		StringField("auth_code", r.AuthCode),
		NumberField("merchant_commission", r.MerchantCommission),
		NumberField("user_commission", r.UserCommission),
		NumberField("merchant_commission_percentage", r.MerchantCommissionPercentage),
		NumberField("merchant_commission_fixed", r.MerchantCommissionFixed),
		StringField("host_reference_id", r.HostReferenceID),
		StringField("payment_reason_code", r.PaymentReasonCode),
		StringField("payment_reason_code_detail", r.PaymentReasonCodeDetail),
	}
	return append(fs, ExtraFields(r.Extra)...)
}

// StringField is a JSON string.
func StringField(name, v string) render.Field {
	b, _ := json.Marshal(v)
	return render.Field{Name: name, JSON: b, Text: v}
}

// IntField is a JSON integer.
func IntField(name string, v int) render.Field {
	s := strconv.Itoa(v)
	return render.Field{Name: name, JSON: json.RawMessage(s), Text: s}
}

// NumberField writes a decimal as a JSON number with the gateway's digits
// ("12.3500" stays 12.3500); a value that is not a number is null.
func NumberField(name string, v commission.Value) render.Field {
	if !v.Available() {
		return render.Field{Name: name, JSON: json.RawMessage("null"), Text: v.String()}
	}
	return render.Field{Name: name, JSON: json.RawMessage(v.String()), Text: v.String()}
}

// ExtraFields lists fields no struct names, sorted by name, as written.
func ExtraFields(extra map[string]json.RawMessage) []render.Field {
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	slices.Sort(names)
	fs := make([]render.Field, 0, len(names))
	for _, k := range names {
		raw := extra[k]
		text := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		} else if string(raw) == "null" {
			text = ""
		}
		fs = append(fs, render.Field{Name: k, JSON: raw, Text: text})
	}
	return fs
}
