package walletpay

import (
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/saleop"
)

// KindWalletPay is the journal kind of `paycli walletpay` (a sale), never
// changed once users' journals hold it (lines written before kinds were
// recorded are walletpay's too: journal.LegacyKind).
const KindWalletPay = "walletpay"

// Kinds is everything the rest of paycli says about a walletpay, which
// the app hands down (journal.Kind): check status settles it as the sale
// it made (saleop.Read); status and reconcile name it by its invoice
// alone; reconcile says a taken one is skipped by a resumed batch.
func Kinds() []journal.Kind {
	return []journal.Kind{{
		Name:    KindWalletPay,
		Read:    saleop.Read,
		Subject: func(journal.Attempt) string { return "" },
		Says:    saleop.Says(true),
		Sale:    true,
	}}
}
