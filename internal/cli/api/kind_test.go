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
