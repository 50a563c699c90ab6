package ledger

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
)

// Audit is what an audit matches with: the operations' kinds (which say
// what an attempt made: journal.Kind.Sale, Refund), the commission table
// of a currency (Table: the gateway's commissions answer, placed by
// commission.Rows; nil rows when it has none), and Source, the listing the
// rows came from, named in each settlement's evidence. Now is when the
// audit runs: a sale attempt whose request may still be in flight then
// (before its deadline and journal.InFlightMargin) is not settled.
//
// From and To are the range audited (zero: every row is the range's). A
// row created at or after To (read past it: a sale sent just before
// midnight is written just after) serves only an invoice the journal has
// a sale of in the range; a row created before From (read by
// modification: refunded or charged back in the range) only its refunds
// and chargeback. Neither is totalled, fee-audited or told as made
// elsewhere. Invoice, when set, reads the journal's attempts of one
// invoice on the audited account, whatever their day: it is asked once
// for each invoice whose rows show a refund or a chargeback.
type Audit struct {
	Kinds    journal.Kinds
	Table    func(ctx context.Context, currency string) ([]commission.Row, error)
	Source   string
	Now      time.Time
	From, To time.Time
	Invoice  func(ctx context.Context, invoice string) ([]journal.Attempt, error)
}

// brief is what the audit keeps of one attempt: its id, ref, class,
// amount and currency. The journal's side of a day is held only as these.
type brief struct {
	id, ref, class string
	amount         decimal.Decimal
	currency       string
	// sent is when the attempt's intent was written; over is its deadline
	// and journal.InFlightMargin: until then its request may still be at
	// the gateway. A row of its doing is made between the two.
	sent, over time.Time
	// told: a later attempt of the same story succeeded (journal's rule).
	told bool
}

// invoice is the journal's attempts on one invoice, sales and refunds,
// and the ledger's rows of it, decided on once all are read.
type invoice struct {
	sales, refunds []brief
	currency       string
	rows           []seen
	// open: an attempt is unknown or queued, so rows keep their evidence.
	open bool
}

// seen is what the audit keeps of one ledger row of a journal invoice.
// An invoice may have several rows (a site's failed try, then its
// success): none alone says which is an attempt's.
type seen struct {
	state         string
	taken, failed bool
	price         decimal.Decimal
	currency      string
	totalRefunded decimal.Decimal
	// history is the row's refund_history, nil when it has none.
	history []gateway.RefundInfo
	// row is the whole row, kept only on an open invoice (evidence).
	row *gateway.Transaction
	// created is when the gateway made the row; changed: the row was read
	// only because it changed in the range (made before it), so the
	// invoice's rows that did not change were not read.
	created time.Time
	changed bool
}

// auditor is one run's state: the journal's index and the running totals.
type auditor struct {
	Audit
	ctx     context.Context
	index   map[string]*invoice
	res     *Result
	totals  map[string]*totalsRun
	fees    map[[2]string]*FeeTotal
	tables  map[string][]commission.Row
	tableOK map[string]bool
	// looked: the invoices whose attempts Invoice was asked for.
	looked map[string]bool
}

// Run matches rows, the ledger of a range, against the attempts journal
// yields (the same account and range: journal.AccountAttemptsOf), and
// finds the differences (Result). The journal is read first, into an
// index by invoice; the ledger is then read one row at a time. It stops
// at the first error of either.
func (au Audit) Run(ctx context.Context, attempts func(yield func(journal.Attempt) error) error, rows iter.Seq2[gateway.Transaction, error]) (*Result, error) {
	a := &auditor{Audit: au, ctx: ctx, index: map[string]*invoice{}, res: &Result{}, totals: map[string]*totalsRun{},
		fees: map[[2]string]*FeeTotal{}, tables: map[string][]commission.Row{}, tableOK: map[string]bool{}, looked: map[string]bool{}}
	if err := attempts(a.add); err != nil {
		return nil, fmt.Errorf("the journal: %w", err)
	}
	a.tell()
	for row, err := range rows {
		if err != nil {
			return nil, fmt.Errorf("the ledger: %w", err)
		}
		a.res.Rows++
		if err := a.row(row); err != nil {
			return nil, err
		}
	}
	a.invoices()
	a.finish()
	return a.res, nil
}

