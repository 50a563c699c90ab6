package sandbox

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/shopspring/decimal"
)

// cardBody is a valid paySmart2D request.
func cardBody(t testing.TB, invoice, card, total, currency string, installments int, txType string) map[string]any {
	t.Helper()
	n := strconv.Itoa(installments)
	hk, err := hashkey.Generate(AppSecret, strings.Join([]string{total, n, currency, MerchantKey, invoice}, "|"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"merchant_key": MerchantKey, "hash_key": hk, "invoice_id": invoice, "total": total, "currency_code": currency,
		"installments_number": n, "cc_holder_name": "Ayşe Yılmaz", "cc_no": card, "expiry_month": "12", "expiry_year": "2099",
		"cvv": "000", "name": "Ayşe", "surname": "Yılmaz", "transaction_type": txType, "invoice_description": "test",
		"items":             []map[string]any{{"name": "Item", "price": total, "quantity": 1, "description": "x"}},
		"sale_web_hook_key": "sales-hook",
	}
}

func (fx *fixture) pay2D(invoice, card, total string, installments int, txType string) response {
	fx.t.Helper()
	return fx.authed("/api/paySmart2D", cardBody(fx.t, invoice, card, total, "TRY", installments, txType))
}

func TestPaySmart2D(t *testing.T) {
	fx := newFixture(t)
	res := fx.pay2D("INV-2D", "4355084355084358", "1000.00", 3, TypeAuth)
	d := res.data()
	if res.status() != 100 || d["sipay_status"] != 1.0 || d["payment_status"] != 1.0 || d["order_no"] != d["order_id"] ||
		d["credit_card_no"] != "435508******4358" || d["installment"] != 3.0 || d["transaction_type"] != "Auth" {
		t.Fatalf("%s", res.Raw)
	}
	// The hash_key of the answer is in the sale-webhook layout.
	plain, err := hashkey.Decrypt(AppSecret, d["hash_key"].(string))
	if err != nil || plain != "1|1000.00|INV-2D|"+d["order_id"].(string)+"|TRY" {
		t.Errorf("answer hash_key holds %q (%v)", plain, err)
	}
	// The merchant commission is the one `paycli commissions --amount`
	// computes for AXESS in 3 installments.
	if strconv.FormatFloat(d["merchant_commission"].(float64), 'f', 2, 64) != wantCommission(t, fx, "AXESS", 3, "1000.00") {
		t.Errorf("merchant_commission %v", d["merchant_commission"])
	}
	sale, _, _ := fx.store.Get("INV-2D")
	if sale.Kind != KindCard2D || sale.SaleWebHookKey != "sales-hook" || sale.CardHolder != "Ayşe Yılmaz" {
		t.Errorf("%+v", sale)
	}
	raw, _ := json.Marshal(sale)
	if strings.Contains(string(raw), "4355084355084358") || strings.Contains(string(res.Raw), "4355084355084358") {
		t.Error("full card number stored or answered")
	}
	// One invoice across all kinds: a walletPay on it is a duplicate.
	if res := fx.pay("INV-2D", "10.00", "TRY"); res.status() != 3 {
		t.Errorf("walletPay on a 2D invoice: %s", res.Raw)
	}
	if res := fx.pay2D("INV-2D", "4355084355084358", "1000.00", 3, TypeAuth); res.status() != 3 {
		t.Errorf("2D again: %s", res.Raw)
	}
	st := fx.status("INV-2D")
	if st.Body["transaction_status"] != "Completed" || st.Body["payment_kind"] != "2d" || st.Body["installment"] != 3.0 {
		t.Errorf("%s", st.Raw)
	}
}

// wantCommission computes the merchant fee of a sale as `paycli
// commissions --amount` does, from the sandbox's commission lookup.
func wantCommission(t *testing.T, fx *fixture, program string, n int, amount string) string {
	t.Helper()
	res := fx.authed("/api/commissions", map[string]string{"currency_code": "TRY"})
	sched, err := commission.DecodeResponse(res.Raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sched[n] {
		if strings.EqualFold(e.CardProgram, program) {
			a, ok, err := commission.ComputeAmounts(decimal.RequireFromString(amount), n, commission.RatesOf(e), 2)
			if err != nil || !ok {
				t.Fatal(err)
			}
			return a.Strings()[1]
		}
	}
	t.Fatalf("no %s in %d installments", program, n)
	return ""
}

func TestPaySmart2DTestCardsAndRefusals(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name, card, total string
		n                 int
		wantCode          int
		stored            bool
		reason            string
	}{
		{"do not honour", "4355080000000054", "10.00", 1, 41, true, "05"},
		{"insufficient funds", "4355080000000518", "10.00", 1, 41, true, "51"},
		{"expired card", "4355080000000542", "10.00", 1, 41, true, "54"},
		{"3D required", "4355080000003009", "10.00", 1, 60, false, ""},
		{"magic .41", "4355084355084358", "10.41", 1, 41, true, "51"},
		{"magic .69", "4355084355084358", "10.69", 1, 69, true, ""},
		{"not Luhn", "4355084355084359", "10.00", 1, 1, false, ""},
		{"installments not offered", "4355084355084358", "10.00", 13, 1, false, ""},
		{"foreign card in installments", "4111111111111111", "10.00", 2, 1, false, ""},
		{"foreign card single", "4111111111111111", "10.00", 1, 100, true, ""},
		{"too many decimals", "4355084355084358", "10.001", 1, 1, false, ""},
		{"zero", "4355084355084358", "0", 1, 1, false, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := "INV-C" + strconv.Itoa(i)
			res := fx.pay2D(inv, tt.card, tt.total, tt.n, TypeAuth)
			if res.status() != tt.wantCode {
				t.Fatalf("status %d, want %d: %s", res.status(), tt.wantCode, res.Raw)
			}
			if strings.Contains(string(res.Raw), tt.card) {
				t.Errorf("answer holds the card number: %s", res.Raw)
			}
			sale, stored, _ := fx.store.Get(inv)
			if stored != tt.stored || sale.PaymentReasonCode != tt.reason {
				t.Errorf("stored=%v %+v", stored, sale)
			}
		})
	}
	body := cardBody(t, "INV-ITEMS", "4355084355084358", "10.00", "TRY", 1, TypeAuth)
	body["items"] = `[{"name":"a","price":"4.00","quantity":2}]` // adds up to 8.00
	if res := fx.authed("/api/paySmart2D", body); res.status() != 13 {
		t.Errorf("items not adding up: %s", res.Raw)
	}
	body["items"] = `[{"name":"a","price":"four","quantity":2}]`
	if res := fx.authed("/api/paySmart2D", body); res.status() != 12 {
		t.Errorf("items not a list of prices: %s", res.Raw)
	}
	body = cardBody(t, "INV-PT", "4355084355084358", "10.00", "TRY", 1, "Sale")
	if res := fx.authed("/api/paySmart2D", body); res.status() != 1 {
		t.Errorf("transaction type Sale: %s", res.Raw)
	}
}

