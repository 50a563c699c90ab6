package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// fuzzMerchant is a fuzz gateway holding a completed sale (FZ-PAID,
// 150.00 TRY) and an open pre-authorization (FZ-PRE, 200.00 TRY), with a
// bearer token.
func fuzzMerchant(f *testing.F, mod ...func(*Options)) (*Gateway, *Store, string) {
	f.Helper()
	gw, store := fuzzGateway(f)
	for _, m := range mod {
		m(&gw.opts)
	}
	bearer, _, _ := issueBearer(AppID, testStart, time.Hour, "fuzz")
	now := testStart
	tok, _ := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard,
		Wallet: WalletDeviceVendor, TTL: time.Hour}, now, "fz-paid")
	for path, body := range map[string]any{
		"/api/walletPay":  payBody(f, "FZ-PAID", tok, "150.00", "TRY"),
		"/api/paySmart2D": cardBody(f, "FZ-PRE", "4355084355084358", "200.00", "TRY", 1, TypePreAuth),
	} {
		data, _ := json.Marshal(body)
		req := httptest.NewRequest("POST", Base+path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+bearer)
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if !bytes.Contains(rec.Body.Bytes(), []byte(`"status_code":100`)) {
			f.Fatalf("%s: %s", path, rec.Body)
		}
	}
	return gw, store, bearer
}

// serveMerchant sends a fuzzed body to path and checks what every answer
// must be: a JSON object with a status_code, holding no Luhn-valid card
// number of the request.
func serveMerchant(t *testing.T, gw *Gateway, bearer, path string, body []byte) map[string]any {
	t.Helper()
	req := httptest.NewRequest("POST", Base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	code, out := serveFuzzed(t, gw, req)
	if _, ok := out["status_code"].(float64); !ok {
		t.Fatalf("HTTP %d without status_code: %v", code, out)
	}
	var sent map[string]any
	if json.Unmarshal(body, &sent) == nil {
		if cc, ok := sent["cc_no"].(string); ok && len(cc) >= 13 && ValidateCardNumber(cc) == nil {
			raw, _ := json.Marshal(out)
			if strings.Contains(string(raw), cc) {
				t.Fatalf("answer holds the card number: %s", raw)
			}
		}
	}
	return out
}

// checkSales checks the store's invariants: nothing refunded beyond what
// was charged, nothing captured beyond what was held, and no full card
// number stored.
func checkSales(t *testing.T, store *Store, card string) {
	t.Helper()
	sales, err := store.Sales()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sales {
		if s.Refunded().GreaterThan(s.Charged()) {
			t.Fatalf("%s: refunded %s of %s charged", s.InvoiceID, s.Refunded(), s.Charged())
		}
		if p := s.PreAuth; p != nil && p.Captured != "" {
			held, captured := decimal.RequireFromString(p.Held), decimal.RequireFromString(p.Captured)
			if captured.GreaterThan(held) || p.State != PreAuthCaptured {
				t.Fatalf("%s: pre-authorization %+v", s.InvoiceID, p)
			}
		}
		if len(card) >= 13 && ValidateCardNumber(card) == nil {
			raw, _ := json.Marshal(s)
			if strings.Contains(string(raw), card) {
				t.Fatalf("card number stored: %s", raw)
			}
		}
	}
}

// FuzzRefundBody sends arbitrary refund bodies, some with a valid hash_key
// for their amount and invoice: the refunded total of a sale never exceeds
// what it charged.
func FuzzRefundBody(f *testing.F) {
	for _, s := range []struct{ inv, amount, rtid string }{
		{"FZ-PAID", "50.00", "r1"}, {"FZ-PAID", "150.01", "r2"}, {"FZ-PAID", "0.01", "r1"}, {"FZ-PRE", "1", ""},
		{"FZ-NONE", "1", ""}, {"FZ-PAID", "-1", ""}, {"FZ-PAID", "1e3", ""}, {"FZ-PAID", "1.001", ""},
	} {
		f.Add(s.inv, s.amount, s.rtid, true, "")
	}
	f.Add("FZ-PAID", "1", "", false, `{"amount":[1]}`)
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, amount, rtid string, hashed bool, raw string) {
		body := []byte(raw)
		if hashed {
			b := refundBody(t, invoice, amount, rtid)
			body, _ = json.Marshal(b)
		}
		serveMerchant(t, gw, bearer, "/api/refund", body)
		checkSales(t, store, "")
	})
}

