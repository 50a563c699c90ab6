package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/ledger"
)

// auditDay is the range the tests below audit: 2025-03-05, gateway time.
var (
	dayFrom = time.Date(2025, 3, 5, 0, 0, 0, 0, time.FixedZone("TRT", 3*3600))
	dayTo   = dayFrom.AddDate(0, 0, 1)
)

// runRange audits rows against the range's attempts, with byInvoice the
// journal's every attempt (Audit.Invoice); it returns the result and the
// invoices looked up.
func runRange(t *testing.T, rows []gateway.Transaction, inRange []journal.Attempt, byInvoice []journal.Attempt) (*ledger.Result, []string) {
	t.Helper()
	var looked []string
	au := ledger.Audit{Kinds: kinds, Table: table, Source: "getTransactions", Now: auditNow, From: dayFrom, To: dayTo,
		Invoice: func(_ context.Context, invoice string) ([]journal.Attempt, error) {
			looked = append(looked, invoice)
			var out []journal.Attempt
			for _, a := range byInvoice {
				if a.Intent.Invoice == invoice {
					out = append(out, a)
				}
			}
			return out, nil
		}}
	res, err := au.Run(context.Background(), yielded(inRange), seq(rows))
	if err != nil {
		t.Fatal(err)
	}
	return res, looked
}

func createdAt(t gateway.Transaction, at time.Time) gateway.Transaction {
	t.CreatedAt = at
	return t
}

// TestLaterRefundsAndChargebacks: the journal's refunds of an invoice
// are read whatever their day (review 41 #6): a refund paycli made the
// day after the sale is no refund made elsewhere when the sale's day is
// audited. A row made before the range and changed in it (read by
// modification) is audited for its chargeback and refunds, never totalled
// nor told as a sale made elsewhere.
func TestLaterRefundsAndChargebacks(t *testing.T) {
	sale := attempt("sale", "R", "a1", "", "100", journal.Succeeded)
	nextDay := attempt("refund", "R", "r1", "RF1", "10", journal.Succeeded)
	old := attempt("sale", "C", "c1", "", "100", journal.Succeeded)
	charged := createdAt(row("C", "Chargebacked"), dayFrom.AddDate(0, 0, -20))
	panel := createdAt(row("P", "Partially Refunded", refundInfo("RP", "5", "Completed")), dayFrom.AddDate(0, 0, -3))
	tests := []struct {
		name      string
		rows      []gateway.Transaction
		inRange   []journal.Attempt
		byInvoice []journal.Attempt
		want      []string
		totalled  int
	}{
		{"a refund made the next day", []gateway.Transaction{createdAt(row("R", "Partially Refunded", refundInfo("RF1", "10", "Completed")), dayFrom.Add(time.Hour))},
			[]journal.Attempt{sale}, []journal.Attempt{sale, nextDay}, nil, 1},
		{"an older sale charged back", []gateway.Transaction{charged}, nil, []journal.Attempt{old}, []string{"disagree/chargeback/C"}, 0},
		{"an older site sale refunded in the panel", []gateway.Transaction{panel}, nil, nil, []string{"made_elsewhere/refund_elsewhere/P"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := runRange(t, tt.rows, tt.inRange, tt.byInvoice)
			if got := found(res); !equal(got, tt.want) {
				t.Errorf("found %q, want %q", got, tt.want)
			}
			if rows := totalRows(res); rows != tt.totalled {
				t.Errorf("totalled %d rows, want %d", rows, tt.totalled)
			}
		})
	}
}

// TestLookupOnlyRefunded: only an invoice whose row shows a refund or a
// chargeback is looked up, once, so that plain sales cost no lookup.
func TestLookupOnlyRefunded(t *testing.T) {
	at := dayFrom.Add(time.Hour)
	refunded := createdAt(row("R", "Partially Refunded", refundInfo("RF1", "10", "Completed")), at)
	_, looked := runRange(t, []gateway.Transaction{createdAt(row("S", "Completed"), at), refunded, refunded, createdAt(row("C", "Chargebacked"), at)}, nil, nil)
	if !equal(looked, []string{"R", "C"}) {
		t.Errorf("looked up %q, want R and C once", looked)
	}
}

// TestMidnightEdge: a sale sent at 23:59:59.9 whose row is written at
// 00:00:00.3 the next day is no missing sale (review 41 #9); a row past
// the range serves only the journal's sales of the range, never told as
// made elsewhere nor totalled.
func TestMidnightEdge(t *testing.T) {
	sale := attempt("sale", "M", "m1", "", "100", journal.Succeeded)
	sale.Intent.Time = dayTo.Add(-100 * time.Millisecond)
	rows := []gateway.Transaction{createdAt(row("M", "Completed"), dayTo.Add(300*time.Millisecond)), createdAt(row("N", "Completed"), dayTo.Add(time.Second))}
	res, _ := runRange(t, rows, []journal.Attempt{sale}, nil)
	if got := found(res); len(got) != 0 {
		t.Errorf("found %q, want nothing", got)
	}
	if rows := totalRows(res); rows != 0 {
		t.Errorf("totalled %d rows past the range", rows)
	}
}

func totalRows(res *ledger.Result) int {
	n := 0
	for _, tot := range res.Totals {
		n += tot.Rows
	}
	return n
}
