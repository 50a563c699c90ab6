package journal

import (
	"testing"
)

// TestQueuedRefund: a refund answered 101 is its own class, queued: not
// settled (Unresolved, Blocking) until check status finds it made or
// refused; a refund_info that still lists it waiting leaves it queued.
func TestQueuedRefund(t *testing.T) {
	e := intent("a1", "INV-1")
	e.Kind, e.Ref, e.Gateway = "refund", "RF1", "acct"
	out := e
	out.Type, out.Outcome = TypeOutcome, Queued
	a := Attempt{Intent: e, Outcome: &out}
	if a.Class() != Queued || !a.Unsettled() {
		t.Fatalf("class %s", a.Class())
	}
	if got := Blocking([]Attempt{a}, Scope{Gateway: "acct", Kind: "walletpay"}, "INV-1"); len(got) != 1 {
		t.Errorf("a queued refund does not block a walletpay: %v", got)
	}
}

// TestQueuedRefundIsNotResent (issue 39, defect 2): the re-send of a
// queued refund's ref does not go past it (MayResend), where the re-send
// of an unknown one does: a 104 to it would not tell whether the queued
// refund is made or refused.
func TestQueuedRefundIsNotResent(t *testing.T) {
	e := intent("a1", "INV-1")
	e.Kind, e.Ref, e.Gateway = "refund", "RF1", "acct"
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
