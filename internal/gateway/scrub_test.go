package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	secrets := []string{"s3cret/key$2y$10", "another-secret-1"}
	for _, tc := range []struct{ in, want string }{
		{`{"status_description":"bad s3cret/key$2y$10"}`, `{"status_description":"bad •••"}`},
		{`{"status_description":"bad s3cret\/key$2y$10"}`, `{"status_description":"bad •••"}`},
		{`{"a":["another-secret-1",{"b":"x another-secret-1 y"}]}`, `{"a":["•••",{"b":"x ••• y"}]}`},
		{`{"quote":"\"another-secret-1\""}`, `{"quote":"\"•••\""}`},
		{`<p>app_secret=another-secret-1</p>`, `<p>app_secret=•••</p>`},
		{`{"n":12345678}`, `{"n":12345678}`},
		{`{"nothing":"to scrub"}`, `{"nothing":"to scrub"}`},
	} {
		if got := string(scrub([]byte(tc.in), secrets)); got != tc.want {
			t.Errorf("scrub(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// A secret written as a number is left alone: the answer stays JSON.
	if got := string(scrub([]byte(`{"n":12345678,"s":"12345678"}`), []string{"12345678"})); got != `{"n":12345678,"s":"•••"}` || !json.Valid([]byte(got)) {
		t.Errorf("numbers: %s", got)
	}
}

// TestAnswersAreScrubbedOfWhatWasSent (issue 23, defect 7): the client
// scrubs an answer of the credentials and of every secret the request
// carried (its hash_key, the wallet token, the e-mail) before anything
// reads it: descriptions, errors, results and Do's body alike. Values
// shorter than 8 characters are not scrubbed.
func TestAnswersAreScrubbedOfWhatWasSent(t *testing.T) {
	g := newFakeGateway(t)
	echo := func(code int) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			words, _ := json.Marshal(fmt.Sprintf("%v %v %v %v %v %s %s", body["hash_key"], body["merchant_key"], body["wallet_transient_token"],
				body["bill_email"], body["app_secret"], testAppSecret, testAppID))
			writeJSON(w, 200, fmt.Sprintf(`{"status_code":%d,"status_description":%s,"invoice_id":"INV-1","data":{"error":%s,"order_no":"VP1","invoice_id":"INV-1"}}`, code, words, words))
		}
	}
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	var texts []string
	g.handle("walletPay", echo(41))
	_, err := c.WalletPay(ctx, walletPayReq())
	texts = append(texts, err.Error())
	g.handle("walletPay", echo(100))
	res, err := c.WalletPay(ctx, walletPayReq())
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, res.Error)
	g.handle("refund", echo(100))
	rr, err := c.Refund(ctx, refundReq())
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, rr.StatusDescription)
	raw, err := c.Do(ctx, Request{Path: "/api/refund", Body: []byte(`{"invoice_id":"INV-1","hash_key":"a-hash-key-of-my-own"}`)})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, string(raw.Body))
	for _, text := range texts {
		if !strings.Contains(text, "•••") {
			t.Errorf("nothing scrubbed in %q", text)
		}
		for _, secret := range []string{testAppSecret, testAppID, testMerchantKey, "ada@example.com", walletPayReq().WalletTransientToken, "a-hash-key-of-my-own"} {
			if strings.Contains(text, secret) {
				t.Errorf("%q holds %q", text, secret)
			}
		}
	}
}
