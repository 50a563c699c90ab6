package preauth

import "github.com/paycli/paycli/internal/journal"

// KindCapture and KindCancel are confirmPayment's two actions on one
// pre-authorization. They are two kinds, not one with an action, so that
// a batch resumed from the journal never reads a capture as the cancel it
// was asked for, or the other way round.
const (
	KindCapture = "preauth-capture"
	KindCancel  = "preauth-cancel"
)

// Kinds is everything the rest of paycli says about a capture and a
// cancellation (journal.Kind): check status settles each by what became
// of the hold (readPreAuth); each is spoken of by its kind's name.
func Kinds() []journal.Kind {
	return []journal.Kind{{Name: KindCapture, Read: readPreAuth(false)}, {Name: KindCancel, Read: readPreAuth(true)}}
}

// readPreAuth is the reading of check status for a capture of a
// pre-authorization (for its cancellation when cancel): the hold
// captured → Succeeded (Declined), released → Declined (Succeeded), still
// held → NotFound.
func readPreAuth(cancel bool) journal.Reader {
	done, undone := journal.Succeeded, journal.Declined
	if cancel {
		done, undone = undone, done
	}
	return func(_ journal.Attempt, c journal.Check) journal.Finding {
		if f, ok := c.Unanswered(); ok {
			return f
		}
		switch {
		case c.Sale.Captured():
			return journal.Finding{Outcome: done}
		case c.Sale.Released():
			return journal.Finding{Outcome: undone}
		case c.Sale.Held():
			return journal.Finding{Outcome: journal.NotFound}
		}
		return c.NotUnderstood()
	}
}
