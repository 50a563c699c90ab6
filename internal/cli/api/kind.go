package api

import (
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/saleop"
)

// KindAPI is the journal kind of `paycli api` on a payment path paycli
// has no command for (paySmart2D, paySmart3D, payByCardToken…:
// gateway.MoneyPayment). An api call on the path of a command's operation
// (a refund, a capture…) is journaled under that operation's kind, so
// that its guards, locks and reconciliation see it. Lines written before
// that hold api calls of any path.
const KindAPI = "api"

// Kinds is everything the rest of paycli says about an api payment
// (journal.Kind): check status settles it as a sale (saleop.Read), and
// reconcile says it in a sale's words, without a batch to resume. It is
// neither Sale nor Refund for the ledger's audit: a line names no path,
// and an older api line may be a refund or a capture, which a sale's row
// would settle as made (review 41 #11).
func Kinds() []journal.Kind {
	return []journal.Kind{{Name: KindAPI, Read: saleop.Read, Says: saleop.Says(false)}}
}
