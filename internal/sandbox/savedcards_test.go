package sandbox

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

func hashOf(t testing.TB, parts ...string) string {
	t.Helper()
	hk, err := hashkey.Generate(AppSecret, strings.Join(parts, "|"))
	if err != nil {
		t.Fatal(err)
	}
	return hk
}

// saveCardBody is a valid /api/saveCard request, with the card number and
// customer number as JSON numbers, as the gateway's PHP SDK sends them.
func saveCardBody(t testing.TB, customer int, number int64) map[string]any {
	c, n := itoa(int64(customer)), itoa(number)
	return map[string]any{"merchant_key": MerchantKey, "card_holder_name": "Ayşe Yılmaz", "card_number": number,
		"expiry_month": 12, "expiry_year": 2099, "customer_number": customer, "customer_name": "Ayşe Yılmaz",
		"customer_email": "ayse@example.com", "customer_phone": "905555555555",
		"hash_key": hashOf(t, MerchantKey, c, "Ayşe Yılmaz", n, "12", "2099")}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// callRawJSON posts a JSON body with a bearer token; the answer may be a
// page (Body stays nil) or JSON.
func (fx *fixture) callRawJSON(path string, body any) response {
	fx.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		fx.t.Fatal(err)
	}
	req := httptest.NewRequest("POST", Base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", fx.bearer())
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	res := response{Code: rec.Code, Raw: rec.Body.Bytes()}
	_ = json.Unmarshal(res.Raw, &res.Body)
	return res
}

// answerChallenge answers a 3D challenge, asking for the result as JSON.
func (fx *fixture) answerChallenge(orderID, decision string) response {
	fx.t.Helper()
	return fx.call("POST", Base+ChallengePath, url.Values{"order_id": {orderID}, "decision": {decision}}.Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
}

func (fx *fixture) saveCard(customer int, number int64) string {
	fx.t.Helper()
	res := fx.authed("/api/saveCard", saveCardBody(fx.t, customer, number))
	if res.status() != 100 {
		fx.t.Fatalf("saveCard: %s", res.Raw)
	}
	tok, _ := res.Body["card_token"].(string)
	if len(tok) != 32 {
		fx.t.Fatalf("saveCard answered card_token %q", tok)
	}
	return tok
}

func (fx *fixture) cardList(customer string) []any {
	fx.t.Helper()
	res := fx.call("GET", Base+"/api/getCardTokens", map[string]any{"merchant_key": MerchantKey, "customer_number": customer},
		map[string]string{"Authorization": fx.bearer()})
	if res.status() != 100 {
		fx.t.Fatalf("getCardTokens: %s", res.Raw)
	}
	list, ok := res.Body["data"].([]any)
	if !ok {
		fx.t.Fatalf("getCardTokens data is not a list: %s", res.Raw)
	}
	return list
}

func TestSavedCardsLifecycle(t *testing.T) {
	fx := newFixture(t)
	tok := fx.saveCard(5070, 4508034508034509)
	other := fx.saveCard(5070, 4355080000000054)
	fx.saveCard(9999, 5406675406675403)

	list := fx.cardList("5070")
	if len(list) != 2 {
		t.Fatalf("customer 5070 has %d cards, want 2: %v", len(list), list)
	}
	first := list[0].(map[string]any)
	if first["card_token"] != tok || first["card_number"] != "450803******4509" || first["customer_number"] != "5070" ||
		first["id"] != float64(1) || first["customer_email"] != "ayse@example.com" {
		t.Errorf("first card: %v", first)
	}
	// The query form of the list works too, and a customer without cards has an empty list.
	res := fx.call("GET", Base+"/api/getCardTokens?merchant_key="+url.QueryEscape(MerchantKey)+"&customer_number=1", nil,
		map[string]string{"Authorization": fx.bearer()})
	if res.status() != 100 || len(res.Body["data"].([]any)) != 0 {
		t.Errorf("empty list: %s", res.Raw)
	}

	// Edit: the token is scoped to its customer.
	edit := func(customer, token string) response {
		return fx.authed("/api/editCard", map[string]any{"merchant_key": MerchantKey, "card_token": token, "customer_number": customer,
			"expiry_month": "01", "expiry_year": "2098", "card_holder_name": "Ayşe Kaya", "hash_key": hashOf(t, MerchantKey, customer, token)})
	}
	if res := edit("9999", tok); res.status() != 1 {
		t.Errorf("another customer edited the card: %s", res.Raw)
	}
	if res := edit("5070", tok); res.status() != 100 || res.Body["expiry_year"] != "2098" || res.Body["card_holder_name"] != "Ayşe Kaya" {
		t.Errorf("edit: %s", res.Raw)
	}
	// The holder's name alone changes it and keeps the expiry; an edit of
	// nothing, or of a month without its year, is refused (issue 43).
	holderOnly := func(fields map[string]any) response {
		body := map[string]any{"merchant_key": MerchantKey, "card_token": tok, "customer_number": "5070", "hash_key": hashOf(t, MerchantKey, "5070", tok)}
		maps.Copy(body, fields)
		return fx.authed("/api/editCard", body)
	}
	if res := holderOnly(map[string]any{"card_holder_name": "Ayşe Demir"}); res.status() != 100 || res.Body["card_holder_name"] != "Ayşe Demir" ||
		res.Body["expiry_month"] != "01" || res.Body["expiry_year"] != "2098" {
		t.Errorf("edit of the holder alone: %s", res.Raw)
	}
	if res := holderOnly(nil); res.status() != 1 {
		t.Errorf("edit of nothing: %s", res.Raw)
	}
	if res := holderOnly(map[string]any{"expiry_month": "02"}); res.status() != 1 {
		t.Errorf("edit of a month without its year: %s", res.Raw)
	}
	bad := map[string]any{"merchant_key": MerchantKey, "card_token": tok, "customer_number": "5070", "expiry_month": "01",
		"expiry_year": "2098", "hash_key": hashOf(t, MerchantKey, "5071", tok)}
	if res := fx.authed("/api/editCard", bad); res.status() != 68 {
		t.Errorf("edit with a hash_key for another customer: %s", res.Raw)
	}

	// Delete: the token is gone from the list and pays no more.
	del := map[string]any{"merchant_key": MerchantKey, "card_token": other, "customer_number": "5070", "hash_key": hashOf(t, MerchantKey, "5070", other)}
	if res := fx.authed("/api/deleteCard", del); res.status() != 100 || res.Body["card_token"] != other {
		t.Fatalf("delete: %s", res.Raw)
	}
	if res := fx.authed("/api/deleteCard", del); res.status() != 1 {
		t.Errorf("second delete: %s", res.Raw)
	}
	if list := fx.cardList("5070"); len(list) != 1 {
		t.Errorf("after delete: %v", list)
	}
	if res := fx.payByToken("INV-DEL", other, "5070", "100.00", ""); res.status() != 1 {
		t.Errorf("payment with a deleted card: %s", res.Raw)
	}

	// Saved cards survive a restart.
	fx.store.Close()
	fx.open()
	if list := fx.cardList("5070"); len(list) != 1 || list[0].(map[string]any)["card_token"] != tok {
		t.Errorf("after reopening: %v", list)
	}
}

func TestSaveCardRefusals(t *testing.T) {
	fx := newFixture(t)
	for name, tc := range map[string]struct {
		change func(map[string]any)
		code   int
	}{
		"bad luhn":       {func(b map[string]any) { b["card_number"] = 4508034508034508 }, 1},
		"expired":        {func(b map[string]any) { b["expiry_year"] = 2020 }, 1},
		"merchant":       {func(b map[string]any) { b["merchant_key"] = "nope" }, 14},
		"hash garbage":   {func(b map[string]any) { b["hash_key"] = "x" }, 90},
		"hash other":     {func(b map[string]any) { b["card_holder_name"] = "Someone Else" }, 68},
		"pipe":           {func(b map[string]any) { b["customer_number"] = "1|2" }, 1},
		"missing holder": {func(b map[string]any) { delete(b, "card_holder_name") }, 1},
	} {
		b := saveCardBody(t, 5070, 4508034508034509)
		tc.change(b)
		res := fx.authed("/api/saveCard", b)
		if res.status() != tc.code {
			t.Errorf("%s: got %d, want %d: %s", name, res.status(), tc.code, res.Raw)
		}
		if bytes.Contains(res.Raw, []byte("4508034508034509")) || bytes.Contains(res.Raw, []byte("4508034508034508")) {
			t.Errorf("%s: the answer holds the card number: %s", name, res.Raw)
		}
	}
	if res := fx.call("POST", Base+"/api/saveCard", saveCardBody(t, 1, 4508034508034509), nil); res.Code != 401 {
		t.Errorf("saveCard without a bearer token: %d", res.Code)
	}
	if list := fx.cardList("5070"); len(list) != 0 {
		t.Errorf("refused saves stored cards: %v", list)
	}
}

// payByTokenBody is a valid /api/payByCardToken request.
func payByTokenBody(t testing.TB, invoice, token, customer, total, by string) map[string]any {
	return map[string]any{"merchant_key": MerchantKey, "currency_code": "TRY", "card_token": token, "customer_number": customer,
		"customer_email": "ayse@example.com", "customer_phone": "905555555555", "customer_name": "Ayşe Yılmaz",
		"items": `[{"name":"Item","price":` + total + `,"quantity":1,"description":"d"}]`, "installments_number": "1",
		"name": "Ayşe", "surname": "Yılmaz", "invoice_id": invoice, "total": total,
		"return_url": "https://merchant.test/ok", "cancel_url": "https://merchant.test/fail", "payment_completed_by": by,
		"hash_key": hashOf(t, total, "1", "TRY", MerchantKey, invoice)}
}

// payByToken posts a payment by card token; the answer is the challenge
// page (as text in Raw) or a JSON refusal.
func (fx *fixture) payByToken(invoice, token, customer, total, by string) response {
	fx.t.Helper()
	body := payByTokenBody(fx.t, invoice, token, customer, total, by)
	req := fx.callRawJSON("/api/payByCardToken", body)
	return req
}

func TestPayByCardToken(t *testing.T) {
	fx := newFixture(t)
	ok := fx.saveCard(5070, 4355084355084358)
	declined := fx.saveCard(5070, 4355080000000518)

	res := fx.payByToken("INV-T1", ok, "5070", "150.00", "")
	if res.Code != 200 || !strings.Contains(string(res.Raw), "3D Secure challenge") {
		t.Fatalf("payByCardToken: %d %s", res.Code, res.Raw)
	}
	sale, _, _ := fx.store.Get("INV-T1")
	if sale.Kind != KindCardToken || sale.State != StateAwaiting3D || sale.CardBIN != "435508" || sale.CardLast4 != "4358" {
		t.Fatalf("sale: %+v", sale)
	}
	ch := fx.answerChallenge(sale.OrderID, "approve")
	if ch.status() != 100 || ch.Body["status"] != "1" || ch.Body["url"] != "https://merchant.test/ok" {
		t.Fatalf("challenge: %s", ch.Raw)
	}
	if st := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-T1")); st.Body["transaction_status"] != "Completed" || st.Body["payment_kind"] != KindCardToken {
		t.Errorf("checkstatus: %s", st.Raw)
	}

	// The outcome decided at save time: a declining test card declines.
	fx.payByToken("INV-T2", declined, "5070", "150.00", "")
	sale, _, _ = fx.store.Get("INV-T2")
	if ch := fx.answerChallenge(sale.OrderID, "approve"); ch.status() != 41 || ch.Body["url"] != "https://merchant.test/fail" {
		t.Errorf("declining saved card: %s", ch.Raw)
	}

	// Invoice ids are shared with every other kind of payment.
	if res := fx.pay("INV-W", "10.00", "TRY"); res.status() != 100 {
		t.Fatal(string(res.Raw))
	}
	if res := fx.payByToken("INV-W", ok, "5070", "150.00", ""); res.status() != 3 {
		t.Errorf("token payment reusing a walletPay invoice: %s", res.Raw)
	}
	// A token belongs to its customer.
	if res := fx.payByToken("INV-T3", ok, "5071", "150.00", ""); res.status() != 1 {
		t.Errorf("another customer's token: %s", res.Raw)
	}
	if _, found, _ := fx.store.Get("INV-T3"); found {
		t.Error("a refused token payment stored a sale")
	}
}

// TestSavedCardStateHoldsNoCardNumber saves and pays with cards, then
// reads the state file's bytes: no full card number may be in it.
func TestSavedCardStateHoldsNoCardNumber(t *testing.T) {
	fx := newFixture(t)
	numbers := []int64{4508034508034509, 4355084355084358, 5406675406675403}
	for i, n := range numbers {
		tok := fx.saveCard(100+i, n)
		fx.payByToken("INV-S"+formatInt(int64(i)), tok, formatInt(int64(100+i)), "10.00", "")
	}
	fx.store.Close()
	state, err := os.ReadFile(filepath.Join(fx.dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range numbers {
		full := formatInt(n)
		if bytes.Contains(state, []byte(full)) || bytes.Contains(state, []byte(full[6:])) {
			t.Errorf("the state file holds more of %s than its first six and last four digits", full)
		}
	}
	if !bytes.Contains(state, []byte("450803")) {
		t.Error("the state file does not hold the saved card's first digits: is this the right file?")
	}
}
