package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// shape lists a JSON object's members as "name:kind", in order.
func shape(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		kind := "null"
		switch v.(type) {
		case string:
			kind = "string"
		case json.Number:
			kind = "number"
		case bool:
			kind = "boolean"
		case []any:
			kind = "array"
		case map[string]any:
			kind = "object"
		}
		out = append(out, key.(string)+":"+kind)
	}
	return out
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/recorded/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGetposHasTheRecordedShape: every getpos option has the fields of a
// captured answer, in its order and with its JSON types (amount_to_be_paid
// a string, merchant_fee a number, card_bank_id a string,
// card_is_commercial a boolean), for a credit and a debit card.
func TestGetposHasTheRecordedShape(t *testing.T) {
	fx := newFixture(t)
	for _, tc := range []struct {
		bin, fixture, cardType, scheme, bank string
		options                              int
	}{
		{"528939", "getpos_option.json", "CREDIT_CARD", "MASTER_CARD", "ZİRAAT BANKASI", 12},
		{"402940", "getpos_option_debit.json", "DEBIT_CARD", "VISA", "QNB BANK A.S.", 1},
	} {
		res := fx.authed("/api/getpos", map[string]any{"credit_card": tc.bin, "amount": "121.20", "currency_code": "TRY", "merchant_key": MerchantKey})
		var body struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(res.Raw, &body); err != nil || res.status() != 100 || len(body.Data) != tc.options {
			t.Fatalf("%s: %d options: %s", tc.bin, len(body.Data), res.Raw)
		}
		want := shape(t, recorded(t, tc.fixture))
		for _, o := range body.Data {
			if got := shape(t, o); !slices.Equal(got, want) {
				t.Errorf("%s option shape:\n%v\nwant:\n%v", tc.bin, got, want)
			}
			var v map[string]any
			_ = json.Unmarshal(o, &v)
			if v["card_type"] != tc.cardType || v["card_scheme"] != tc.scheme || v["card_bank_name"] != tc.bank {
				t.Errorf("%s: %s", tc.bin, o)
			}
		}
	}
}

// TestCheckStatusHasTheDocumentedFields (issue 34, item 3): check status
// answers the fields of the gateway's documented answer, in its order and
// with its JSON types (product_price and the commissions strings, cc_no
// masked, card_type, settlement_date, original_bank_error_*), and the
// QNBpay form's md_status.
func TestCheckStatusHasTheDocumentedFields(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-DOC", "150.00", "TRY")
	res := fx.status("INV-DOC")
	got := shape(t, res.Raw)
	want := shape(t, recorded(t, "checkstatus.json"))
	var documented []string
	for _, member := range got {
		if slices.Contains(want, member) {
			documented = append(documented, member)
		}
	}
	if !slices.Equal(documented, want) {
		t.Errorf("check status's documented fields:\n%v\nwant, in this order:\n%v\nanswer: %s", documented, want, res.Raw)
	}
	qnb := shape(t, recorded(t, "checkstatus_qnbpay.json"))
	if i := slices.Index(qnb, "md_status:number"); i < 0 || !slices.Contains(got, qnb[i]) {
		t.Errorf("check status lacks md_status (a number): %s", res.Raw)
	}
	b := res.Body
	if b["product_price"] != "150.00" || b["bank_status_code"] != "00" || b["reason"] != "" || b["ref_number"] == "" || b["transaction_id"] == "" ||
		!regexp.MustCompile(`^\d+\.\d\d$`).MatchString(fmt.Sprint(b["merchant_commission"])) || b["user_commission"] != "0.00" ||
		!regexp.MustCompile(`^\d{6}\*{4}\d{4}$`).MatchString(fmt.Sprint(b["cc_no"])) || b["card_type"] != "CREDIT CARD" ||
		!regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(fmt.Sprint(b["settlement_date"])) || b["md_status"] != 1.0 ||
		b["original_bank_error_code"] != "" {
		t.Errorf("%s", res.Raw)
	}
	// A declined sale says why, as the bank did.
	fx.pay("INV-DOC-D", "150.41", "TRY")
	if d := fx.status("INV-DOC-D").Body; d["bank_status_code"] != "51" || d["reason"] != "Insufficient funds" ||
		d["original_bank_error_code"] != "51" || d["original_bank_error_description"] != "Insufficient funds" || d["md_status"] != 0.0 {
		t.Errorf("declined: %v", d)
	}
}

