package sandbox

import (
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
)

func TestCheckStatus(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-OK", "150.00", "TRY")
	fx.pay("INV-41", "150.41", "TRY")

	res := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-OK"))
	want := map[string]any{
		"status_code": 100.0, "status_description": "Transaction found", "transaction_status": "Completed",
		"order_id": "VP00000000000000001", "invoice_id": "INV-OK", "transaction_amount": 150.0, "currency_code": "TRY",
		"total_refunded_amount": 0.0, "transaction_type": "Auth", "payment_status": 1.0, "payment_method": "CREDITCARD",
		"service_payment_method": "WALLET_001", "credit_card_no": "435508******4358", "installment": 1.0,
		"merchant_commission": "2.63", "user_commission": "0.00", "payment_reason_code": "", "payment_reason_code_detail": "",
		"created_at": "2026-11-22 12:04:05",
	}
	for k, v := range want {
		if res.Body[k] != v {
			t.Errorf("%s = %#v, want %#v", k, res.Body[k], v)
		}
	}
	if _, nested := res.Body["data"]; nested {
		t.Error("check status fields belong at the top level")
	}

	res = fx.authed("/api/checkstatus", statusBodyFor(t, "INV-41"))
	if res.status() != 100 || res.Body["transaction_status"] != "Failed" || res.Body["payment_status"] != 0.0 || res.Body["payment_reason_code"] != "51" {
		t.Errorf("declined sale: %s", res.Raw)
	}
}

func TestCheckStatusErrors(t *testing.T) {
	rehash := func(plain string) func(map[string]string) {
		return func(b map[string]string) { b["hash_key"], _ = hashkey.Generate(AppSecret, plain) }
	}
	tests := []struct {
		name     string
		invoice  string
		mod      func(map[string]string)
		wantCode int
		wantDesc string
	}{
		{"unknown invoice", "INV-NONE", func(map[string]string) {}, 31, "Transaction not found"},
		{"missing invoice", "INV-1", func(b map[string]string) { delete(b, "invoice_id") }, 1, "The invoice id field is required."},
		{"missing hash_key", "INV-1", func(b map[string]string) { delete(b, "hash_key") }, 1, "The hash key field is required."},
		{"missing merchant_key", "INV-1", func(b map[string]string) { delete(b, "merchant_key") }, 1, "The merchant key field is required."},
		{"wrong merchant_key", "INV-1", func(b map[string]string) { b["merchant_key"] = "x" }, 14, "Invalid merchant key: merchant not found"},
		{"bad hash_key", "INV-1", func(b map[string]string) { b["hash_key"] = "a:b:c" }, 90, "Invalid hash key"},
		{"hash of another invoice", "INV-1", rehash("INV-2|" + MerchantKey), 68, "Hash key mismatch: invoice_id differs from the request"},
		{"hash of another layout", "INV-1", rehash("1|INV-1|" + MerchantKey), 68, "Hash key mismatch: the hash_key is not made with the checkstatus layout invoice_id|merchant_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			fx.pay("INV-1", "10.00", "TRY")
			body := statusBodyFor(t, tt.invoice)
			tt.mod(body)
			res := fx.authed("/api/checkstatus", body)
			if res.Code != 200 || res.status() != tt.wantCode || res.desc() != tt.wantDesc {
				t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
			}
		})
	}
}

// TestPendingResolves: a .69 sale stays pending until a check status at
// least PendingFor after it, which resolves it as completed, durably.
func TestPendingResolves(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.PendingFor = 5 * time.Second })
	fx.pay("INV-69", "20.69", "TRY")
	res := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-69"))
	if res.status() != 69 || res.Body["transaction_status"] != "Pending" || res.Body["payment_status"] != 0.0 {
		t.Fatalf("before PendingFor: %s", res.Raw)
	}
	if again := fx.pay("INV-69", "20.00", "TRY"); again.status() != 3 {
		t.Fatalf("pending invoice paid again: %s", again.Raw)
	}
	fx.clock.Advance(5 * time.Second)
	res = fx.authed("/api/checkstatus", statusBodyFor(t, "INV-69"))
	if res.status() != 100 || res.Body["transaction_status"] != "Completed" || res.Body["payment_status"] != 1.0 || res.Body["auth_code"] == "" {
		t.Fatalf("after PendingFor: %s", res.Raw)
	}
	if sale, _, _ := fx.store.Get("INV-69"); sale.State != StateCompleted {
		t.Fatalf("resolution not stored: %+v", sale)
	}
	if again := fx.pay("INV-69", "20.00", "TRY"); again.status() != 3 {
		t.Fatalf("resolved invoice paid again: %s", again.Raw)
	}
}

func TestPendingResolvesOnFirstCheckByDefault(t *testing.T) {
	fx := newFixture(t)
	fx.pay("INV-69", "20.69", "TRY")
	if res := fx.authed("/api/checkstatus", statusBodyFor(t, "INV-69")); res.Body["transaction_status"] != "Completed" {
		t.Fatalf("got %s", res.Raw)
	}
}
