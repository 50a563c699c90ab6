package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// writeWalletPayAnswer writes walletPay's answer: what writeJSON writes
// for statusBody{code, desc, res}, appended by hand when every value is
// plain (reflection was a twentieth of a payment's CPU), else by
// encoding/json. TestWalletPayAnswerIsEncodingJSONs holds them equal.
func writeWalletPayAnswer(w http.ResponseWriter, code int, desc string, res walletPayResult) {
	if body, ok := appendWalletPayAnswer(make([]byte, 0, 768), code, desc, &res); ok {
		writeJSONBody(w, http.StatusOK, body)
		return
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: code, StatusDescription: desc, Data: res})
}

// appendWalletPayAnswer appends the answer's JSON; ok is false when a
// string needs escaping or a number is not plain.
func appendWalletPayAnswer(b []byte, code int, desc string, r *walletPayResult) (_ []byte, ok bool) {
	ok = true
	str := func(name, v string) {
		b = append(b, name...)
		if !plainJSONText(v) {
			ok = false
		}
		b = append(b, '"')
		b = append(b, v...)
		b = append(b, '"')
	}
	num := func(name string, n int) {
		b = append(b, name...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	dec := func(name string, v json.Number) {
		b = append(b, name...)
		switch {
		case v == "":
			b = append(b, '0') // as encoding/json writes an empty Number
		case plainNumber(string(v)):
			b = append(b, v...)
		default:
			ok = false
		}
	}
	num(`{"status_code":`, code)
	str(`,"status_description":`, desc)
	num(`,"data":{"service_status":`, r.ServiceStatus)
	str(`,"order_no":`, r.OrderNo)
	str(`,"order_id":`, r.OrderID)
	str(`,"invoice_id":`, r.InvoiceID)
	str(`,"service_payment_method":`, r.ServicePaymentMethod)
	str(`,"credit_card_no":`, r.CreditCardNo)
	str(`,"transaction_type":`, r.TransactionType)
	num(`,"payment_status":`, r.PaymentStatus)
	str(`,"payment_method":`, r.PaymentMethod)
	num(`,"error_code":`, r.ErrorCode)
	str(`,"error":`, r.Error)
	str(`,"auth_code":`, r.AuthCode)
	dec(`,"merchant_commission":`, r.MerchantCommission)
	dec(`,"user_commission":`, r.UserCommission)
	dec(`,"merchant_commission_percentage":`, r.MerchantCommissionPercentage)
	dec(`,"merchant_commission_fixed":`, r.MerchantCommissionFixed)
	str(`,"host_reference_id":`, r.HostReferenceID)
	str(`,"payment_reason_code":`, r.PaymentReasonCode)
	str(`,"payment_reason_code_detail":`, r.PaymentReasonCodeDetail)
	b = append(b, "}}"...)
	return b, ok
}

// plainJSONText reports whether encoding/json writes s between quotes as
// it is: printable ASCII without a quote, a backslash or an HTML
// character (which it escapes).
func plainJSONText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// plainNumber reports whether s is digits, with a sign and a fraction
// allowed: a number encoding/json writes as it is.
func plainNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if digits() == 0 || len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9' || s[0] == '-' && len(s) > 2 && s[1] == '0' && s[2] >= '0' && s[2] <= '9' {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
