package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// fuzzCardOwner is the customer of the card fuzzSavedCard saves.
const fuzzCardOwner = "5070"

// fuzzSavedCard saves a card for fuzzCardOwner on a fuzz gateway and
// returns its token.
func fuzzSavedCard(f testing.TB, gw *Gateway, bearer string) string {
	f.Helper()
	body, _ := json.Marshal(saveCardBody(f, 5070, 4355084355084358))
	req := httptest.NewRequest("POST", Base+"/api/saveCard", bytes.NewReader(body))
	req.Header.Set("Authorization", bearer)
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	var out map[string]any
	if json.Unmarshal(rec.Body.Bytes(), &out) != nil || out["card_token"] == nil {
		f.Fatalf("saveCard: %s", rec.Body)
	}
	return out["card_token"].(string)
}

// cardCount counts every saved card, of any customer.
func (s *Store) cardCount(t *testing.T) int {
	t.Helper()
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket([]byte(cardsBucket)).Stats().KeyN
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkCards checks that no saved card holds a full card number: the
// stored JSON never contains number beyond its first six and last four.
func checkCards(t *testing.T, store *Store, number string) {
	t.Helper()
	if len(number) < 13 || ValidateCardNumber(number) != nil {
		return
	}
	for _, cust := range []string{fuzzCardOwner, "1", "5071"} {
		cards, err := store.Cards(cust)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(cards)
		if strings.Contains(string(raw), number[6:]) {
			t.Fatalf("a saved card holds the card number: %s", raw)
		}
	}
}

// FuzzSaveCardBody sends arbitrary saveCard bodies, with a valid hash_key
// for their values or raw: every answer is JSON with a status_code, no
// answer or saved card holds the card number, and a saved card is kept as
// its first six and last four digits.
func FuzzSaveCardBody(f *testing.F) {
	f.Add("5070", "4508034508034509", "John Doe", "12", "2099", true, "")
	f.Add("1", "4355080000000518", "A|B", "13", "2099", true, "")
	f.Add("", "12", "", "x", "", true, "")
	f.Add("5071", "4355084355084358", "Ayşe", "1", "26", false, `{"card_number":[4355084355084358]}`)
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, customer, number, holder, month, year string, hashed bool, raw string) {
		body := []byte(raw)
		if hashed {
			body, _ = json.Marshal(map[string]string{"merchant_key": MerchantKey, "customer_number": customer, "card_holder_name": holder,
				"card_number": number, "expiry_month": month, "expiry_year": year,
				"hash_key": hashOf(t, MerchantKey, customer, holder, number, month, year)})
		}
		out := serveMerchant(t, gw, bearer, "/api/saveCard", body)
		raw2, _ := json.Marshal(out)
		if n := strings.ReplaceAll(number, " ", ""); len(n) >= 13 && ValidateCardNumber(n) == nil && strings.Contains(string(raw2), n) {
			t.Fatalf("answer holds the card number: %s", raw2)
		}
		if out["status_code"] == 100.0 {
			if c, _ := out["card_number"].(string); len(c) != 16 || !strings.Contains(c, "******") {
				t.Fatalf("saved card answered as %q", c)
			}
		}
		checkCards(t, store, strings.ReplaceAll(number, " ", ""))
	})
}

// FuzzEditDeleteCardBody sends editCard and deleteCard requests with
// valid hash_keys for arbitrary customers and tokens: only the card's own
// customer, naming its token, ever changes or deletes it.
func FuzzEditDeleteCardBody(f *testing.F) {
	f.Add(fuzzCardOwner, "", "12", "2098", "Jane", false)
	f.Add("5071", "", "12", "2098", "", true)
	f.Add(fuzzCardOwner, "nope", "0", "1999", "x|y", true)
	gw, store, bearer := fuzzMerchant(f)
	token := fuzzSavedCard(f, gw, bearer)
	f.Fuzz(func(t *testing.T, customer, tok, month, year, holder string, del bool) {
		if tok == "" {
			tok = token
		}
		before, errBefore := store.Card(token, fuzzCardOwner)
		path := "/api/editCard"
		if del {
			path = "/api/deleteCard"
		}
		body, _ := json.Marshal(map[string]string{"merchant_key": MerchantKey, "customer_number": customer, "card_token": tok,
			"expiry_month": month, "expiry_year": year, "card_holder_name": holder, "hash_key": hashOf(t, MerchantKey, customer, tok)})
		out := serveMerchant(t, gw, bearer, path, body)
		after, errAfter := store.Card(token, fuzzCardOwner)
		changed := (errBefore == nil) != (errAfter == nil) || before != after
		if changed && (out["status_code"] != 100.0 || strings.TrimSpace(customer) != fuzzCardOwner || strings.TrimSpace(tok) != token) {
			t.Fatalf("%s by customer %q with token %q changed the card (answer %v)", path, customer, tok, out)
		}
		if errAfter != nil { // deleted: save it again for the next input
			token = fuzzSavedCard(t, gw, bearer)
		}
	})
}

// isRefusalPage reports whether a 3D answer is the page that posts a
// refusal to the cancel_url, with a status_code other than 100.
func isRefusalPage(body string) bool {
	_, code, ok := strings.Cut(body, `name="status_code" value="`)
	return ok && strings.Contains(body, `name="error_code"`) && !strings.HasPrefix(code, `100"`)
}

