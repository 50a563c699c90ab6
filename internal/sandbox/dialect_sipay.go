package sandbox

import (
	"net/http"
	"time"
)

// sipayDialect is the sandbox's own answers, in Sipay's shapes: order ids
// with letters, check status as an object, every id a JSON string.
type sipayDialect struct{}

func (sipayDialect) newOrderIDs(now func() time.Time) func() string { return NewOrderIDs(now) }

func (sipayDialect) writeCheckStatus(w http.ResponseWriter, body *checkStatusBody) {
	if body == nil {
		writeStatus(w, 31, "Transaction not found")
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (sipayDialect) shapeRefund(*refundAnswer) {}

// shapeLedgerIDs leaves a ledger row's ids strings, as §11.12's example.
func (sipayDialect) shapeLedgerIDs(_, _, _ *wireText) {}