// TestCardListHasTheSDKsShape: a saved card of the list has the fields of
// the official SDK's card model, in its order, with its types.
func TestCardListHasTheSDKsShape(t *testing.T) {
	fx := newFixture(t)
	card := fx.saveCard(7007, 4508034508034509)
	res := fx.call("GET", Base+"/api/getCardTokens", map[string]any{"merchant_key": MerchantKey, "customer_number": "7007"},
		map[string]string{"Authorization": fx.bearer()})
	var body struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.Raw, &body); err != nil || len(body.Data) != 1 {
		t.Fatalf("%s", res.Raw)
	}
	got := shape(t, body.Data[0])
	want := shape(t, recorded(t, "card.json"))
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("card shape:\n%v\nwant first:\n%v", got, want)
	}
	var v map[string]any
	_ = json.Unmarshal(body.Data[0], &v)
	if v["card_token"] != card || v["card_number"] != "450803******4509" || v["card_issuer_bank"] != "T. IS BANKASI A.S." ||
		v["bank_id"] != 64.0 || v["merchant_id"] != float64(MerchantID) || v["card_program"] != "MAXIMUM" || !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(v["created_at"].(string)) {
		t.Errorf("%s", body.Data[0])
	}
}

// TestThreeDErrorPage: a 3D payment refused once its cancel_url is known
// (here: items that do not add up to the total, 13) answers a form posted
// to the cancel_url with the recorded fields, as text/html even to a
// client asking for JSON (issue 34, item 2: the gateway answers it so).
func TestThreeDErrorPage(t *testing.T) {
	fx := newFixture(t)
	var spec struct {
		Method     string   `json:"method"`
		Fields     []string `json:"fields"`
		StatusCode int      `json:"status_code"`
	}
	if err := json.Unmarshal(recorded(t, "3d_error_form.json"), &spec); err != nil {
		t.Fatal(err)
	}
	b := threeDBody(t, "INV-3DE", "4355084355084358", "100.00", "app", TypeAuth)
	b.Set("items", `[{"name":"a","price":"40.00","quantity":2}]`)
	req := httptest.NewRequest("POST", Base+"/api/paySmart3D", strings.NewReader(b.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	page := rec.Body.String()
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("HTTP %d %s: %s", rec.Code, rec.Header().Get("Content-Type"), page)
	}
	form := regexp.MustCompile(`<form method="(\w+)" action="([^"]*)"`).FindStringSubmatch(page)
	if form == nil || !strings.EqualFold(form[1], spec.Method) || form[2] != b.Get("cancel_url") {
		t.Errorf("form %v, want %s to %s:\n%s", form, spec.Method, b.Get("cancel_url"), page)
	}
	var names []string
	values := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		names = append(names, m[1])
		values.Set(m[1], m[2])
	}
	if !slices.Equal(names, spec.Fields) || values.Get("status_code") != "13" || values.Get("error_code") != "13" || values.Get("invoice_id") != "INV-3DE" {
		t.Errorf("fields %v %v, want %v with code %d", names, values, spec.Fields, spec.StatusCode)
	}
	if _, stored, _ := fx.store.Get("INV-3DE"); stored {
		t.Error("a refused 3D payment was stored")
	}
	req = httptest.NewRequest("POST", Base+"/api/paySmart3D", strings.NewReader(b.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	rec = httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(rec.Body.String(), `name="status_code" value="13"`) {
		t.Errorf("a client asking for JSON got %s:\n%s", ct, rec.Body)
	}
}

// documentedMembers checks that got holds the members of want (as shape
// lists them) in want's order, with want's JSON kinds, except the members
// named in ownKinds, whose kinds are the sandbox's own.
func documentedMembers(t *testing.T, what string, got, want []string, ownKinds ...string) {
	t.Helper()
	kind := map[string]string{}
	for _, m := range got {
		name, k, _ := strings.Cut(m, ":")
		kind[name] = k
	}
	var missing []string
	last := -1
	for _, m := range want {
		name, k, _ := strings.Cut(m, ":")
		i := slices.IndexFunc(got, func(g string) bool { return strings.HasPrefix(g, name+":") })
		switch {
		case i < 0:
			missing = append(missing, name)
		case kind[name] != k && !slices.Contains(ownKinds, name):
			t.Errorf("%s: %s is a %s, documented as a %s", what, name, kind[name], k)
		case i < last:
			t.Errorf("%s: %s out of the documented order", what, name)
		}
		last = max(last, i)
	}
	if len(missing) > 0 {
		t.Errorf("%s lacks %v:\n%v", what, missing, got)
	}
}

// rawData is the data member of an answer, as it came.
func rawData(t *testing.T, raw []byte) []byte {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || len(env.Data) == 0 {
		t.Fatalf("no data: %s", raw)
	}
	return env.Data
}

// TestPaySmart2DHasTheDocumentedShape (issue 34, item 4): a 2D payment's
// data has the fields of the gateway's documented example in its order,
// sipay_payment_method and payment_method the number 1, and
// original_bank_error_* (a decline's reason there).
func TestPaySmart2DHasTheDocumentedShape(t *testing.T) {
	fx := newFixture(t)
	res := fx.pay2D("INV-2DOC", "4355084355084358", "150.00", 1, TypeAuth)
	if res.status() != 100 {
		t.Fatalf("%s", res.Raw)
	}
	documentedMembers(t, "paySmart2D data", shape(t, rawData(t, res.Raw)), shape(t, recorded(t, "paysmart2d_data.json")),
		"merchant_commission", "user_commission", "merchant_commission_percentage", "merchant_commission_fixed", "amount")
	if d := res.data(); d["sipay_payment_method"] != 1.0 || d["payment_method"] != 1.0 || d["original_bank_error_code"] != "" || d["original_bank_error_description"] != "" {
		t.Errorf("%s", res.Raw)
	}
	res = fx.pay2D("INV-2DOC-D", "4355080000000518", "150.00", 1, TypeAuth)
	if d := res.data(); res.status() != 41 || d["original_bank_error_code"] != "51" || d["original_bank_error_description"] != "Insufficient funds" {
		t.Errorf("declined: %s", res.Raw)
	}
}

// TestCompleteHasTheDocumentedShape (issue 34, item 5): payment/complete's
// success carries data.status_code and data.status_description with the
// documented fields in their order; its "no pending sale" answer (31)
// carries data naming the invoice_id and order_id asked for.
func TestCompleteHasTheDocumentedShape(t *testing.T) {
	fx := newFixture(t)
	order := fx.start3D("INV-CDOC", "4355084355084358", "50.00", "merchant", "approve").Body["order_id"].(string)
	res := fx.authed("/payment/complete", completeBody(t, "INV-CDOC", "VP-NONE", "complete"))
	documentedMembers(t, "complete's 31", shape(t, res.Raw), shape(t, recorded(t, "complete_31.json")))
	documentedMembers(t, "complete's 31 data", shape(t, rawData(t, res.Raw)), shape(t, rawData(t, recorded(t, "complete_31.json"))), "order_id")
	if d := res.data(); res.status() != 31 || d["invoice_id"] != "INV-CDOC" || d["order_id"] != "VP-NONE" {
		t.Errorf("31: %s", res.Raw)
	}
	res = fx.authed("/payment/complete", completeBody(t, "INV-CDOC", order, "complete"))
	documentedMembers(t, "complete's data", shape(t, rawData(t, res.Raw)), shape(t, rawData(t, recorded(t, "complete.json"))),
		"order_no", "order_id", "auth_code")
	if d := res.data(); res.status() != 100 || d["status_code"] != 100.0 || d["status_description"] != res.desc() || d["payment_method"] != 1.0 {
		t.Errorf("complete: %s", res.Raw)
	}
}
