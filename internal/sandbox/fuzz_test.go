package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzRequestBodies sends arbitrary bodies to every operation: the sandbox
// must always answer JSON with a status_code (or a 401/413 message), never
// panic, and never store a sale or save a card without a valid hash_key.
func FuzzRequestBodies(f *testing.F) {
	f.Add("/api/walletPay", `{"merchant_key":"k","hash_key":"a:b:c","invoice_id":"I","wallet_transient_token":"x.y.z","name":"n","surname":"s","bill_email":"a@b.c"}`, "application/json")
	f.Add("/api/commissions", `{"currency_code":"TRY","commission_by":"user","app_lang":"tr"}`, "application/json")
	f.Add("/api/checkstatus", `invoice_id=1&merchant_key=2&hash_key=3`, "application/x-www-form-urlencoded")
	f.Add("/api/token", `{"app_id":1e400,"app_secret":[]}`, "application/json")
	f.Add("/api/walletPay", `{"a":1}{"b":2}`, "text/plain")
	f.Add("/api/refund", `{"invoice_id":"I","amount":"1","app_id":"a","app_secret":"s","merchant_key":"k","hash_key":"a:b:c"}`, "application/json")
	f.Add("/api/paySmart2D", `{"items":[{"price":1,"quantity":1}],"cc_no":"4355084355084358","total":1}`, "application/json")
	f.Add("/api/paySmart3D", `cc_no=4355084355084358&return_url=http://x`, "application/x-www-form-urlencoded")
	f.Add("/api/confirmPayment", `{"invoice_id":"I","status":1,"total":1.5}`, "application/json")
	f.Add("/payment/complete", `{"invoice_id":"I","order_id":"VP1","status":"complete"}`, "application/json")
	f.Add("/api/getpos", `{"credit_card":"435508","amount":100,"currency_code":"TRY"}`, "application/json")
	f.Add("/api/installments", `{"merchant_key":{}}`, "application/json")
	f.Add(ChallengePath, `order_id=VP1&decision=approve`, "application/x-www-form-urlencoded")
	f.Add("/api/saveCard", `{"customer_number":5070,"card_number":4508034508034509,"expiry_month":12,"expiry_year":2099,"hash_key":"a:b:c"}`, "application/json")
	f.Add("/api/editCard", `{"card_token":"t","customer_number":"1","expiry_month":"1","expiry_year":"2098"}`, "application/json")
	f.Add("/api/deleteCard", `card_token=t&customer_number=1`, "application/x-www-form-urlencoded")
	f.Add("/api/getCardTokens", `{"merchant_key":"k","customer_number":[1]}`, "application/json")
	f.Add("/api/payByCardToken", `{"card_token":"t","customer_number":"1","total":1}`, "application/json")
	f.Add("/purchase/link", `{"invoice":"{\"invoice_id\":\"I\",\"total\":1}","name":"n","surname":"s"}`, "application/json")
	dir := f.TempDir()
	store, err := OpenStore(dir, time.Second, testStart)
	if err != nil {
		f.Fatal(err)
	}
	defer store.Close()
	gw, err := New(Options{Store: store, Now: func() time.Time { return testStart }, MaxBodyBytes: 4096})
	if err != nil {
		f.Fatal(err)
	}
	bearer, _, _ := issueBearer(AppID, testStart, time.Hour, "fuzz")
	f.Fuzz(func(t *testing.T, path, body, ctype string) {
		switch path {
		case "/api/walletPay", "/api/commissions", "/api/checkstatus", "/api/token", "/api/refund", "/api/paySmart2D",
			"/api/paySmart3D", "/api/confirmPayment", "/payment/complete", "/api/getpos", "/api/installments", ChallengePath,
			"/api/saveCard", "/api/editCard", "/api/deleteCard", "/api/getCardTokens", "/api/payByCardToken", "/purchase/link":
		default:
			path = "/api/walletPay"
		}
		req := httptest.NewRequest("POST", Base+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", bearer)
		req.Header.Set("Accept", "application/json")
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not JSON: %q", rec.Body.String())
		}
		if _, ok := out["status_code"]; !ok && rec.Code != 401 {
			t.Fatalf("HTTP %d without status_code: %s", rec.Code, rec.Body.String())
		}
		if sales, _ := store.Sales(); len(sales) != 0 {
			t.Fatalf("a fuzzed request stored a sale: %+v", sales)
		}
		if n := store.cardCount(t); n != 0 {
			t.Fatalf("a fuzzed request saved %d cards", n)
		}
	})
}

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"delay=2s", "status=503", "reset=before", "truncate=20", "delay=1ms, truncate=0", "=", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ft, err := parseFault(v)
		if err != nil {
			return
		}
		if ft.status != 0 && (ft.status < 100 || ft.status > 599) || ft.truncate < -1 ||
			(ft.reset != "" && ft.reset != "before" && ft.reset != "after") {
			t.Fatalf("%q parsed to %+v", v, ft)
		}
	})
}