// add indexes one attempt of the range.
func (a *auditor) add(at journal.Attempt) error {
	a.res.Attempts++
	a.indexOne(at)
	return nil
}

// indexOne indexes one attempt of a sale or refund kind, once.
func (a *auditor) indexOne(at journal.Attempt) {
	k := a.Kinds.For(at)
	if !k.Sale && !k.Refund {
		return
	}
	amount, _ := money.ParsePlain(at.Intent.Amount)
	inv := a.index[at.Intent.Invoice]
	if inv == nil {
		inv = &invoice{currency: at.Intent.Currency}
		a.index[at.Intent.Invoice] = inv
	}
	id := func(b brief) bool { return b.id == at.Intent.Attempt }
	if slices.ContainsFunc(inv.sales, id) || slices.ContainsFunc(inv.refunds, id) {
		return
	}
	b := brief{id: at.Intent.Attempt, ref: at.Intent.Ref, class: at.Class(), amount: amount, currency: at.Intent.Currency,
		sent: at.Intent.Time, over: at.Deadline().Add(journal.InFlightMargin)}
	if k.Sale {
		inv.sales = append(inv.sales, b)
	} else {
		inv.refunds = append(inv.refunds, b)
	}
}

// lookup adds the journal's attempts of t's invoice, whatever their day,
// when t shows a refund or a chargeback (a refund sent the next day, a
// chargeback of an older sale): once per invoice, and only for those, so
// that plain sales cost no lookup.
func (a *auditor) lookup(t gateway.Transaction) error {
	if a.Invoice == nil || a.looked[t.InvoiceID] || len(t.Refunds) == 0 && !t.TotalRefunded.IsPositive() && !t.ChargedBack() {
		return nil
	}
	a.looked[t.InvoiceID] = true
	found, err := a.Invoice(a.ctx, t.InvoiceID)
	if err != nil {
		return fmt.Errorf("the journal's attempts of invoice %s: %w", redact.Invoice(t.InvoiceID), err)
	}
	for _, at := range found {
		a.indexOne(at)
	}
	if inv := a.index[t.InvoiceID]; inv != nil {
		tellOne(inv)
	}
	return nil
}

// tell marks the unsettled attempts a later success of the same story
// settles (journal.Unresolved's rule: a sale's story is its invoice, a
// refund's its ref), so that they are not offered for settling.
func (a *auditor) tell() {
	for _, inv := range a.index {
		tellOne(inv)
	}
}

func tellOne(inv *invoice) {
	if slices.ContainsFunc(inv.sales, succeeded) {
		for i := range inv.sales {
			inv.sales[i].told = true
		}
	}
	for i, r := range inv.refunds {
		inv.refunds[i].told = slices.ContainsFunc(inv.refunds, func(b brief) bool { return b.ref == r.ref && r.ref != "" && succeeded(b) })
	}
	inv.open = slices.ContainsFunc(inv.sales, unsettled) || slices.ContainsFunc(inv.refunds, unsettled)
}

func succeeded(b brief) bool { return b.class == journal.Succeeded }

func unsettled(b brief) bool {
	return !b.told && (b.class == journal.Unknown || b.class == journal.Queued)
}