// FuzzCardPaymentBody sends arbitrary paySmart2D bodies, with a valid
// hash_key for their total, installments, currency and invoice: the card
// number never reaches an answer or the store.
func FuzzCardPaymentBody(f *testing.F) {
	f.Add("FZ-C1", "4355084355084358", "10.00", "TRY", 1, "Auth", "")
	f.Add("FZ-C2", "4355080000003009", "10.00", "TRY", 1, "PreAuth", "")
	f.Add("FZ-C3", "4111111111111111", "10.41", "USD", 2, "Auth", "")
	f.Add("FZ-C4", "5406675406675403", "1e2", "try", 12, "", `[{"price":"1","quantity":"x"}]`)
	f.Add("FZ-C5", "12", "0", "TRY", -1, "Sale", `"not a list"`)
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, card, total, currency string, n int, txType, items string) {
		b := cardBody(t, invoice, card, total, currency, n, txType)
		if items != "" {
			b["items"] = items
		}
		body, _ := json.Marshal(b)
		serveMerchant(t, gw, bearer, "/api/paySmart2D", body)
		checkSales(t, store, card)
	})
}

// FuzzConfirmBody sends arbitrary confirmPayment requests with valid
// hash_keys: a pre-authorization is never captured twice, after a cancel,
// or above its held amount.
func FuzzConfirmBody(f *testing.F) {
	f.Add("FZ-PRE", "1", "150")
	f.Add("FZ-PRE", "2", "")
	f.Add("FZ-PRE", "1", "200.01")
	f.Add("FZ-PAID", "1", "")
	f.Add("FZ-PRE", "3", "-1")
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, status, total string) {
		body, _ := json.Marshal(confirmBody(t, invoice, status, total))
		before, _, _ := store.Get("FZ-PRE")
		out := serveMerchant(t, gw, bearer, "/api/confirmPayment", body)
		after, _, _ := store.Get("FZ-PRE")
		if out["status_code"] == 100.0 && invoice == "FZ-PRE" && before.PreAuth.State != PreAuthOpen {
			t.Fatalf("a %s pre-authorization was confirmed again: %+v", before.PreAuth.State, after.PreAuth)
		}
		checkSales(t, store, "")
	})
}

// FuzzCompleteBody sends arbitrary /payment/complete requests with valid
// hash_keys: every answer is JSON with a status_code, and only a 3D sale
// waiting for the merchant is ever completed.
func FuzzCompleteBody(f *testing.F) {
	f.Add("FZ-PAID", "VP1", "complete")
	f.Add("FZ-PRE", "", "cancel")
	f.Add("FZ-NONE", "x", "done")
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, order, status string) {
		before, found, _ := store.Get(invoice)
		body, _ := json.Marshal(completeBody(t, invoice, order, status))
		out := serveMerchant(t, gw, bearer, "/payment/complete", body)
		if out["status_code"] == 100.0 && (!found || before.State != StateAwaitingCompletion) {
			t.Fatalf("completed a sale in state %q (found %v)", before.State, found)
		}
	})
}

