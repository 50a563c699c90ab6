package ledger

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
)

// refunds matches the invoice's refund attempts with its rows'
// refund_history (by refund_transaction_id; an attempt or entry with none
// matches nothing) and their refunded total, a ref counted once however
// often it was sent.
func (a *auditor) refunds(id string, inv *invoice) {
	history, from, listed := historyOf(inv)
	currency := inv.rows[0].currency
	mine := map[string]bool{}
	counted := map[string]bool{}
	var journaled decimal.Decimal
	count := func(r brief) {
		if r.ref == "" || !counted[r.ref] {
			counted[r.ref], journaled = true, journaled.Add(r.amount)
		}
	}
	missing := false
	for _, r := range inv.refunds {
		mine[r.ref] = true
		h := history[r.ref]
		switch {
		case succeeded(r):
			// A refund sent without a ref (an older paycli's line) cannot be
			// looked for: only the refunded totals speak of it.
			if listed && h == nil && r.ref != "" && !counted[r.ref] {
				missing = true
				a.diff(Difference{Group: Disagree, What: WhatRefundMissing, Invoice: id, Attempt: r.id, Ref: r.ref, Currency: currency,
					NeedsPerson: true, Journal: money.ExactIn(r.amount, currency), Message: "the journal has the refund made; the ledger's refund_history does not list it"})
			}
			count(r)
		case unsettled(r) && h != nil:
			a.named(*from[r.ref].row, r, h)
			if !h.Waiting() && !h.Refused() {
				count(r)
			}
		}
	}
	ledgerRefunded := a.ledgerRefunded(id, inv, mine)
	if !missing && !journaled.Equal(ledgerRefunded) && (journaled.IsPositive() || !listed) {
		a.diff(Difference{Group: Disagree, What: WhatRefundTotal, Invoice: id, Currency: currency, NeedsPerson: true,
			Journal: money.ExactIn(journaled, currency), Ledger: money.ExactIn(ledgerRefunded, currency), Message: "the refunded totals differ"})
	}
}

// historyOf is the refund_history entries of inv's rows by
// refund_transaction_id (an entry with none is left out), the row each
// came from, and whether any row lists a history.
func historyOf(inv *invoice) (map[string]*gateway.RefundInfo, map[string]*seen, bool) {
	history := map[string]*gateway.RefundInfo{}
	from := map[string]*seen{}
	listed := false
	for i := range inv.rows {
		s := &inv.rows[i]
		listed = listed || s.history != nil
		for j := range s.history {
			if h := &s.history[j]; h.RefundTransactionID != "" {
				history[h.RefundTransactionID], from[h.RefundTransactionID] = h, s
			}
		}
	}
	return history, from, listed
}

// ledgerRefunded is what inv's rows refunded of the journal's refunds
// (mine, by ref): a row's made refund_history entries, or its refunded
// total when it lists none. The others are told as made elsewhere.
func (a *auditor) ledgerRefunded(id string, inv *invoice, mine map[string]bool) decimal.Decimal {
	var ledgerRefunded decimal.Decimal
	for _, s := range inv.rows {
		if s.history == nil {
			ledgerRefunded = ledgerRefunded.Add(s.totalRefunded)
			continue
		}
		for _, h := range s.history {
			if h.Waiting() || h.Refused() {
				continue
			}
			amount, _ := h.Amount.Decimal()
			// An entry without an id is the journal's only when the journal
			// has a refund without a ref: the totals then compare them.
			if !mine[h.RefundTransactionID] {
				a.diff(Difference{Group: Elsewhere, What: WhatRefundElsewhere, Invoice: id, Ref: h.RefundTransactionID, Currency: s.currency,
					Ledger: money.ExactIn(amount, s.currency), Message: "the gateway has a refund the journal did not make (the panel)"})
				continue
			}
			ledgerRefunded = ledgerRefunded.Add(amount)
		}
	}
	return ledgerRefunded
}

