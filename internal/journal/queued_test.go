package journal

import (
	"testing"
	"time"
)

// TestQueuedRefund: a refund answered 101 is its own class, queued: not
// settled (Unresolved, Blocking) until check status finds it made or
// refused; a refund_info that still lists it waiting leaves it queued.
func TestQueuedRefund(t *testing.T) {
	e := intent("a1", "INV-1")
	e.Kind, e.Ref, e.Gateway = KindRefund, "RF1", "acct"
	out := e
	out.Type, out.Outcome = TypeOutcome, Queued
	a := Attempt{Intent: e, Outcome: &out}
	if a.Class() != Queued || !a.Unsettled() {
		t.Fatalf("class %s", a.Class())
	}
	if got := Blocking([]Attempt{a}, Scope{Gateway: "acct", Kind: KindWalletPay}, "INV-1"); len(got) != 1 {
		t.Errorf("a queued refund does not block a walletpay: %v", got)
	}
	asked := t0.Add(time.Hour)
	for status, want := range map[string]string{"Pending Approval": Pending, "Completed": Succeeded, "Rejected": Declined} {
		l := Settle(ReadRefund, a, answer(t, `,"invoice_id":"INV-1","refund_info":[{"refund_transaction_id":"RF1","status":"`+status+`","amount":"1.00"}]`), nil, asked)
		if l.Outcome != want {
			t.Errorf("refund_info %s: %s, want %s", status, l.Outcome, want)
		}
		rec := Reconciliation(a, l, ViaStatus, asked)
		settled := a
		settled.Reconciled = &rec
		if wantClass := map[string]string{Pending: Queued, Succeeded: Succeeded, Declined: Declined}[want]; settled.Class() != wantClass {
			t.Errorf("after %s: class %s, want %s", status, settled.Class(), wantClass)
		}
	}
}

// TestQueuedRefundIsNotResent (issue 39, defect 2): the re-send of a
// queued refund's ref does not go past it (MayResend), where the re-send
// of an unknown one does: a 104 to it would not tell whether the queued
// refund is made or refused.
func TestQueuedRefundIsNotResent(t *testing.T) {
	e := intent("a1", "INV-1")
	e.Kind, e.Ref, e.Gateway = KindRefund, "RF1", "acct"
	retry := e
	retry.Attempt = "a2"
	for class, may := range map[string]bool{Queued: false, Unknown: true} {
		out := e
		out.Type, out.Outcome = TypeOutcome, class
		a := Attempt{Intent: e, Outcome: &out}
		if got := MayResend(retry, []Attempt{a}); got != may {
			t.Errorf("the re-send of a %s refund: MayResend %v, want %v", class, got, may)
		}
	}
}
