package sandbox

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestWalletPayAnswerIsEncodingJSONs: the hand-appended answer is byte for
// byte what encoding/json writes, for every field of walletPayResult (a
// field added to it and not to the appender fails here), and a value that
// needs escaping falls back to encoding/json.
func TestWalletPayAnswerIsEncodingJSONs(t *testing.T) {
	var full walletPayResult
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); {
		case f.Type() == reflect.TypeOf(json.Number("")):
			f.SetString(strconv.Itoa(i) + ".25")
		case f.Kind() == reflect.String:
			f.SetString("v" + strconv.Itoa(i))
		case f.Kind() == reflect.Int:
			f.SetInt(int64(i + 1))
		default:
			t.Fatalf("field %s of a kind the test does not fill", v.Type().Field(i).Name)
		}
	}
	sale := Sale{InvoiceID: "INV-1", OrderID: "VP1", CardBIN: "435508", CardLast4: "4358", AuthCode: "A1", MerchantCommission: "2.25",
		MerchantCommissionPercentage: "1.5", MerchantCommissionFixed: "0", UserCommission: "0", Wallet: WalletDeviceVendor}
	cases := []struct {
		code int
		desc string
		r    walletPayResult
		fast bool
	}{
		{100, "Payment process successful", full, true},
		{100, "Payment process successful", resultOf(sale, 100, "Payment process successful"), true},
		{41, "Payment failed: declined", resultOf(sale, 41, "Payment failed: declined"), true},
		{100, "", walletPayResult{}, true},
		{100, "a <b> & \"c\"", full, false},
		{100, "çağrı", full, false},
		{100, "x", walletPayResult{MerchantCommission: "1e3"}, false},
		{100, "x", walletPayResult{MerchantCommission: "-0.5", UserCommission: "10"}, true},
		{100, "x", walletPayResult{MerchantCommission: "01"}, false},
	}
	for _, tt := range cases {
		want, err := json.Marshal(statusBody{StatusCode: tt.code, StatusDescription: tt.desc, Data: tt.r})
		got, ok := appendWalletPayAnswer(nil, tt.code, tt.desc, &tt.r)
		if err != nil {
			// Not JSON to encoding/json either: left to it.
			if ok {
				t.Errorf("%+v appended, encoding/json refuses it: %v", tt.r, err)
			}
			continue
		}
		if ok != tt.fast || ok && string(got) != string(want) {
			t.Errorf("%q: appended (%v)\n%s\nencoding/json\n%s", tt.desc, ok, got, want)
		}
	}
}

func FuzzPlainNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "01", "1.", ".5", "-", "1e3", "12.250", "-0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainNumber(s) {
			return
		}
		// encoding/json writes a valid Number as it is.
		b, err := json.Marshal(json.Number(s))
		if err != nil || string(b) != s {
			t.Fatalf("%q: %s %v", s, b, err)
		}
	})
}
