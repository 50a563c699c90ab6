package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
	bolt "go.etcd.io/bbolt"
)

// refundBody is a valid refund request.
func refundBody(t testing.TB, invoice, amount, rtid string) map[string]string {
	t.Helper()
	hk, err := hashkey.Generate(AppSecret, amount+"|"+invoice+"|"+MerchantKey)
	if err != nil {
		t.Fatal(err)
	}
	b := map[string]string{"invoice_id": invoice, "amount": amount, "app_id": AppID, "app_secret": AppSecret,
		"merchant_key": MerchantKey, "hash_key": hk}
	if rtid != "" {
		b["refund_transaction_id"] = rtid
	}
	return b
}

func (fx *fixture) refund(invoice, amount, rtid string) response {
	fx.t.Helper()
	return fx.authed("/api/refund", refundBody(fx.t, invoice, amount, rtid))
}

func (fx *fixture) status(invoice string) response {
	fx.t.Helper()
	b := statusBodyFor(fx.t, invoice)
	b["show_refund_info"] = "Y"
	return fx.authed("/api/checkstatus", b)
}

func TestRefundPartialThenFull(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-R", "150.00", "TRY")
	res := fx.refund("INV-R", "50.00", "R-1")
	if res.status() != 100 || res.Body["invoice_id"] != "INV-R" || res.Body["order_no"] != "VP00000000000000001" ||
		res.Body["ref_no"] == "" || res.Body["ref_no"] != res.Body["ref_number"] {
		t.Fatalf("refund 50.00: %s", res.Raw)
	}
	if _, nested := res.Body["data"]; nested {
		t.Error("refund fields belong at the top level")
	}
	st := fx.status("INV-R")
	if st.Body["transaction_status"] != "Partially Refunded" || st.Body["total_refunded_amount"] != 50.0 {
		t.Errorf("after 50.00: %s", st.Raw)
	}
	if res := fx.refund("INV-R", "100.01", "R-2"); res.status() != 49 {
		t.Errorf("refund above the remainder: %s", res.Raw)
	}
	if res := fx.refund("INV-R", "100", "R-3"); res.status() != 100 {
		t.Fatalf("refund of the remainder: %s", res.Raw)
	}
	if res := fx.refund("INV-R", "1.00", "R-4"); res.status() != 49 {
		t.Errorf("refund of a fully refunded sale: %s", res.Raw)
	}
	st = fx.status("INV-R")
	info, _ := st.Body["refund_info"].([]any)
	if st.Body["transaction_status"] != "Refunded" || st.Body["total_refunded_amount"] != 150.0 || len(info) != 2 ||
		st.Body["transaction_amount"] != 150.0 {
		t.Fatalf("after the full refund: %s", st.Raw)
	}
	first := info[0].(map[string]any)
	if first["amount"] != 50.0 || first["refund_transaction_id"] != "R-1" || first["status"] != RefundCompleted || first["date"] == "" {
		t.Errorf("refund_info[0] = %v", first)
	}
	// Without show_refund_info the list is left out.
	if plain := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-R")); plain.Body["refund_info"] != nil {
		t.Errorf("refund_info without show_refund_info: %s", plain.Raw)
	}
}

func TestRefundRefusals(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-OK", "150.00", "TRY")
	fx.pay("INV-41", "150.41", "TRY")
	fx.pay("INV-69", "150.69", "TRY")
	fx.clock.Advance(-1) // keep the pending sale pending
	tests := []struct {
		name     string
		body     map[string]string
		wantCode int
	}{
		{"unknown invoice", refundBody(t, "INV-NONE", "1.00", ""), 31},
		{"declined sale", refundBody(t, "INV-41", "1.00", ""), 49},
		{"pending sale", refundBody(t, "INV-69", "1.00", ""), 49},
		{"more decimals than TRY", refundBody(t, "INV-OK", "1.001", ""), 1},
		{"zero", refundBody(t, "INV-OK", "0", ""), 1},
		{"negative", refundBody(t, "INV-OK", "-1", ""), 1},
		{"above the sale", refundBody(t, "INV-OK", "150.02", ""), 49},
	}
	wrongSecret := refundBody(t, "INV-OK", "1.00", "")
	wrongSecret["app_secret"] = "nope"
	tests = append(tests, struct {
		name     string
		body     map[string]string
		wantCode int
	}{"wrong app_secret in the body", wrongSecret, 30})
	badHash := refundBody(t, "INV-OK", "1.00", "")
	badHash["amount"] = "2.00"
	tests = append(tests, struct {
		name     string
		body     map[string]string
		wantCode int
	}{"hash of another amount", badHash, 68})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := fx.authed("/api/refund", tt.body); res.status() != tt.wantCode {
				t.Errorf("status %d, want %d: %s", res.status(), tt.wantCode, res.Raw)
			}
		})
	}
	sale, _, _ := fx.store.Get("INV-OK")
	if len(sale.Refunds) != 0 {
		t.Errorf("a refused refund was recorded: %+v", sale.Refunds)
	}
}

