// Package kindtest holds, for tests of the commands that read the journal
// (which never import the money commands), the kinds paycli's money
// commands declare, as the app hands them down (app.moneyKinds; the app's
// TestKindTestAgreesWithTheApp holds each to the command's own). A new
// operation need not be added here.
package kindtest

import "github.com/paycli/paycli/internal/journal"

// Paycli are money commands' kinds, in the order the app registers them,
// with how check status settles each.
func Paycli() journal.Kinds {
	return journal.Kinds{
		{Name: journal.KindWalletPay, Read: journal.ReadSale},
		{Name: journal.KindRefund, Read: journal.ReadRefund},
		{Name: journal.KindPreAuthCapture, Read: journal.ReadPreAuth(false)},
		{Name: journal.KindPreAuthCancel, Read: journal.ReadPreAuth(true)},
		{Name: journal.KindComplete, Read: journal.ReadCompletion(false)},
		{Name: journal.KindCompleteCancel, Read: journal.ReadCompletion(true)},
		{Name: journal.KindAPI, Read: journal.ReadSale},
	}
}
