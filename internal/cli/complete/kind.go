package complete

import "github.com/paycli/paycli/internal/journal"

// KindComplete and KindCancel are /payment/complete's two actions on a
// 3D sale completed by the merchant.
const (
	KindComplete = "complete"
	KindCancel   = "complete-cancel"
)

// Kinds is everything the rest of paycli says about a completion and a
// cancellation (journal.Kind): check status settles each by where the 3D
// sale stands (readCompletion); each is spoken of by its kind's name.
func Kinds() []journal.Kind {
	return []journal.Kind{{Name: KindComplete, Read: readCompletion(false)}, {Name: KindCancel, Read: readCompletion(true)}}
}

// readCompletion is the reading of check status for the merchant's
// completion of a 3D sale (for its cancellation when cancel): completed →
// Succeeded (Declined), cancelled → Declined (Succeeded), failed →
// Declined, still waiting for the merchant → NotFound.
func readCompletion(cancel bool) journal.Reader {
	completed, cancelled := journal.Succeeded, journal.Declined
	if cancel {
		completed, cancelled = journal.Declined, journal.Succeeded
	}
	return func(_ journal.Attempt, c journal.Check) journal.Finding {
		if f, ok := c.Unanswered(); ok {
			if f.Outcome == journal.Pending && c.Sale.AwaitsMerchant() {
				// The sale still waits for the merchant: the completion
				// was not made.
				f.Outcome = journal.NotFound
			}
			return f
		}
		switch {
		case c.Sale.Taken():
			return journal.Finding{Outcome: completed}
		case c.Sale.Voided():
			return journal.Finding{Outcome: cancelled}
		case c.Sale.Failed():
			return journal.Finding{Outcome: journal.Declined}
		case c.Sale.Pending():
			return journal.Finding{Outcome: journal.Pending}
		}
		return c.NotUnderstood()
	}
}