// FuzzGetposBody sends arbitrary getpos bodies: a success lists options
// whose payable amount is never below the amount asked for.
func FuzzGetposBody(f *testing.F) {
	for _, s := range []string{
		`{"credit_card":"435508","amount":1000,"currency_code":"TRY","merchant_key":"` + MerchantKey + `"}`,
		`{"credit_card":"4355084355084358","amount":"100.5","currency_code":"usd","merchant_key":"` + MerchantKey + `","commission_by":"user"}`,
		`{"credit_card":"111111","amount":"1e400","currency_code":"TRY","merchant_key":"` + MerchantKey + `"}`,
		`{"credit_card":"","amount":-1}`, `[]`, `{"credit_card":{"a":1}}`,
	} {
		f.Add([]byte(s))
	}
	gw, _, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		out := serveMerchant(t, gw, bearer, "/api/getpos", body)
		if out["status_code"] != 100.0 {
			return
		}
		var in struct {
			Amount json.Number `json:"amount"`
		}
		_ = json.Unmarshal(body, &in)
		asked, err := decimal.NewFromString(strings.Trim(in.Amount.String(), `"`))
		for _, o := range out["data"].([]any) {
			payable, _ := decimal.NewFromString(jsonText(o.(map[string]any)["payable_amount"]))
			if err == nil && payable.LessThan(asked) {
				t.Fatalf("payable %s below the amount %s", payable, asked)
			}
		}
	})
}

func jsonText(v any) string { b, _ := json.Marshal(v); return strings.Trim(string(b), `"`) }

// FuzzChallengeBody answers 3D challenges with arbitrary form bodies: the
// answer is JSON (the client asks for it) with a status_code.
func FuzzChallengeBody(f *testing.F) {
	f.Add("order_id=VP1&decision=approve")
	f.Add("decision=decline")
	f.Add("%zz")
	gw, store, _ := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, form string) {
		req := httptest.NewRequest("POST", Base+ChallengePath, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		_, out := serveFuzzed(t, gw, req)
		if _, ok := out["status_code"].(float64); !ok {
			t.Fatalf("no status_code: %v", out)
		}
		checkSales(t, store, "")
	})
}

// FuzzPaySmart3DForm posts arbitrary form bodies to paySmart3D, starting
// from a valid payment whose fields the fuzzer may override: the answer is
// the sandbox's challenge page (and the sale waits for its challenge) or
// JSON with a status_code, and the card number reaches neither the answer
// nor the store.
func FuzzPaySmart3DForm(f *testing.F) {
	f.Add("FZ-3D-1", "4355084355084358", "10.00", "merchant", "")
	f.Add("FZ-3D-2", "4355080000003009", "10.69", "app", "return_url=javascript:alert(1)")
	f.Add("FZ-3D-3", "4111111111111111", "1.001", "bank", "cc_no=&cvv=1")
	f.Add("FZ-3D-4", "12", "x", "", "%zz")
	gw, store, _ := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, card, total, by, extra string) {
		form := threeDBody(t, invoice, card, total, by, TypeAuth)
		if q, err := url.ParseQuery(extra); err == nil {
			for k, v := range q {
				form[k] = v
			}
		}
		req := httptest.NewRequest("POST", Base+"/api/paySmart3D", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		body := rec.Body.String()
		if len(card) >= 13 && ValidateCardNumber(card) == nil && strings.Contains(body, card) {
			t.Fatalf("answer holds the card number: %s", body)
		}
		if isRefusalPage(body) {
			if !strings.Contains(body, `action="`+form.Get("cancel_url")+`"`) {
				t.Fatalf("refusal page not posted to the cancel_url: %s", body)
			}
		} else if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			sale, ok, _ := store.Get(form.Get("invoice_id"))
			if !strings.Contains(body, "This is a sandbox") || !ok || sale.Kind != KindCard3D {
				t.Fatalf("challenge page without a 3D sale waiting (%v %+v): %s", ok, sale, body)
			}
		} else {
			var out map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out["status_code"] == nil {
				t.Fatalf("answer is neither the challenge page nor JSON: %q", body)
			}
		}
		checkSales(t, store, card)
	})
}
