package journal

import (
	"slices"
	"testing"
	"time"
)

// readTaken is a reading of the tests' own, an operation's stand-in: a
// taken sale → Succeeded, failed or voided → Declined, pending → Pending
// (the operations' own readings are tested with the rule in
// readings_test.go).
func readTaken(_ Attempt, c Check) Finding {
	if f, ok := c.Unanswered(); ok {
		return f
	}
	switch {
	case c.Sale.Taken():
		return Finding{Outcome: Succeeded}
	case c.Sale.Failed(), c.Sale.Voided():
		return Finding{Outcome: Declined}
	case c.Sale.Pending():
		return Finding{Outcome: Pending}
	}
	return c.NotUnderstood()
}

// TestKindsHandedDown: the journal settles and scopes only the kinds it
// is handed; a kind without a reading is not reconciled, and an attempt of
// a kind nobody declared is not settled.
func TestKindsHandedDown(t *testing.T) {
	ks := Kinds{{Name: "sale", Read: readTaken}, {Name: "manual"}}
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
