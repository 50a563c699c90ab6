package journalindex

import (
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// RecordLearned appends a reconcile line recording l for each attempt of
// scope for invoice whose outcome is unknown (journal.RecordLearned),
// reading the invoice's attempts through the index.
func RecordLearned(path string, scope journal.Scope, invoice string, l journal.Learned, via string, now time.Time) ([]journal.Attempt, error) {
	attempts, _, err := Lookup(path, invoice)
	if err != nil {
		return nil, err
	}
	return journal.RecordLearned(path, attempts, scope, invoice, l, via, now)
}
