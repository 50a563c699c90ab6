package saleop

import (
	"testing"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestReadSettlesBySaleState: check status settles a sale's attempt by
// where the sale stands: taken → succeeded; failed, cancelled or voided
// (nothing taken) → declined; pending → pending; a word only a call's own
// answer says (Approved, Captured), none, or one that contradicts itself
// → unknown, which holds the invoice.
func TestReadSettlesBySaleState(t *testing.T) {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Invoice: "INV-1"}}
	for status, want := range map[string]string{
		"Completed":          journal.Succeeded,
		"Refunded":           journal.Succeeded,
		"Partially Refunded": journal.Succeeded,
		"Failed":             journal.Declined,
		"Cancelled":          journal.Declined,
		"Voided":             journal.Declined,
		"void":               journal.Declined,
		"Pending":            journal.Pending,
		"Approved":           journal.Unknown,
		"Captured":           journal.Unknown,
		"":                   journal.Unknown,
		"Teleported":         journal.Unknown,
	} {
		res := &gateway.CheckStatusResult{StatusCode: gateway.StatusSuccess, InvoiceID: "INV-1", TransactionStatus: status}
		got := Read(a, journal.Check{Res: res, Sale: res.Sale()})
		if got.Outcome != want {
			t.Errorf("%q: %+v, want %s", status, got, want)
		}
		if outcome, says := Outcome(res.Sale()); outcome != want || says == "" {
			t.Errorf("Outcome(%q) = %s, %q; want %s with a reason", status, outcome, says, want)
		}
	}
}