func TestRefundTransactionIDIsSingleUseAcrossRestart(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-A", "150.00", "TRY")
	fx.pay("INV-B", "150.00", "TRY")
	if res := fx.refund("INV-A", "10.00", "RTID-1"); res.status() != 100 {
		t.Fatal(string(res.Raw))
	}
	fx.store.Close()
	fx.open()
	for _, inv := range []string{"INV-A", "INV-B"} {
		if res := fx.refund(inv, "10.00", "RTID-1"); res.status() != 104 {
			t.Errorf("%s: repeated refund_transaction_id after a restart: %s", inv, res.Raw)
		}
	}
	sale, _, _ := fx.store.Get("INV-A")
	if len(sale.Refunds) != 1 {
		t.Errorf("refunds = %+v", sale.Refunds)
	}
}

func TestRefundQueuedForApproval(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-Q", "150.00", "TRY")
	res := fx.refund("INV-Q", "20.01", "Q-1")
	if res.status() != 101 {
		t.Fatalf("a refund ending in .01: %s", res.Raw)
	}
	sale, _, _ := fx.store.Get("INV-Q")
	if sale.Refunds[0].Status != RefundPendingApproval {
		t.Fatalf("stored as %+v", sale.Refunds[0])
	}
	// The queued amount is no longer refundable.
	if res := fx.refund("INV-Q", "130.00", "Q-2"); res.status() != 49 {
		t.Errorf("refund over a queued one: %s", res.Raw)
	}
	st := fx.status("INV-Q")
	info := st.Body["refund_info"].([]any)[0].(map[string]any)
	if info["status"] != RefundCompleted || st.Body["total_refunded_amount"] != 20.01 {
		t.Errorf("after check status: %s", st.Raw)
	}
	sale, _, _ = fx.store.Get("INV-Q")
	if sale.Refunds[0].Status != RefundCompleted {
		t.Errorf("approval not stored: %+v", sale.Refunds[0])
	}
}

func TestNoPartialRefunds(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.NoPartialRefunds = true })
	fx.pay("INV-N", "150.00", "TRY")
	if res := fx.refund("INV-N", "50.00", ""); res.status() != 110 {
		t.Errorf("partial refund: %s", res.Raw)
	}
	if res := fx.refund("INV-N", "150.00", ""); res.status() != 100 {
		t.Errorf("full refund: %s", res.Raw)
	}
}

// Twenty refunds of 10.00 racing on one 150.00 sale: fifteen succeed, the
// rest are refused, and the refunded total never exceeds the sale.
func TestRacingRefundsNeverExceedTheSale(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-RACE", "150.00", "TRY")
	bearer := fx.bearer()
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := fx.call("POST", Base+"/api/refund", refundBody(t, "INV-RACE", "10.00", fmt.Sprintf("RACE-%d", i)),
				map[string]string{"Authorization": "Bearer " + bearer})
			codes[i] = res.status()
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 100:
			ok++
		case 49:
		default:
			t.Errorf("unexpected status %d", c)
		}
	}
	sale, _, _ := fx.store.Get("INV-RACE")
	if ok != 15 || len(sale.Refunds) != 15 || !sale.Refundable().IsZero() {
		t.Errorf("%d succeeded, %d stored, %s refundable", ok, len(sale.Refunds), sale.Refundable())
	}
}

// A sale stored by an older sandbox (no kind, no transaction type) reads
// as a walletPay Auth sale and can be refunded.
func TestOldSalesReadAsWalletPay(t *testing.T) {
	fx := newFixture(t)
	fx.store.Close()
	db, err := bolt.Open(fx.dir+"/"+DBFile, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := `{"invoice_id":"INV-OLD","order_id":"VP1","state":"completed","amount":"150.00","currency":"TRY","installment":1,` +
		`"wallet":"001","card_bin":"435508","card_last4":"4358","card_program":"AXESS","merchant_commission":"2.63",` +
		`"user_commission":"0.00","created_at":"2026-11-22T09:04:05Z","updated_at":"2026-11-22T09:04:05Z"}`
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(salesBucket)).Put([]byte("INV-OLD"), []byte(old)) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	fx.open()
	sale, _, err := fx.store.Get("INV-OLD")
	if err != nil || sale.Kind != KindWalletPay || sale.TransactionType != TypeAuth {
		t.Fatalf("%+v %v", sale, err)
	}
	if res := fx.refund("INV-OLD", "150.00", ""); res.status() != 100 {
		t.Errorf("refund of an old sale: %s", res.Raw)
	}
	st := fx.status("INV-OLD")
	if st.Body["service_payment_method"] != "WALLET_001" || st.Body["transaction_status"] != "Refunded" {
		t.Errorf("%s", st.Raw)
	}
}

func TestStoredSalesHoldNoFullCardNumber(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-C", "150.00", "TRY")
	sales, _ := fx.store.Sales()
	data, _ := json.Marshal(sales)
	if strings.Contains(string(data), DefaultWalletCard) {
		t.Errorf("full card number in the state: %s", data)
	}
}
