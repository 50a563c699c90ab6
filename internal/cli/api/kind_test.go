package api

import (
	"slices"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestKindIsTheCommands: a call to a path that moves money is journaled
// under the kind of the command that makes the same call (the client
// names each call by it), so that the rule over unsettled attempts, the
// invoice's lock and reconcile see it whichever command sent it; a
// payment paycli has no command for is an api attempt.
func TestKindIsTheCommands(t *testing.T) {
	for call, want := range map[gateway.MoneyCall]string{
		gateway.MoneyWalletPay:      "walletpay",
		gateway.MoneyRefund:         "refund",
		gateway.MoneyCapture:        "preauth-capture",
		gateway.MoneyReleaseHold:    "preauth-cancel",
		gateway.MoneyComplete:       "complete",
		gateway.MoneyCompleteCancel: "complete-cancel",
		gateway.MoneyPayment:        "api",
	} {
		got := operation{call: call}.Kind()
		if got != want {
			t.Errorf("call %q is journaled as %q, want %q", call, got, want)
		}
	}
	// The api's own kind is declared, read as a sale; the others are
	// their commands' (app.TestMoneyCallsHaveKinds).
	if got := journal.Kinds(Kinds()); !slices.Equal(got.Names(), []string{"api"}) || !got.Reconcilable("api") {
		t.Errorf("api declares %v", got.Names())
	}
}

// TestAPINotASaleForTheLedger: an api line names no path, and an older
// one may hold a refund: the ledger's audit reads none as a sale or a
// refund, so that no sale's row settles an api refund as made (review 41
// #11).
func TestAPINotASaleForTheLedger(t *testing.T) {
	refund := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: KindAPI, Invoice: "A", Attempt: "a1", Ref: "RF1"}}
	if k := journal.Kinds(Kinds()).For(refund); k.Sale || k.Refund {
		t.Errorf("an api line is read as sale %v, refund %v", k.Sale, k.Refund)
	}
}
