package gateway

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
)

// TestSignObject: `paycli api`'s body is completed by the client: the
// profile's merchant_key and credentials, then a hash_key over the body's
// fields as written (installments_number standing in for installment);
// what it cannot add is a *SignError saying why.
func TestSignObject(t *testing.T) {
	c := newTestClient(t, "https://gw.example/ccpayment")
	body, err := ParseObject([]byte(`{"total":100.00,"installments_number":1,"currency_code":"TRY","invoice_id":"P-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := c.SignObject(body, Sign{MerchantKey: true, Credentials: true, Layout: "payment"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := signed.MarshalJSON()
	if !strings.HasPrefix(string(out), `{"total":100.00,"installments_number":1,"currency_code":"TRY","invoice_id":"P-1","merchant_key":"`+testMerchantKey+
		`","app_id":"`+testAppID+`","app_secret":"`+testAppSecret+`","hash_key":"`) || len(body) != 4 {
		t.Errorf("signed body %s (the original now has %d members)", out, len(body))
	}
	hk, _, _ := signed.Text("hash_key")
	if plain, err := hashkey.Decrypt(testAppSecret, hk); err != nil || plain != "100.00|1|TRY|"+testMerchantKey+"|P-1" {
		t.Errorf("hash_key holds %q, %v", plain, err)
	}
	noKey, err := New("https://gw.example/ccpayment", Credentials{AppID: testAppID, AppSecret: testAppSecret}, WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    *Client
		body string
		sign Sign
		want SignError
	}{
		{noKey, `{}`, Sign{MerchantKey: true}, SignError{Adding: "merchant_key", Err: ErrNoMerchantKey}},
		{c, `{"merchant_key":"x"}`, Sign{MerchantKey: true}, SignError{Adding: "merchant_key", Present: "merchant_key"}},
		{c, `{"app_secret":"x"}`, Sign{Credentials: true}, SignError{Adding: "credentials", Present: "app_secret"}},
		{c, `{"invoice_id":"I","hash_key":"x"}`, Sign{Layout: "checkstatus"}, SignError{Adding: "hash_key", Layout: "checkstatus", Present: "hash_key"}},
		{c, `{"amount":"1"}`, Sign{Layout: "refund"}, SignError{Adding: "hash_key", Layout: "refund", Missing: []string{"invoice_id", "merchant_key"}}},
	} {
		o, _ := ParseObject([]byte(tc.body))
		_, err := tc.c.SignObject(o, tc.sign)
		var se *SignError
		if !errors.As(err, &se) || se.Adding != tc.want.Adding || se.Present != tc.want.Present || se.Layout != tc.want.Layout ||
			!slices.Equal(se.Missing, tc.want.Missing) || (tc.want.Err != nil && !errors.Is(err, tc.want.Err)) {
			t.Errorf("%s with %+v: %#v", tc.body, tc.sign, err)
		}
	}
}