// row matches one ledger row. A row past To serves only the journal's
// sales of the range; a row made before From only its changes (Audit).
// The invoice's attempts are looked up before the row is kept, so that
// the row that opens its invoice (lookup) keeps its evidence; a row kept
// before it is then one of several, which settle no sale.
func (a *auditor) row(t gateway.Transaction) error {
	past := !a.To.IsZero() && !t.CreatedAt.Before(a.To)
	before := !a.From.IsZero() && !t.CreatedAt.IsZero() && t.CreatedAt.Before(a.From)
	if past {
		if inv := a.index[t.InvoiceID]; inv != nil && len(inv.sales) > 0 {
			a.keep(inv, t, false)
		}
		return nil
	}
	if err := a.lookup(t); err != nil {
		return err
	}
	inv := a.index[t.InvoiceID]
	switch {
	case !before:
		if err := a.inRange(t, inv); err != nil {
			return err
		}
	case inv == nil:
		a.changedElsewhere(t)
	}
	if t.ChargedBack() {
		a.diff(Difference{Group: Disagree, What: WhatChargeback, Invoice: t.InvoiceID, Currency: t.Currency, NeedsPerson: true,
			Ledger: t.StateText() + ", fee " + money.ExactIn(t.RefundedChargebackFee, t.Currency), Message: "the card's bank charged the sale back; the desk has not recorded it"})
	}
	if inv != nil {
		a.keep(inv, t, before)
	}
	return nil
}

// inRange totals and fee-audits a row of the range, and tells a sale the
// journal did not make.
func (a *auditor) inRange(t gateway.Transaction, inv *invoice) error {
	a.total(t)
	if err := a.fee(t); err != nil {
		return err
	}
	if inv == nil || len(inv.sales) == 0 {
		a.diff(Difference{Group: Elsewhere, What: WhatSaleElsewhere, Invoice: t.InvoiceID, Currency: t.Currency,
			Ledger: t.StateText() + " " + money.ExactIn(t.ProductPrice, t.Currency), Message: "the gateway has a sale the journal did not make (the shop's site, the panel)"})
	}
	return nil
}

// changedElsewhere tells the made refunds of an earlier sale the journal
// never made, changed in the range (refunded in the panel).
func (a *auditor) changedElsewhere(t gateway.Transaction) {
	for _, h := range t.Refunds {
		if !h.Waiting() && !h.Refused() {
			amount, _ := h.Amount.Decimal()
			a.diff(Difference{Group: Elsewhere, What: WhatRefundElsewhere, Invoice: t.InvoiceID, Ref: h.RefundTransactionID, Currency: t.Currency,
				Ledger: money.ExactIn(amount, t.Currency), Message: "the gateway refunded an earlier sale the journal did not make (the panel)"})
		}
	}
}

// keep keeps what the audit needs of a row of a journal invoice.
func (a *auditor) keep(inv *invoice, t gateway.Transaction, changed bool) {
	s := seen{state: t.StateText(), taken: t.Taken() || t.ChargedBack(), failed: t.Failed(), price: t.ProductPrice,
		currency: t.Currency, totalRefunded: refunded(t), history: t.Refunds, created: t.CreatedAt, changed: changed}
	if inv.open {
		s.row = &t
	}
	inv.rows = append(inv.rows, s)
}

