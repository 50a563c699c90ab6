package sandbox

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// linkBody is a valid /purchase/link request: the invoice is a JSON string,
// as the gateway's PHP SDK sends it.
func linkBody(t testing.TB, invoice, total string, maxInst int) map[string]any {
	inv := map[string]any{"invoice_id": invoice, "invoice_description": "Order <b>42</b>", "total": json.Number(total),
		"items":           []map[string]any{{"name": "Item", "price": json.Number(total), "quantity": 1, "description": "d"}},
		"max_installment": maxInst, "return_url": "https://merchant.test/ok", "cancel_url": "https://merchant.test/fail",
		"bill_email": "ayse@example.com", "hash_key": hashOf(t, total, "TRY", MerchantKey, invoice)}
	text, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"merchant_key": MerchantKey, "invoice": string(text), "currency_code": "TRY", "name": "Ayşe", "surname": "Yılmaz"}
}

// page fetches a sandbox page as a browser would, returning its status and text.
func (fx *fixture) page(method, path string, form url.Values) (int, string) {
	fx.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func linkForm(card string, installments string) url.Values {
	return url.Values{"cc_holder_name": {"Ayşe Yılmaz"}, "cc_no": {card}, "expiry_month": {"12"}, "expiry_year": {"2099"},
		"cvv": {"123"}, "installments_number": {installments}}
}

func TestPaymentLink(t *testing.T) {
	fx := newFixture(t)
	res := fx.authed("/purchase/link", linkBody(t, "INV-L1", "300", 3))
	link, _ := res.Body["link"].(string)
	if res.status() != 100 || !strings.HasPrefix(link, "http://example.com"+Base+LinkPath) || res.Body["order_id"] == "" {
		t.Fatalf("purchase/link: %s", res.Raw)
	}
	path := strings.TrimPrefix(link, "http://example.com")

	// Before the buyer pays, check status finds the order.
	st := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-L1"))
	if st.status() != 100 || st.Body["transaction_status"] != "Awaiting Payment" || st.Body["link_status"] != "awaiting_payment" ||
		st.Body["order_id"] != res.Body["order_id"] {
		t.Errorf("checkstatus of an unpaid link: %s", st.Raw)
	}
	// The invoice is taken.
	if again := fx.authed("/purchase/link", linkBody(t, "INV-L1", "300", 3)); again.status() != 3 {
		t.Errorf("second link for the invoice: %s", again.Raw)
	}

	code, page := fx.page("GET", path, nil)
	if code != 200 || !strings.Contains(page, "This is a sandbox") || !strings.Contains(page, "Pay 300.00 TRY") ||
		!strings.Contains(page, "Order &lt;b&gt;42&lt;/b&gt;") || !strings.Contains(page, "<option>3</option>") || strings.Contains(page, "<option>4</option>") {
		t.Fatalf("link page (%d): %s", code, page)
	}
	// A mistake shows the form again, without the card number.
	code, page = fx.page("POST", path, linkForm("4355084355084359", "1"))
	if code != 400 || !strings.Contains(page, "not a valid card number") || strings.Contains(page, "4355084355084359") {
		t.Errorf("bad card (%d): %s", code, page)
	}
	code, page = fx.page("POST", path, linkForm("4355084355084358", "4"))
	if code != 400 || !strings.Contains(page, "Choose from 1 to 3 installments") {
		t.Errorf("too many installments (%d): %s", code, page)
	}

	code, page = fx.page("POST", path, linkForm("4355084355084358", "3"))
	if code != 200 || !strings.Contains(page, "3D Secure challenge") || strings.Contains(page, "4355084355084358") {
		t.Fatalf("paying (%d): %s", code, page)
	}
	sale, _, _ := fx.store.Get("INV-L1")
	if sale.Kind != KindLink || sale.State != StateAwaiting3D || sale.Installment != 3 || sale.OrderID != res.Body["order_id"] || sale.CardProgram == "" {
		t.Fatalf("sale after the card form: %+v", sale)
	}
	ch := fx.answerChallenge(sale.OrderID, "approve")
	if ch.status() != 100 || ch.Body["url"] != "https://merchant.test/ok" || ch.Body["status"] != "1" {
		t.Fatalf("challenge: %s", ch.Raw)
	}
	st = fx.authed("/api/checkstatus", statusBodyFor(t, "INV-L1"))
	if st.Body["transaction_status"] != "Completed" || st.Body["link_status"] != "used" || st.Body["installment"] != float64(3) {
		t.Errorf("checkstatus after paying: %s", st.Raw)
	}
	// A used link pays no more.
	code, page = fx.page("POST", path, linkForm("4355084355084358", "1"))
	if code != 200 || !strings.Contains(page, "This link was used") {
		t.Errorf("paying a used link (%d): %s", code, page)
	}
	if code, _ := fx.page("GET", Base+LinkPath+"nope", nil); code != 404 {
		t.Errorf("unknown link: %d", code)
	}
}

func TestPaymentLinkRefusals(t *testing.T) {
	fx := newFixture(t)
	for name, tc := range map[string]struct {
		change func(map[string]any)
		code   int
	}{
		"merchant":     {func(b map[string]any) { b["merchant_key"] = "x" }, 14},
		"invoice text": {func(b map[string]any) { b["invoice"] = "not json" }, 1},
		"currency":     {func(b map[string]any) { b["currency_code"] = "XXX" }, 12},
		"e-mail": {func(b map[string]any) {
			b["invoice"] = strings.Replace(b["invoice"].(string), `"ayse@example.com"`, `"Ayşe \u003cayse@example.com\u003e"`, 1)
		}, 1},
		"phone": {func(b map[string]any) {
			b["invoice"] = strings.Replace(b["invoice"].(string), `"bill_email"`, `"bill_phone":"+90 555 555 55 55","bill_email"`, 1)
		}, 1},
		"hash": {func(b map[string]any) {
			b["invoice"] = strings.Replace(b["invoice"].(string), `"total":300`, `"total":301`, 1)
		}, 68},
	} {
		b := linkBody(t, "INV-R", "300", 1)
		tc.change(b)
		if res := fx.authed("/purchase/link", b); res.status() != tc.code {
			t.Errorf("%s: got %d, want %d: %s", name, res.status(), tc.code, res.Raw)
		}
	}
	if _, found, _ := fx.store.Get("INV-R"); found {
		t.Error("a refused link stored a sale")
	}
	// The invoice may also be sent as a JSON object.
	b := linkBody(t, "INV-O", "300", 1)
	var inv map[string]any
	_ = json.Unmarshal([]byte(b["invoice"].(string)), &inv)
	b["invoice"] = inv
	if res := fx.authed("/purchase/link", b); res.status() != 100 {
		t.Errorf("invoice as an object: %s", res.Raw)
	}
}

// TestPaymentLinkPaysOnce posts a link's card form from many buyers at
// once: exactly one reaches the challenge, the others are told the link
// was used.
func TestPaymentLinkPaysOnce(t *testing.T) {
	fx := newFixture(t)
	res := fx.authed("/purchase/link", linkBody(t, "INV-RACE", "50", 1))
	path := strings.TrimPrefix(res.Body["link"].(string), "http://example.com")
	pages := make(chan string, 8)
	for range 8 {
		go func() {
			req := httptest.NewRequest("POST", path, strings.NewReader(linkForm("4355084355084358", "1").Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			fx.gw.ServeHTTP(rec, req)
			pages <- rec.Body.String()
		}()
	}
	challenges, used := 0, 0
	for range 8 {
		switch page := <-pages; {
		case strings.Contains(page, "3D Secure challenge"):
			challenges++
		case strings.Contains(page, "This link was used"):
			used++
		default:
			t.Errorf("unexpected page: %s", page)
		}
	}
	if challenges != 1 || used != 7 {
		t.Errorf("%d buyers reached the challenge and %d were told the link was used; want 1 and 7", challenges, used)
	}
}
