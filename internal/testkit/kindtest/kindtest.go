// Package kindtest holds, for tests of the commands that read the journal
// (which never import the money commands), the kinds paycli's money
// commands declare, as the app hands them down (app.moneyKinds; the app's
// TestKindTestAgreesWithTheApp holds each to the command's own). It is the
// one package besides the app that imports the commands, and only tests
// link it (archtest.TestOnlyAppImportsTheCommands names it): the readers'
// tests see each operation's own declaration, never a copy.
package kindtest

import (
	"slices"

	"github.com/paycli/paycli/internal/cli/api"
	"github.com/paycli/paycli/internal/cli/complete"
	"github.com/paycli/paycli/internal/cli/preauth"
	"github.com/paycli/paycli/internal/cli/refund"
	"github.com/paycli/paycli/internal/cli/walletpay"
	"github.com/paycli/paycli/internal/journal"
)

// Paycli are the money commands' kinds whose attempts check status
// settles, in the order the app registers them.
func Paycli() journal.Kinds {
	return slices.Concat(walletpay.Kinds(), refund.Kinds(), preauth.Kinds(), complete.Kinds(), api.Kinds())
}
