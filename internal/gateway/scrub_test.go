package gateway

import (
	"context"
	"encoding/json"
	"fmt"
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
	g := newGateway(t)
	// echo is an answer that repeats what the request carried (the hash_key
	// the client makes is random, so not it) and the credentials.
	echo := func(name string, code int, sent map[string]any) {
		words, _ := json.Marshal(fmt.Sprintf("%v %v %v %v %v %s %s", sent["hash_key"], sent["merchant_key"], sent["wallet_transient_token"],
			sent["bill_email"], sent["app_secret"], testAppSecret, testAppID))
		answerText(g, name, 200, fmt.Sprintf(`{"status_code":%d,"status_description":%s,"invoice_id":"INV-1","data":{"error":%s,"order_no":"VP1","invoice_id":"INV-1"}}`, code, words, words))
	}
	wallet := map[string]any{"merchant_key": testMerchantKey, "wallet_transient_token": walletPayReq().WalletTransientToken, "bill_email": "ada@example.com"}
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	var texts []string
	echo("walletPay", 41, wallet)
	_, err := c.WalletPay(ctx, walletPayReq())
	texts = append(texts, err.Error())
	echo("walletPay", 100, wallet)
	res, err := c.WalletPay(ctx, walletPayReq())
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, res.Error)
	echo("refund", 100, map[string]any{"merchant_key": testMerchantKey, "app_secret": testAppSecret})
	rr, err := c.Refund(ctx, refundReq())
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, rr.StatusDescription)
	echo("refund", 100, map[string]any{"hash_key": "a-hash-key-of-my-own"})
	raw, err := c.Do(ctx, Request{Path: "/api/refund", Body: []byte(`{"invoice_id":"INV-1","hash_key":"a-hash-key-of-my-own"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for name, sent := range map[string]any{"merchant_key": testMerchantKey, "bill_email": "ada@example.com", "wallet_transient_token": wallet["wallet_transient_token"]} {
		if g.Last(api("walletPay")).Fields[name] != sent {
			t.Errorf("walletPay sent %s %v, not what the answer repeats", name, g.Last(api("walletPay")).Fields[name])
		}
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