// named offers an unknown or queued refund the ledger lists for settling.
func (a *auditor) named(t gateway.Transaction, r brief, h *gateway.RefundInfo) {
	d := Difference{Group: Named, Invoice: t.InvoiceID, Attempt: r.id, Ref: r.ref, Currency: t.Currency, Journal: r.class, Ledger: h.Status}
	amount, _ := h.Amount.Decimal()
	switch {
	case h.Waiting():
		d.What, d.Message = WhatStillOpen, "the ledger lists the refund, still waiting for approval"
	case !h.Refused() && !amount.Equal(r.amount):
		// The id names the refund, but not what the attempt sent: a
		// person decides what became of it.
		d.What, d.NeedsPerson = WhatStillOpen, true
		d.Message = "the ledger lists the refund for " + money.ExactIn(amount, t.Currency) + ", the attempt asked " + money.ExactIn(r.amount, t.Currency) + ": run paycli status"
	case h.Refused():
		d.What, d.Settle, d.Message = WhatSettles, &Settlement{Outcome: journal.Declined, Evidence: a.evidence(t, h)}, "the ledger lists the refund as refused"
	default:
		d.What, d.Settle, d.Message = WhatSettles, &Settlement{Outcome: journal.Succeeded, Evidence: a.evidence(t, h)}, "the ledger lists the refund as made"
	}
	d.NeedsPerson = d.Settle != nil
	a.diff(d)
}

// fee audits a taken sale's commission against the table's entry for its
// installment count and card program, priced as `paycli installments`
// prices it (commission.EntryFor, commission.ComputeAmounts) on the gross,
// as §11.12's example charges it (5% × 11.3 + 0.1 = 0.665); the charged
// fee is rounded to the minor unit first, as installments rounds the
// gateway's.
func (a *auditor) fee(t gateway.Transaction) error {
	if !t.Taken() && !t.ChargedBack() {
		return nil
	}
	rows, err := a.table(t.Currency)
	if err != nil {
		return err
	}
	n := max(t.Installment, 1)
	f := &Fee{Currency: t.Currency, Program: t.CardProgram, Installment: n, Gross: t.Gross, Charged: t.MerchantCommission}
	if t.HasCommissionRate {
		f.ChargedRate = rate(t.CommissionPercentage.String(), t.CommissionFixed.String())
	}
	minor, _ := money.MinorUnit(t.Currency)
	entry, found := commission.EntryFor(rows, n, t.CardProgram)
	amounts, ok, err := commission.ComputeAmounts(t.Gross, n, commission.RatesOf(entry.Entry), minor)
	if !found || !ok || err != nil {
		a.diff(Difference{Group: Fees, What: WhatNoRate, Invoice: t.InvoiceID, Currency: t.Currency, NeedsPerson: true, Fee: f,
			Message: fmt.Sprintf("the commission table prices no sale in %d installments on %q", n, t.CardProgram)})
		return nil
	}
	f.Expected, f.Difference = amounts.MerchantFee, money.Round(t.MerchantCommission, minor).Sub(amounts.MerchantFee)
	f.TableRate = rate(entry.Entry.MerchantCommissionPercentage.String(), entry.Entry.MerchantCommissionFixed.String())
	key := [2]string{t.CardProgram, t.Currency}
	sum := a.fees[key]
	if sum == nil {
		sum = &FeeTotal{Program: t.CardProgram, Currency: t.Currency}
		a.fees[key] = sum
	}
	sum.Sales++
	sum.Charged, sum.Expected, sum.Difference = sum.Charged.Add(f.Charged), sum.Expected.Add(f.Expected), sum.Difference.Add(f.Difference)
	if !f.Difference.IsZero() {
		a.diff(Difference{Group: Fees, What: WhatFee, Invoice: t.InvoiceID, Currency: t.Currency, NeedsPerson: true, Fee: f,
			Journal: money.ExactIn(f.Expected, t.Currency), Ledger: money.ExactIn(f.Charged, t.Currency), Message: "the commission charged is not the table's"})
	}
	return nil
}