func confirmBody(t testing.TB, invoice, status, total string) map[string]string {
	hk, _ := hashkey.Generate(AppSecret, MerchantKey+"|"+invoice+"|"+status)
	b := map[string]string{"merchant_key": MerchantKey, "invoice_id": invoice, "status": status, "hash_key": hk}
	if total != "" {
		b["total"] = total
	}
	return b
}

func TestPreAuthCaptureAndCancel(t *testing.T) {
	fx := newFixture(t)
	if res := fx.pay2D("INV-PA", "4355084355084358", "200.00", 1, TypePreAuth); res.status() != 100 || res.data()["transaction_type"] != "PreAuth" {
		t.Fatalf("%s", res.Raw)
	}
	st := fx.status("INV-PA")
	pa, _ := st.Body["pre_auth"].(map[string]any)
	if st.Body["transaction_status"] != "Pre-Authorized" || st.Body["transaction_type"] != "PreAuth" || pa["status"] != "open" || pa["held_amount"] != 200.0 {
		t.Fatalf("%s", st.Raw)
	}
	// Not refundable before capture.
	if res := fx.refund("INV-PA", "10.00", ""); res.status() != 49 {
		t.Errorf("refund of an open pre-authorization: %s", res.Raw)
	}
	if res := fx.authed("/api/confirmPayment", confirmBody(t, "INV-PA", "1", "200.01")); res.status() != 1 {
		t.Errorf("capture above the held amount: %s", res.Raw)
	}
	res := fx.authed("/api/confirmPayment", confirmBody(t, "INV-PA", "1", "150"))
	if res.status() != 100 || res.Body["transaction_status"] != "Completed" || res.Body["invoice_id"] != "INV-PA" || res.Body["order_id"] == "" {
		t.Fatalf("capture: %s", res.Raw)
	}
	// After a partial capture the transaction is what was taken, its
	// merchant commission that of the captured amount; pre_auth keeps
	// the held amount.
	st = fx.status("INV-PA")
	pa, _ = st.Body["pre_auth"].(map[string]any)
	stored, _, _ := fx.store.Get("INV-PA")
	pct, _ := decimal.NewFromString(stored.MerchantCommissionPercentage)
	fixed, _ := decimal.NewFromString(stored.MerchantCommissionFixed)
	wantFee, _ := decimal.NewFromInt(150).Mul(pct).Div(decimal.NewFromInt(100)).Add(fixed).Round(2).Float64()
	if st.Body["transaction_amount"] != 150.0 || pa["held_amount"] != 200.0 || pa["captured_amount"] != 150.0 ||
		st.Body["merchant_commission"] != decimal.NewFromFloat(wantFee).StringFixed(2) || stored.MerchantCommission == decimal.NewFromFloat(wantFee).StringFixed(2) {
		t.Errorf("after a capture of 150 (merchant fee %v): %s", wantFee, st.Raw)
	}
	if res := fx.authed("/api/confirmPayment", confirmBody(t, "INV-PA", "1", "")); res.status() != 117 {
		t.Errorf("second capture: %s", res.Raw)
	}
	if res := fx.authed("/api/confirmPayment", confirmBody(t, "INV-PA", "2", "")); res.status() != 117 {
		t.Errorf("cancel after capture: %s", res.Raw)
	}
	// Refunds are bounded by what was captured.
	if res := fx.refund("INV-PA", "150.01", ""); res.status() != 49 {
		t.Errorf("refund above the captured amount: %s", res.Raw)
	}
	if res := fx.refund("INV-PA", "150.00", ""); res.status() != 100 {
		t.Errorf("refund of the captured amount: %s", res.Raw)
	}

	fx.pay2D("INV-PC", "4355084355084358", "80.00", 1, TypePreAuth)
	res = fx.authed("/api/confirmPayment", confirmBody(t, "INV-PC", "2", ""))
	if res.status() != 100 || res.Body["transaction_status"] != "Cancelled" {
		t.Fatalf("cancel: %s", res.Raw)
	}
	if res := fx.authed("/api/confirmPayment", confirmBody(t, "INV-PC", "1", "")); res.status() != 117 {
		t.Errorf("capture after cancel: %s", res.Raw)
	}
	if st := fx.status("INV-PC"); st.Body["transaction_status"] != "Cancelled" {
		t.Errorf("%s", st.Raw)
	}
	fx.pay2D("INV-AUTH", "4355084355084358", "80.00", 1, TypeAuth)
	for _, tt := range []struct {
		body map[string]string
		want int
	}{
		{confirmBody(t, "INV-AUTH", "1", ""), 1},
		{confirmBody(t, "INV-NONE", "1", ""), 31},
		{confirmBody(t, "INV-PC", "3", ""), 1},
	} {
		if res := fx.authed("/api/confirmPayment", tt.body); res.status() != tt.want {
			t.Errorf("%v: %s", tt.body, res.Raw)
		}
	}
	// The hash covers the status: a capture hash does not cancel.
	b := confirmBody(t, "INV-PC", "1", "")
	b["status"] = "2"
	if res := fx.authed("/api/confirmPayment", b); res.status() != 68 {
		t.Errorf("status changed after hashing: %s", res.Raw)
	}
}

