package ledger_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/ledger"
)

var kinds = journal.Kinds{{Name: "sale", Sale: true}, {Name: "refund", Refund: true}, {Name: "other"}}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// table is a commission table of one entry: BONUS, 1 installment, 2.5%.
func table(context.Context, string) ([]commission.Row, error) {
	return []commission.Row{{Installment: 1, Kind: commission.KindRegular, Entry: commission.Entry{CardProgram: "BONUS",
		MerchantCommissionPercentage: commission.NewValue(dec("2.5")), MerchantCommissionFixed: commission.NewValue(decimal.Zero)}}}, nil
}

// row is a sale of 100.00 TRY on BONUS, charged the table's 2.50.
func row(invoice, label string, refunds ...gateway.RefundInfo) gateway.Transaction {
	at := time.Date(2025, 3, 5, 10, 0, 0, 0, time.UTC)
	return gateway.Transaction{InvoiceID: invoice, Currency: "TRY", StateLabel: label, Installment: 1, CardProgram: "BONUS",
		Gross: dec("100"), ProductPrice: dec("100"), MerchantCommission: dec("2.50"), Net: dec("97.50"), RollingAmount: dec("10"),
		RollingReleasedAt: at.AddDate(0, 6, 0), SettlesMerchant: at.AddDate(0, 0, 1), Refunds: refunds}
}

func refundInfo(ref, amount, status string) gateway.RefundInfo {
	return gateway.RefundInfo{RefundTransactionID: ref, Amount: commission.NewValue(dec(amount)), Status: status}
}

// attempt is an attempt of kind on invoice: outcome "" leaves it without
// an outcome line (unknown).
func attempt(kind, invoice, id, ref, amount, outcome string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: kind, Invoice: invoice, Attempt: id, Ref: ref, Amount: amount, Currency: "TRY"}}
	if outcome != "" {
		o := a.Intent
		o.Type, o.Outcome = journal.TypeOutcome, outcome
		a.Outcome = &o
	}
	return a
}

