package gateway

import (
	"encoding/json"
	"testing"
)

// TestSaleStateOf is the one reading of transaction_status: every
// spelling the gateway and the sandbox use, and what each state is.
func TestSaleStateOf(t *testing.T) {
	for _, c := range []struct {
		status string
		want   SaleState
		taken  bool
	}{
		{"Completed", SaleCompleted, true},
		{"completed", SaleCompleted, true},
		{"Success", SaleCompleted, true},
		{"Successful", SaleCompleted, true},
		{"Refunded", SaleRefunded, true},
		// Issue 32, item 7: a completed sale refunded in part since.
		{"Partially Refunded", SalePartlyRefunded, true},
		{"partially-refunded", SalePartlyRefunded, true},
		{"partially_refunded", SalePartlyRefunded, true},
		{"Partial Refunded", SalePartlyRefunded, true},
		{"Failed", SaleFailed, false},
		{"fail", SaleFailed, false},
		{"Pending", SalePending, false},
		{"Pre-Authorized", SalePreAuthorized, false},
		{"Pre-Authorization", SalePreAuthorized, false},
		{"Cancelled", SaleCancelled, false},
		{"Canceled", SaleCancelled, false},
		{"", SaleNoState, false},
		{"  ", SaleNoState, false},
		{"Chargeback", SaleChargedBack, false},
		{"Chargebacked", SaleChargedBack, false},
		{"Awaiting Payment", SaleOther, false},
	} {
		got := SaleStateOf(c.status)
		if got != c.want || got.Taken() != c.taken {
			t.Errorf("SaleStateOf(%q) = %q (taken %v), want %q (taken %v)", c.status, got, got.Taken(), c.want, c.taken)
		}
	}
}

// TestSale reads a whole answer: its state, amounts, payment_status, the
// pre-authorization and a 3D sale waiting for the merchant.
func TestSale(t *testing.T) {
	var r CheckStatusResult
	body := `{"status_code":100,"invoice_id":"INV-1","transaction_status":" Partially Refunded ","transaction_amount":"150.00",
		"total_refunded_amount":50,"payment_status":0,"transaction_type":"Auth","three_d_status":"awaiting_merchant_completion"}`
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	s := r.Sale()
	if s.State != SalePartlyRefunded || s.Status != "Partially Refunded" || s.PreAuth != PreAuthNone || !s.AwaitsMerchant() {
		t.Errorf("sale %+v", s)
	}
	if a, _ := s.Amount.Decimal(); a.String() != "150" {
		t.Errorf("amount %s", a)
	}
	if d, _ := s.Refunded.Decimal(); d.String() != "50" {
		t.Errorf("refunded %s", d)
	}
	if !s.HasPaymentStatus || s.PaymentStatus != 0 || !s.Contradicted() {
		t.Errorf("payment_status %d (%v), contradicted %v: a taken sale whose payment_status is 0 contradicts itself", s.PaymentStatus, s.HasPaymentStatus, s.Contradicted())
	}
	r.TransactionType, r.TransactionStatus = "PreAuth", "Pre-Authorized"
	if s := r.Sale(); s.PreAuth != PreAuthOpen || s.Contradicted() {
		t.Errorf("a held pre-authorization: %+v", s)
	}
}

// TestRefundState reads refund_info's status words.
func TestRefundState(t *testing.T) {
	for status, want := range map[string]RefundState{
		"Completed": RefundMade, "Success": RefundMade, "": RefundMade,
		"Pending": RefundWaiting, "Waiting for approval": RefundWaiting, "Awaiting Approval": RefundWaiting, "queued": RefundWaiting,
		"Rejected": RefundRefused, "Declined": RefundRefused, "Refused": RefundRefused, "Cancelled": RefundRefused, "Failed": RefundRefused,
	} {
		if got := (RefundInfo{Status: status}).State(); got != want {
			t.Errorf("refund status %q: %s, want %s", status, got, want)
		}
	}
}

// TestSaleQuestions: the questions callers ask instead of comparing state
// words, read from the one table; a voided sale reads alike in check
// status and in a call's answer (the two tables disagreed: issue 40).
func TestSaleQuestions(t *testing.T) {
	for _, c := range []struct {
		status, typ                               string
		taken, refundable, voided, held, captured bool
	}{
		{status: "Completed", taken: true, refundable: true},
		{status: "Partially Refunded", taken: true, refundable: true},
		{status: "Voided", voided: true},
		{status: "void", voided: true},
		{status: "Cancelled", voided: true},
		{status: "Failed"},
		{status: "Pre-Authorized", typ: "PreAuth", held: true},
		{status: "Completed", typ: "PreAuth", taken: true, refundable: true, captured: true},
		// Words only a call's own answer says of what it did: in check
		// status they are not understood, never a taken sale or a capture.
		{status: "Approved"},
		{status: "Approved", typ: "PreAuth"},
		{status: "Captured"},
		{status: "Captured", typ: "PreAuth"},
		{status: "Complete"},
		{status: "Cancel"},
	} {
		r := &CheckStatusResult{TransactionStatus: c.status, TransactionType: c.typ}
		s := r.Sale()
		if s.Taken() != c.taken || s.Refundable() != c.refundable || s.Voided() != c.voided || s.Held() != c.held || s.Captured() != c.captured {
			t.Errorf("%s %s: taken %v refundable %v voided %v held %v captured %v", c.typ, c.status, s.Taken(), s.Refundable(), s.Voided(), s.Held(), s.Captured())
		}
		if c.voided != (SaleStateOf(c.status) == SaleCancelled) {
			t.Errorf("%s: check status reads it cancelled %v", c.status, !c.voided)
		}
		if c.voided && callStateOf(c.status) != SaleCancelled {
			t.Errorf("%s: a call's answer and check status read it apart", c.status)
		}
	}
	for status, want := range map[string]SaleState{"Approved": SaleCompleted, "captured": SaleCompleted, "Complete": SaleCompleted, "Cancel": SaleCancelled, "Voided": SaleCancelled, "Completed": SaleCompleted} {
		if got := callStateOf(status); got != want {
			t.Errorf("a call's answer %q reads %q, want %q", status, got, want)
		}
	}
	paid := &CheckStatusResult{TransactionStatus: "Completed", Extra: map[string]json.RawMessage{"payment_status": json.RawMessage(`0`)}}
	if paid.Sale().Refundable() {
		t.Error("a completed sale whose payment_status is 0 is refundable")
	}
}