func threeDBody(t testing.TB, invoice, card, total, by, txType string) url.Values {
	hk, _ := hashkey.Generate(AppSecret, strings.Join([]string{total, "1", "TRY", MerchantKey, invoice}, "|"))
	return url.Values{"merchant_key": {MerchantKey}, "hash_key": {hk}, "invoice_id": {invoice}, "total": {total},
		"currency_code": {"TRY"}, "installments_number": {"1"}, "cc_holder_name": {"Ayşe Yılmaz"}, "cc_no": {card},
		"expiry_month": {"12"}, "expiry_year": {"2099"}, "cvv": {"000"}, "name": {"Ayşe"}, "surname": {"Yılmaz"},
		"return_url": {"https://merchant.test/ok"}, "cancel_url": {"https://merchant.test/fail"},
		"payment_completed_by": {by}, "transaction_type": {txType}}
}

// start3D posts a 3D payment as a browser form and answers its challenge.
func (fx *fixture) start3D(invoice, card, total, by, decision string) response {
	fx.t.Helper()
	page := fx.callRaw("POST", Base+"/api/paySmart3D", threeDBody(fx.t, invoice, card, total, by, TypeAuth).Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if !strings.Contains(page, "This is a sandbox") || strings.Contains(page, card) {
		fx.t.Fatalf("challenge page: %s", page)
	}
	sale, _, _ := fx.store.Get(invoice)
	if sale.State != StateAwaiting3D {
		fx.t.Fatalf("after paySmart3D: %+v", sale)
	}
	return fx.call("POST", Base+ChallengePath, url.Values{"order_id": {sale.OrderID}, "decision": {decision}}.Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
}

func completeBody(t testing.TB, invoice, order, status string) map[string]string {
	hk, _ := hashkey.Generate(AppSecret, strings.Join([]string{MerchantKey, invoice, order, status}, "|"))
	return map[string]string{"merchant_key": MerchantKey, "invoice_id": invoice, "order_id": order, "status": status, "hash_key": hk}
}

func Test3DAndPaymentComplete(t *testing.T) {
	fx := newFixture(t)
	res := fx.start3D("INV-3A", "4355080000003009", "50.00", "app", "approve")
	if res.status() != 100 || res.Body["url"] != "https://merchant.test/ok" || res.Body["status"] != "1" {
		t.Fatalf("approved challenge: %s", res.Raw)
	}
	plain, _ := hashkey.Decrypt(AppSecret, res.Body["hash_key"].(string))
	if plain != "1|50.00|INV-3A|"+res.Body["order_id"].(string)+"|TRY" {
		t.Errorf("return hash_key holds %q", plain)
	}
	if st := fx.status("INV-3A"); st.Body["transaction_status"] != "Completed" || st.Body["three_d_status"] != "done" {
		t.Errorf("%s", st.Raw)
	}
	res = fx.start3D("INV-3D", "4355084355084358", "50.00", "app", "decline")
	if res.status() != 41 || res.Body["url"] != "https://merchant.test/fail" {
		t.Errorf("declined challenge: %s", res.Raw)
	}

	res = fx.start3D("INV-3M", "4355084355084358", "50.00", "merchant", "approve")
	order := res.Body["order_id"].(string)
	st := fx.status("INV-3M")
	if st.status() != 69 || st.Body["three_d_status"] != "awaiting_merchant_completion" || st.Body["payment_completed_by"] != "merchant" {
		t.Fatalf("awaiting completion: %s", st.Raw)
	}
	if res := fx.refund("INV-3M", "1.00", ""); res.status() != 49 {
		t.Errorf("refund before completion: %s", res.Raw)
	}
	if res := fx.authed("/payment/complete", completeBody(t, "INV-3M", "VP-UNKNOWN", "complete")); res.status() != 31 {
		t.Errorf("unknown order id: %s", res.Raw)
	}
	res = fx.authed("/payment/complete", completeBody(t, "INV-3M", order, "complete"))
	if res.status() != 100 || res.data()["status"] != "Completed" || res.data()["order_id"] != order || res.data()["payment_status"] != 1.0 {
		t.Fatalf("complete: %s", res.Raw)
	}
	if res := fx.authed("/payment/complete", completeBody(t, "INV-3M", order, "complete")); res.status() != 117 {
		t.Errorf("second complete: %s", res.Raw)
	}
	if st := fx.status("INV-3M"); st.Body["transaction_status"] != "Completed" {
		t.Errorf("%s", st.Raw)
	}
	res = fx.start3D("INV-3C", "4355084355084358", "50.00", "merchant", "approve")
	res = fx.authed("/payment/complete", completeBody(t, "INV-3C", res.Body["order_id"].(string), "cancel"))
	if res.status() != 100 || res.data()["status"] != "Cancelled" {
		t.Fatalf("cancel: %s", res.Raw)
	}
	if st := fx.status("INV-3C"); st.Body["transaction_status"] != "Cancelled" {
		t.Errorf("%s", st.Raw)
	}
	// A 3D pre-authorization completed by the merchant is held, not
	// charged: the answer says what check status says.
	b := threeDBody(t, "INV-3PA", "4355084355084358", "70.00", "merchant", TypePreAuth)
	fx.callRaw("POST", Base+"/api/paySmart3D", b.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	held, _, _ := fx.store.Get("INV-3PA")
	fx.call("POST", Base+ChallengePath, url.Values{"order_id": {held.OrderID}, "decision": {"approve"}}.Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
	res = fx.authed("/payment/complete", completeBody(t, "INV-3PA", held.OrderID, "complete"))
	if desc, _ := res.Body["status_description"].(string); res.status() != 100 || res.data()["status"] != "Pre-Authorized" || !strings.Contains(desc, "held") {
		t.Fatalf("complete of a pre-authorization: %s", res.Raw)
	}
	if st := fx.status("INV-3PA"); st.Body["transaction_status"] != "Pre-Authorized" {
		t.Errorf("%s", st.Raw)
	}
	// Only under /payment, not /api.
	if res := fx.authed("/api/payment/complete", completeBody(t, "INV-3C", "x", "cancel")); res.Code != 404 {
		t.Errorf("/api/payment/complete: %d", res.Code)
	}
}

func TestGetposAgreesWithCommissions(t *testing.T) {
	fx := newFixture(t)
	res := fx.authed("/api/getpos", map[string]any{"credit_card": "4355084355084358", "amount": 1000, "currency_code": "TRY", "merchant_key": MerchantKey})
	if res.status() != 100 {
		t.Fatalf("%s", res.Raw)
	}
	opts := res.Body["data"].([]any)
	if len(opts) != 12 {
		t.Fatalf("%d options for AXESS", len(opts))
	}
	for _, o := range opts {
		m := o.(map[string]any)
		n := int(m["installments_number"].(float64))
		if m["card_program"] != "AXESS" || m["pos_id"] != 1023.0 || m["payable_amount"] != 1000.0 || m["currency_code"] != "TRY" {
			t.Errorf("%v", m)
		}
		// merchant_fee keeps four decimals, as the gateway writes it; to the
		// currency's minor unit it is what the commission table prices.
		if got, want := decimal.NewFromFloat(m["merchant_fee"].(float64)).StringFixed(2), wantCommission(t, fx, "AXESS", n, "1000"); got != want {
			t.Errorf("%d installments: merchant fee %s, commissions says %s", n, got, want)
		}
	}
	// By the user: the buyer pays more, and the figures still agree.
	res = fx.authed("/api/getpos", map[string]any{"credit_card": "540667", "amount": "100", "currency_code": "TRY", "merchant_key": MerchantKey, "commission_by": "user"})
	first := res.Body["data"].([]any)[2].(map[string]any)
	if first["payable_amount"].(float64) <= 100 || first["card_program"] != "WORLD" {
		t.Errorf("%v", first)
	}
	// A BIN the sandbox does not know is a foreign card: one option.
	res = fx.authed("/api/getpos", map[string]any{"credit_card": "111111", "amount": 100, "currency_code": "TRY", "merchant_key": MerchantKey})
	if res.status() != 100 || len(res.Body["data"].([]any)) != 1 {
		t.Errorf("foreign card: %s", res.Raw)
	}
	for _, bad := range []map[string]any{
		{"credit_card": "4355", "amount": 100, "currency_code": "TRY", "merchant_key": MerchantKey},
		{"credit_card": "435508", "amount": "1.001", "currency_code": "TRY", "merchant_key": MerchantKey},
		{"credit_card": "435508", "amount": 100, "currency_code": "XXX", "merchant_key": MerchantKey},
		{"credit_card": "435508", "amount": 100, "currency_code": "TRY", "merchant_key": "x"},
	} {
		if res := fx.authed("/api/getpos", bad); res.status() == 100 {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestInstallments(t *testing.T) {
	fx := newFixture(t)
	res := fx.authed("/api/installments", map[string]string{"merchant_key": MerchantKey})
	got, _ := json.Marshal(res.Body["installments"])
	if res.status() != 100 || string(got) != "[1,2,3,4,5,6,7,8,9,10,11,12]" {
		t.Errorf("%s", res.Raw)
	}
}

// Ten captures racing on one pre-authorization: exactly one succeeds.
func TestRacingCapturesCaptureOnce(t *testing.T) {
	fx := newFixture(t)
	fx.pay2D("INV-RC", "4355084355084358", "100.00", 1, TypePreAuth)
	bearer := fx.bearer()
	codes := make(chan int, 10)
	for i := range 10 {
		go func() {
			status := "1"
			if i%2 == 1 {
				status = "2"
			}
			res := fx.call("POST", Base+"/api/confirmPayment", confirmBody(t, "INV-RC", status, ""),
				map[string]string{"Authorization": "Bearer " + bearer})
			codes <- res.status()
		}()
	}
	ok := 0
	for range 10 {
		switch c := <-codes; c {
		case 100:
			ok++
		case 117:
		default:
			t.Errorf("status %d", c)
		}
	}
	sale, _, _ := fx.store.Get("INV-RC")
	if ok != 1 || sale.PreAuth.State == PreAuthOpen {
		t.Errorf("%d confirmations succeeded; %+v", ok, sale.PreAuth)
	}
}

// TestEnumFieldsOutsideTheTableRefused: a payment_completed_by or a
// challenge decision the operation table does not list is refused with
// status 1 and its words, and the sale awaiting the challenge stays so.
func TestEnumFieldsOutsideTheTableRefused(t *testing.T) {
	fx := newFixture(t)
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
	res := fx.call("POST", Base+"/api/paySmart3D", threeDBody(t, "INV-EN1", "4355084355084358", "50.00", "bank", TypeAuth).Encode(), form)
	if res.status() != 1 || !strings.Contains(string(res.Raw), "payment completed by is invalid") {
		t.Errorf("payment_completed_by bank: %s", res.Raw)
	}
	if _, stored, _ := fx.store.Get("INV-EN1"); stored {
		t.Error("a refused 3D payment was stored")
	}
	fx.callRaw("POST", Base+"/api/paySmart3D", threeDBody(t, "INV-EN2", "4355084355084358", "50.00", "app", TypeAuth).Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	sale, _, _ := fx.store.Get("INV-EN2")
	res = fx.call("POST", Base+ChallengePath, url.Values{"order_id": {sale.OrderID}, "decision": {"maybe"}}.Encode(), form)
	if res.status() != 1 || !strings.Contains(string(res.Raw), "decision must be approve or decline") {
		t.Errorf("decision maybe: %s", res.Raw)
	}
	if sale, _, _ := fx.store.Get("INV-EN2"); sale.State != StateAwaiting3D {
		t.Errorf("after a refused decision: %+v", sale)
	}
}