func run(t *testing.T, rows []gateway.Transaction, attempts ...journal.Attempt) *ledger.Result {
	t.Helper()
	au := ledger.Audit{Kinds: kinds, Table: table, Source: "getTransactions", Now: auditNow}
	res, err := au.Run(context.Background(), yielded(attempts), seq(rows))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// yielded is the journal's side of an audit: attempts, in order.
func yielded(attempts []journal.Attempt) func(yield func(journal.Attempt) error) error {
	return func(yield func(journal.Attempt) error) error {
		for _, a := range attempts {
			if err := yield(a); err != nil {
				return err
			}
		}
		return nil
	}
}

func seq(rows []gateway.Transaction) iter.Seq2[gateway.Transaction, error] {
	return func(yield func(gateway.Transaction, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// found is the differences as "group/what/invoice" words.
func found(res *ledger.Result) []string {
	var out []string
	for _, d := range res.Differences {
		out = append(out, string(d.Group)+"/"+d.What+"/"+d.Invoice)
	}
	return out
}

// TestEachDifference plants each kind of difference alone, beside a sale
// that agrees, and checks that the audit finds exactly it.
func TestEachDifference(t *testing.T) {
	agree := []journal.Attempt{attempt("sale", "OK", "a-ok", "", "100", journal.Succeeded)}
	overcharged := row("FEE", "Completed")
	overcharged.MerchantCommission = dec("3.00")
	tests := []struct {
		name     string
		rows     []gateway.Transaction
		attempts []journal.Attempt
		want     []string
		person   int
	}{
		{"agree", nil, nil, nil, 0},
		{"sale made elsewhere", []gateway.Transaction{row("SITE", "Completed")}, nil, []string{"made_elsewhere/sale_elsewhere/SITE"}, 0},
		{"refund made elsewhere", []gateway.Transaction{row("R", "Partially Refunded", refundInfo("PANEL", "10", "Completed"))},
			[]journal.Attempt{attempt("sale", "R", "a1", "", "100", journal.Succeeded)}, []string{"made_elsewhere/refund_elsewhere/R"}, 0},
		{"sale made, not at the gateway", nil, []journal.Attempt{attempt("sale", "GONE", "a1", "", "100", journal.Succeeded)},
			[]string{"not_at_gateway/sale_missing/GONE"}, 1},
		{"declined sale, never at the gateway, is no difference", nil, []journal.Attempt{attempt("sale", "NO", "a1", "", "100", journal.Declined)}, nil, 0},
		{"refund in the journal only", []gateway.Transaction{row("R", "Completed")},
			[]journal.Attempt{attempt("sale", "R", "a1", "", "100", journal.Succeeded), attempt("refund", "R", "a2", "RF1", "10", journal.Succeeded)},
			[]string{"disagree/refund_total/R"}, 1},
		{"refund missing from refund_history", []gateway.Transaction{row("R", "Partially Refunded", refundInfo("RF9", "10", "Completed"))},
			[]journal.Attempt{attempt("sale", "R", "a1", "", "100", journal.Succeeded), attempt("refund", "R", "a2", "RF1", "10", journal.Succeeded)},
			[]string{"disagree/refund_missing/R", "made_elsewhere/refund_elsewhere/R"}, 1},
		{"partial refund total differs", []gateway.Transaction{row("R", "Partially Refunded", refundInfo("RF1", "15", "Completed"))},
			[]journal.Attempt{attempt("sale", "R", "a1", "", "100", journal.Succeeded), attempt("refund", "R", "a2", "RF1", "10", journal.Succeeded)},
			[]string{"disagree/refund_total/R"}, 1},
		{"chargeback", []gateway.Transaction{row("CB", "Chargebacked")}, []journal.Attempt{attempt("sale", "CB", "a1", "", "100", journal.Succeeded)},
			[]string{"disagree/chargeback/CB"}, 1},
		{"sale the journal thinks declined", []gateway.Transaction{row("D", "Completed")}, []journal.Attempt{attempt("sale", "D", "a1", "", "100", journal.Declined)},
			[]string{"disagree/declined_but_taken/D"}, 1},
		{"sale made, the ledger says failed", []gateway.Transaction{row("F", "Failed")}, []journal.Attempt{attempt("sale", "F", "a1", "", "100", journal.Succeeded)},
			[]string{"disagree/made_but_not_taken/F"}, 1},
		{"unknown sale the ledger lists taken", []gateway.Transaction{row("U", "Completed")}, []journal.Attempt{attempt("sale", "U", "a1", "", "100", "")},
			[]string{"ledger_names/settles/U"}, 1},
		{"unknown refund the ledger lists made", []gateway.Transaction{row("U", "Partially Refunded", refundInfo("RF1", "10", "Completed"))},
			[]journal.Attempt{attempt("sale", "U", "a1", "", "100", journal.Succeeded), attempt("refund", "U", "a2", "RF1", "10", "")},
			[]string{"ledger_names/settles/U"}, 1},
		{"unknown refund the ledger does not list: no evidence", []gateway.Transaction{row("U", "Completed")},
			[]journal.Attempt{attempt("sale", "U", "a1", "", "100", journal.Succeeded), attempt("refund", "U", "a2", "RF1", "10", "")}, nil, 0},
		{"unknown sale told by a later success", []gateway.Transaction{row("U", "Completed")},
			[]journal.Attempt{attempt("sale", "U", "a1", "", "100", ""), attempt("sale", "U", "a2", "", "100", journal.Succeeded)}, nil, 0},
		{"commission not the table's", []gateway.Transaction{overcharged}, []journal.Attempt{attempt("sale", "FEE", "a1", "", "100", journal.Succeeded)},
			[]string{"fees/fee/FEE"}, 1},
		{"no table entry for the program", []gateway.Transaction{func() gateway.Transaction { r := row("P", "Completed"); r.CardProgram = "AXESS"; return r }()},
			[]journal.Attempt{attempt("sale", "P", "a1", "", "100", journal.Succeeded)}, []string{"fees/no_table_entry/P"}, 1},
		{"an attempt of another kind is not matched", []gateway.Transaction{row("O", "Completed")},
			[]journal.Attempt{attempt("other", "O", "a1", "", "100", journal.Succeeded)}, []string{"made_elsewhere/sale_elsewhere/O"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, append([]gateway.Transaction{row("OK", "Completed")}, tt.rows...), append(agree, tt.attempts...)...)
			got := found(res)
			if len(got) != len(tt.want) {
				t.Fatalf("found %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("found %q, want %q", got, tt.want)
				}
			}
			if res.NeedsPerson != tt.person {
				t.Errorf("needs a person: %d, want %d", res.NeedsPerson, tt.person)
			}
		})
	}
}

// TestSettlementEvidence: a named attempt is offered with the outcome the
// row says and the row as evidence, saying its source; a refused refund is
// declined, a waiting one is offered nothing.
func TestSettlementEvidence(t *testing.T) {
	tests := []struct {
		status, want string
	}{{"Completed", journal.Succeeded}, {"Rejected", journal.Declined}, {"Awaiting Approval", ""}}
	for _, tt := range tests {
		res := run(t, []gateway.Transaction{row("U", "Completed", refundInfo("RF1", "10", tt.status))},
			attempt("sale", "U", "a1", "", "100", journal.Succeeded), attempt("refund", "U", "a2", "RF1", "10", ""))
		named := res.In(ledger.Named)
		if len(named) != 1 || named[0].Attempt != "a2" {
			t.Fatalf("%s: named %+v", tt.status, named)
		}
		s := named[0].Settle
		switch {
		case tt.want == "" && s != nil:
			t.Errorf("%s: offered %+v for a refund still waiting", tt.status, s)
		case tt.want != "" && (s == nil || s.Outcome != tt.want):
			t.Errorf("%s: settlement %+v, want %s", tt.status, s, tt.want)
		case s != nil && (s.Evidence.Fields["source"] != `"getTransactions"` || s.Evidence.Fields["refund_transaction_id"] != `"RF1"`):
			t.Errorf("%s: evidence %+v", tt.status, s.Evidence)
		}
	}
}

// TestFeesAndTotals: the fee audit sums per program, the totals per
// currency with the reserve's release and the settlement by day.
func TestFeesAndTotals(t *testing.T) {
	over := row("B", "Completed")
	over.MerchantCommission, over.Net = dec("3.10"), dec("96.90")
	cb := row("C", "Chargebacked")
	cb.RefundedChargebackFee = dec("50")
	res := run(t, []gateway.Transaction{row("A", "Completed"), over, cb, row("F", "Failed")})
	if len(res.Fees) != 1 || !res.Fees[0].Difference.Equal(dec("0.60")) || res.Fees[0].Sales != 3 || !res.Fees[0].Expected.Equal(dec("7.50")) {
		t.Errorf("fees %+v", res.Fees)
	}
	if len(res.Totals) != 1 {
		t.Fatalf("totals %+v", res.Totals)
	}
	tot := res.Totals[0]
	if tot.Rows != 4 || !tot.Gross.Equal(dec("300")) || !tot.Commission.Equal(dec("8.10")) || !tot.Net.Equal(dec("291.90")) ||
		tot.Chargebacks != 1 || !tot.ChargebackFees.Equal(dec("50")) || !tot.RollingHeld.Equal(dec("30")) {
		t.Errorf("totals %+v", tot)
	}
	if len(tot.Settles) != 1 || tot.Settles[0].Date != "2025-03-06" || len(tot.Releases) != 1 || tot.Releases[0].Date != "2025-09-05" {
		t.Errorf("dated %+v %+v", tot.Settles, tot.Releases)
	}
}
