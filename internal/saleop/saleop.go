// Package saleop is what paycli says of an operation that makes a sale:
// how check status settles it (Read) and the words for it (Outcome,
// Says). The operations that make one (walletpay, an api payment) declare
// their kinds with it, and refund says with it why a sale it cannot
// refund was not taken; it sits below the commands because commands do
// not import each other.
package saleop

import (
	"fmt"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Outcome is the one reading of what check status says of the sale
// itself (gateway.Sale), which every command that reads it goes by: a
// sale's attempt settled (Read), a refund's check that the sale was paid,
// and the words both say it in. outcome is journal.Succeeded (the sale
// was taken: gateway.Sale.Taken), Declined (it failed, or was voided:
// nothing was taken), Pending, or Unknown (a state paycli does not
// understand, none at all, or an answer that contradicts itself: a taken
// sale whose payment_status is not 1). says is why, for a person: a
// sentence that reads after "invoice X cannot be refunded: " and as a
// reconcile note.
func Outcome(sale gateway.Sale) (outcome, says string) {
	status := render.Escape(redact.Cards(sale.Status))
	switch {
	case sale.Contradicted():
		return journal.Unknown, fmt.Sprintf("the gateway's answer contradicts itself: transaction_status %q, but its payment_status is %d, not 1; check the transaction with the gateway", status, sale.PaymentStatus)
	case sale.Taken():
		return journal.Succeeded, "the sale was taken"
	case sale.Failed(), sale.Voided():
		return journal.Declined, fmt.Sprintf("the sale is %s, not completed", status)
	case sale.Pending():
		return journal.Pending, fmt.Sprintf("the sale is %s, not completed yet", status)
	case sale.Stateless():
		return journal.Unknown, "the gateway does not say the sale was completed: its answer has no transaction_status"
	}
	return journal.Unknown, fmt.Sprintf("the sale is %s, not completed: transaction_status %q is not understood; check the transaction with the gateway", status, status)
}

// Read reads check status for an attempt that makes a sale (a walletpay,
// an api payment): taken (completed, or refunded after it was) →
// Succeeded; failed or voided → Declined; pending or status_code 69 →
// Pending; status_code 31 (no transaction) → NotFound (Outcome).
func Read(_ journal.Attempt, c journal.Check) journal.Finding {
	if f, ok := c.Unanswered(); ok {
		return f
	}
	outcome, says := Outcome(c.Sale)
	if outcome != journal.Unknown {
		says = ""
	}
	return journal.Finding{Outcome: outcome, Message: says}
}

// Says is what reconcile says a decided outcome means for a sale's
// attempt (journal.Kind.Says); resumed: a batch of the operation skips a
// taken sale when resumed.
func Says(resumed bool) func(journal.Learned) string {
	return func(l journal.Learned) string {
		if l.Outcome == journal.Declined {
			return "the transaction failed; nothing was taken"
		}
		if resumed {
			return "the sale was taken; a resumed batch skips it"
		}
		return "the sale was taken"
	}
}