// FuzzPayByCardTokenBody sends payByCardToken bodies with valid hash_keys
// for arbitrary tokens, customers and amounts: the answer is the challenge
// page with a sale of the token's own customer waiting for it, or JSON
// with a status_code.
func FuzzPayByCardTokenBody(f *testing.F) {
	f.Add("FZ-T1", "", fuzzCardOwner, "10.00", "app", "")
	f.Add("FZ-T2", "", "5071", "10.00", "merchant", "")
	f.Add("FZ-PAID", "", fuzzCardOwner, "150.00", "", "")
	f.Add("FZ-T3", "x", fuzzCardOwner, "1e2", "bank", `[{"price":1}]`)
	gw, store, bearer := fuzzMerchant(f)
	token := fuzzSavedCard(f, gw, bearer)
	f.Fuzz(func(t *testing.T, invoice, tok, customer, total, by, items string) {
		if tok == "" {
			tok = token
		}
		b := payByTokenBody(t, invoice, tok, customer, total, by)
		if items != "" {
			b["items"] = items
		}
		data, _ := json.Marshal(b)
		req := httptest.NewRequest("POST", Base+"/api/payByCardToken", bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", bearer)
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if isRefusalPage(rec.Body.String()) {
			checkSales(t, store, "")
			return
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			sale, ok, _ := store.Get(strings.TrimSpace(invoice))
			if !ok || sale.Kind != KindCardToken || sale.State != StateAwaiting3D || tok != token || strings.TrimSpace(customer) != fuzzCardOwner {
				t.Fatalf("challenge page for customer %q token %q without its sale (%v %+v)", customer, tok, ok, sale)
			}
			return
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out["status_code"] == nil {
			t.Fatalf("answer is neither the challenge page nor JSON: %q", rec.Body.String())
		}
		checkSales(t, store, "")
	})
}

// FuzzPurchaseLinkBody sends /purchase/link bodies whose invoice is
// arbitrary text, or an invoice of arbitrary values with a valid
// hash_key: every answer is JSON with a status_code, and a link answered
// 100 names a sale waiting for its buyer.
func FuzzPurchaseLinkBody(f *testing.F) {
	f.Add("FZ-L1", "300", "TRY", "3", "https://m.test/ok", true, "")
	f.Add("FZ-PAID", "150", "TRY", "1", "https://m.test/ok", true, "")
	f.Add("FZ-L2", "1.001", "usd", "13", "javascript:alert(1)", true, "")
	f.Add("FZ-L3", "", "", "", "", false, `{"invoice_id":["x"]}`)
	f.Add("FZ-L4", "", "", "", "", false, `not json`)
	gw, store, bearer := fuzzMerchant(f)
	f.Fuzz(func(t *testing.T, invoice, total, currency, maxInst, returnURL string, hashed bool, raw string) {
		inv := raw
		if hashed {
			text, _ := json.Marshal(map[string]string{"invoice_id": invoice, "total": total, "max_installment": maxInst,
				"return_url": returnURL, "cancel_url": returnURL, "hash_key": hashOf(t, total, currency, MerchantKey, invoice)})
			inv = string(text)
		}
		body, _ := json.Marshal(map[string]string{"merchant_key": MerchantKey, "invoice": inv, "currency_code": currency, "name": "A", "surname": "B"})
		out := serveMerchant(t, gw, bearer, "/purchase/link", body)
		if out["status_code"] == 100.0 {
			link, _ := out["link"].(string)
			id := link[strings.LastIndex(link, "/")+1:]
			invoiceID, ok, _ := store.InvoiceOfLink(id)
			sale, _, _ := store.Get(invoiceID)
			if !ok || sale.State != StateAwaitingPayment || sale.Link == nil || sale.OrderID != out["order_id"] {
				t.Fatalf("link %q answered without its sale: %+v", link, sale)
			}
		}
	})
}

// FuzzLinkPaymentForm posts arbitrary card forms to fresh payment links:
// every answer is a sandbox page that never holds the card number, and a
// link's sale only ever moves to its 3D step with a card and an
// installment count the link allows.
func FuzzLinkPaymentForm(f *testing.F) {
	f.Add("cc_holder_name=A+B&cc_no=4355084355084358&expiry_month=12&expiry_year=2099&cvv=123&installments_number=2")
	f.Add("cc_holder_name=A&cc_no=4355084355084359&expiry_month=12&expiry_year=2099&cvv=123&installments_number=1")
	f.Add("cc_no=4111111111111111&expiry_month=1&expiry_year=2001&cvv=1&installments_number=9")
	f.Add("%zz&cc_holder_name=<script>")
	gw, store, bearer := fuzzMerchant(f)
	var seq atomic.Int64
	f.Fuzz(func(t *testing.T, form string) {
		invoice := fmt.Sprintf("FZ-LP-%d", seq.Add(1))
		body, _ := json.Marshal(linkBody(t, invoice, "300", 3))
		out := serveMerchant(t, gw, bearer, "/purchase/link", body)
		link, _ := out["link"].(string)
		if link == "" {
			t.Fatalf("no link: %v", out)
		}
		req := httptest.NewRequest("POST", strings.TrimPrefix(link, "http://example.com"), strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		page := rec.Body.String()
		q, _ := url.ParseQuery(form)
		if n := strings.ReplaceAll(q.Get("cc_no"), " ", ""); len(n) >= 13 && strings.Contains(page, n) {
			t.Fatalf("the page holds the card number: %s", page)
		}
		if !strings.Contains(page, "This is a sandbox") && rec.Code != 413 {
			t.Fatalf("answer %d is not a sandbox page: %q", rec.Code, page)
		}
		sale, _, _ := store.Get(invoice)
		switch sale.State {
		case StateAwaitingPayment:
		case StateAwaiting3D:
			if sale.Installment < 1 || sale.Installment > 3 || len(sale.CardBIN) != 6 || len(sale.CardLast4) != 4 {
				t.Fatalf("link sale after the form: %+v", sale)
			}
		default:
			t.Fatalf("link sale in state %q after its form", sale.State)
		}
		checkSales(t, store, strings.ReplaceAll(q.Get("cc_no"), " ", ""))
	})
}