// rate writes a percentage and fixed amount: "2.5% + 0.25".
func rate(percentage, fixed string) string {
	percentage, fixed = plainNumber(percentage), plainNumber(fixed)
	if fixed == "" || fixed == "0" {
		return percentage + "%"
	}
	return percentage + "% + " + fixed
}

// plainNumber writes a number without the trailing zeros a table may carry
// ("2.6500" is 2.65), so that the row's rate and the table's read alike;
// text that is not a number is kept as it is.
func plainNumber(s string) string {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s
	}
	return d.String()
}

// table is the commission table of a currency, asked once per run.
func (a *auditor) table(currency string) ([]commission.Row, error) {
	if a.tableOK[currency] {
		return a.tables[currency], nil
	}
	if a.Table == nil {
		return nil, nil
	}
	rows, err := a.Table(a.ctx, currency)
	if err != nil {
		return nil, fmt.Errorf("the commission table of %s: %w", currency, err)
	}
	a.tables[currency], a.tableOK[currency] = rows, true
	return rows, nil
}

// totalsRun is Totals while the ledger is read: the dated sums by day.
type totalsRun struct {
	Totals
	releases, settles map[string]decimal.Decimal
}

// total adds a row to its currency's totals: a taken or charged-back
// sale's money; a failed or pending row adds only to Rows.
func (a *auditor) total(t gateway.Transaction) {
	tr := a.totals[t.Currency]
	if tr == nil {
		tr = &totalsRun{Totals: Totals{Currency: t.Currency}, releases: map[string]decimal.Decimal{}, settles: map[string]decimal.Decimal{}}
		a.totals[t.Currency] = tr
	}
	tr.Rows++
	if !t.Taken() && !t.ChargedBack() {
		return
	}
	tr.Gross, tr.Refunded = tr.Gross.Add(t.Gross), tr.Refunded.Add(refunded(t))
	tr.Commission, tr.Net = tr.Commission.Add(t.MerchantCommission), tr.Net.Add(t.Net)
	tr.RollingHeld = tr.RollingHeld.Add(t.RollingAmount)
	if t.ChargedBack() {
		tr.Chargebacks++
		tr.ChargebackFees = tr.ChargebackFees.Add(t.RefundedChargebackFee)
	}
	if !t.RollingReleasedAt.IsZero() {
		tr.releases[day(t.RollingReleasedAt)] = tr.releases[day(t.RollingReleasedAt)].Add(t.RollingAmount)
	}
	if !t.SettlesMerchant.IsZero() {
		tr.settles[day(t.SettlesMerchant)] = tr.settles[day(t.SettlesMerchant)].Add(t.Net)
	}
}

// refunded is what t's sale refunded. A charged-back row's
// total_refunded_amount holds the amount charged back too: only its
// refund_history's made refunds are refunds (none when it lists none).
func refunded(t gateway.Transaction) decimal.Decimal {
	if !t.ChargedBack() {
		return t.TotalRefunded
	}
	var sum decimal.Decimal
	for _, h := range t.Refunds {
		if !h.Waiting() && !h.Refused() {
			amount, _ := h.Amount.Decimal()
			sum = sum.Add(amount)
		}
	}
	return sum
}

// finish writes the totals and the fee sums in order.
func (a *auditor) finish() {
	for _, cur := range slices.Sorted(maps.Keys(a.totals)) {
		tr := a.totals[cur]
		tr.Releases, tr.Settles = dated(tr.releases, cur), dated(tr.settles, cur)
		a.res.Totals = append(a.res.Totals, tr.Totals)
	}
	keys := slices.SortedFunc(maps.Keys(a.fees), func(x, y [2]string) int {
		if c := strings.Compare(x[1], y[1]); c != 0 {
			return c
		}
		return strings.Compare(x[0], y[0])
	})
	for _, k := range keys {
		a.res.Fees = append(a.res.Fees, *a.fees[k])
	}
}

func dated(m map[string]decimal.Decimal, currency string) []Dated {
	out := make([]Dated, 0, len(m))
	for _, d := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Dated{Date: d, Amount: m[d], Currency: currency})
	}
	return out
}