// sale matches the invoice's sale attempts with its rows. An unknown
// sale is settled only from the invoice's one row, decided, and once its
// request can no longer be in flight (check status's rule,
// journal.heldBack): a row may be an earlier try's doing.
func (a *auditor) sale(id string, inv *invoice) {
	first := inv.rows[0]
	taken := slices.ContainsFunc(inv.rows, func(s seen) bool { return s.taken })
	failed := slices.ContainsFunc(inv.rows, func(s seen) bool { return s.failed })
	states := make([]string, len(inv.rows))
	for i, s := range inv.rows {
		states[i] = s.state
	}
	ledger := strings.Join(states, ", ")
	made := slices.ContainsFunc(inv.sales, succeeded)
	open := false
	for _, s := range inv.sales {
		if !unsettled(s) {
			continue
		}
		open = true
		d := Difference{Group: Named, Invoice: id, Attempt: s.id, Currency: first.currency, Journal: s.class, Ledger: ledger}
		switch {
		case len(inv.rows) > 1:
			d.What, d.NeedsPerson = WhatStillOpen, true
			d.Message = fmt.Sprintf("the ledger has %d rows for the invoice and none says which is this attempt's: ask the gateway", len(inv.rows))
		case a.Now.Before(s.over):
			d.What, d.Message = WhatStillOpen, "its request may still be in flight until "+s.over.UTC().Format(time.RFC3339)+": audit again then"
		case first.changed || first.created.Before(s.sent) || first.created.After(s.over):
			// A row made outside the attempt's time is another try's doing,
			// and a row read because it changed leaves the invoice's other
			// rows unread: neither names this attempt.
			d.What, d.NeedsPerson = WhatStillOpen, true
			d.Message = "the ledger's row of the invoice was not made while this attempt was in flight: audit the attempt's own day, or run paycli status"
		case first.taken:
			d.What, d.Settle, d.Message = WhatSettles, &Settlement{Outcome: journal.Succeeded, Evidence: a.evidence(*first.row, nil)}, "the ledger lists the sale as taken"
		case first.failed:
			d.What, d.Settle, d.Message = WhatSettles, &Settlement{Outcome: journal.Declined, Evidence: a.evidence(*first.row, nil)}, "the ledger lists the sale as not taken"
		default:
			d.What, d.Message = WhatStillOpen, "the ledger lists the sale, not finished yet"
		}
		d.NeedsPerson = d.NeedsPerson || d.Settle != nil
		a.diff(d)
	}
	switch {
	case made && !taken && failed:
		a.diff(Difference{Group: Disagree, What: WhatMadeNotTaken, Invoice: id, Currency: first.currency, NeedsPerson: true,
			Journal: journal.Succeeded, Ledger: ledger, Message: "the journal has the sale made; the ledger says nothing was taken"})
	case !made && !open && taken && slices.ContainsFunc(inv.sales, func(b brief) bool { return b.class == journal.Declined }):
		a.diff(Difference{Group: Disagree, What: WhatDeclinedTaken, Invoice: id, Currency: first.currency, NeedsPerson: true,
			Journal: journal.Declined, Ledger: ledger, Message: "the journal thinks the sale declined; the gateway took it"})
	}
	a.saleAmount(id, inv)
}

// saleAmount compares the journal's made sale with the rows that took
// it: the journal's amount is the product price (a user commission is
// added to what the card pays, not to it), in the same currency.
func (a *auditor) saleAmount(id string, inv *invoice) {
	i := slices.IndexFunc(inv.sales, succeeded)
	if i < 0 {
		return
	}
	s := inv.sales[i]
	for _, r := range inv.rows {
		if r.taken && (!r.price.Equal(s.amount) || r.currency != s.currency) {
			a.diff(Difference{Group: Disagree, What: WhatSaleAmount, Invoice: id, Attempt: s.id, Currency: r.currency, NeedsPerson: true,
				Journal: s.amount.String() + " " + s.currency, Ledger: r.price.String() + " " + r.currency,
				Message: "the gateway took another amount than the journal made"})
		}
	}
}

// evidence is t's row as evidence, from the audit's source.
func (a *auditor) evidence(t gateway.Transaction, ref *gateway.RefundInfo) *journal.Evidence {
	return journal.EvidenceOfLedger(t, a.Source, ref)
}

// diff records a difference.
func (a *auditor) diff(d Difference) {
	if d.NeedsPerson {
		a.res.NeedsPerson++
	}
	a.res.Differences = append(a.res.Differences, d)
}

// invoices decides each journal invoice on its rows, in invoice order:
// a succeeded sale with no row is missing at the gateway.
func (a *auditor) invoices() {
	for _, id := range slices.Sorted(maps.Keys(a.index)) {
		inv := a.index[id]
		if len(inv.rows) > 0 {
			a.sale(id, inv)
			a.refunds(id, inv)
			continue
		}
		for _, s := range inv.sales {
			if succeeded(s) {
				a.diff(Difference{Group: NotAtGateway, What: WhatSaleMissing, Invoice: id, Attempt: s.id, Currency: inv.currency, NeedsPerson: true,
					Journal: money.ExactIn(s.amount, inv.currency), Message: "the journal has the sale made; the ledger has no row for it"})
			}
		}
	}
}

// day is t's day in the gateway's zone.
func day(t time.Time) string { return t.In(money.GatewayZone()).Format("2006-01-02") }
