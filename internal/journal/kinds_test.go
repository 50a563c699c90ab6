package journal

import (
	"slices"
	"testing"
	"time"
)

// readerOf is the reading each of paycli's commands declares for its
// kind (internal/testkit/kindtest holds the list for other packages).
func readerOf(kind string) Reader {
	switch kind {
	case KindRefund:
		return ReadRefund
	case KindPreAuthCapture, KindPreAuthCancel:
		return ReadPreAuth(kind == KindPreAuthCancel)
	case KindComplete, KindCompleteCancel:
		return ReadCompletion(kind == KindCompleteCancel)
	}
	return ReadSale
}

// TestKindsHandedDown: the journal settles and scopes only the kinds it
// is handed; a kind without a reading is not reconciled, and an attempt of
// a kind nobody declared is not settled.
func TestKindsHandedDown(t *testing.T) {
	ks := Kinds{{Name: "sale", Read: ReadSale}, {Name: "manual"}}
	if got := ks.Names(); !slices.Equal(got, []string{"sale", "manual"}) {
		t.Errorf("names %v", got)
	}
	if !ks.Reconcilable("sale") || ks.Reconcilable("manual") || ks.Reconcilable("walletpay") {
		t.Errorf("reconcilable: sale %v, manual %v, walletpay %v", ks.Reconcilable("sale"), ks.Reconcilable("manual"), ks.Reconcilable("walletpay"))
	}
	scopes := ReconcileScopes(ks, "p", "https://gw.example", "acct", "", false)
	if len(scopes) != 1 || scopes[0].Kind != "sale" {
		t.Errorf("scopes %+v, want the sale's only", scopes)
	}
	e := intent("a1", "INV-1")
	e.Kind = "manual"
	if l := Settle(nil, Attempt{Intent: e}, answer(t, `,"invoice_id":"INV-1","transaction_status":"Completed"`), nil, t0.Add(24*time.Hour)); l.Outcome != "" {
		t.Errorf("an attempt of a kind without a reading settled %s", l.Outcome)
	}
}
