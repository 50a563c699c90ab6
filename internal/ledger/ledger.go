// Package ledger matches the gateway's ledger (its getTransactions rows,
// gateway.Transaction) against what the desk's journal recorded on the
// same account and range, audits each sale's commission against the
// commission table, and totals the day per currency: `paycli audit`
// (docs/ledger.md). The ledger is streamed, one row at a time; the
// journal's side is held as a compact index by invoice.
package ledger

import (
	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/journal"
)

// Group is which kind of difference a Difference is (docs/ledger.md).
type Group string

// The groups, in the order the audit shows them.
const (
	// Elsewhere: at the gateway, not in the journal (the shop's site, the
	// merchant panel). Information, not an error.
	Elsewhere Group = "made_elsewhere"
	// NotAtGateway: in the journal as made, not in the ledger.
	NotAtGateway Group = "not_at_gateway"
	// Disagree: amounts or states that disagree.
	Disagree Group = "disagree"
	// Named: unknown or queued attempts the ledger names, with the row
	// as evidence (Settlement) for `paycli audit --settle`.
	Named Group = "ledger_names"
	// Fees: a sale whose commission is not the table's.
	Fees Group = "fees"
)

// Groups are the groups in the order the audit shows them.
var Groups = []Group{NotAtGateway, Disagree, Named, Fees, Elsewhere}

// What a difference is, within its group.
const (
	WhatSaleElsewhere   = "sale_elsewhere"
	WhatRefundElsewhere = "refund_elsewhere"
	WhatSaleMissing     = "sale_missing"
	WhatRefundMissing   = "refund_missing"
	WhatRefundTotal     = "refund_total"
	WhatChargeback      = "chargeback"
	WhatDeclinedTaken   = "declined_but_taken"
	WhatMadeNotTaken    = "made_but_not_taken"
	WhatSaleAmount      = "sale_amount"
	WhatSettles         = "settles"
	WhatStillOpen       = "still_open"
	WhatFee             = "fee"
	WhatNoRate          = "no_table_entry"
)

// Difference is one thing the ledger and the journal (or the commission
// table) say differently. NeedsPerson: a desk must act on it (the audit
// exits non-zero); the rest is information.
type Difference struct {
	Group       Group  `json:"group"`
	What        string `json:"what"`
	Invoice     string `json:"invoice"`
	Attempt     string `json:"attempt,omitempty"`
	Ref         string `json:"ref,omitempty"`
	Currency    string `json:"currency,omitempty"`
	Journal     string `json:"journal,omitempty"`
	Ledger      string `json:"ledger,omitempty"`
	Message     string `json:"message"`
	NeedsPerson bool   `json:"needs_person"`
	// Settle, in the Named group, is what the ledger's row settles the
	// attempt as, with the row as evidence; nil when the row says it is
	// still open (a refund waiting for approval, a pending sale).
	Settle *Settlement `json:"settle,omitempty"`
	// Fee is the fee audit's figures, in the Fees group.
	Fee *Fee `json:"fee,omitempty"`
}

// Settlement is what a ledger row settles an unknown or queued attempt as:
// journal.Succeeded or journal.Declined, with the row as Evidence
// (journal.EvidenceOfLedger).
type Settlement struct {
	Outcome  string            `json:"outcome"`
	Evidence *journal.Evidence `json:"evidence"`
}

// Fee is one sale's commission as charged against the table's.
type Fee struct {
	// Currency is the sale's, which its amounts are written in.
	Currency    string `json:"-"`
	Program     string `json:"card_program"`
	Installment int    `json:"installment"`
	// Gross is what the fee is charged on: the price and the user
	// commission (§11.12).
	Gross      decimal.Decimal `json:"gross"`
	Charged    decimal.Decimal `json:"charged"`
	Expected   decimal.Decimal `json:"expected"`
	Difference decimal.Decimal `json:"difference"`
	// ChargedRate and TableRate are the merchant percentage and fixed
	// amount the row says it applied (merchant_sale) and the table's.
	ChargedRate string `json:"charged_rate,omitempty"`
	TableRate   string `json:"table_rate,omitempty"`
}

// FeeTotal is the fee audit summed per card program and currency, over
// every sale audited (those that agree included).
type FeeTotal struct {
	Program    string          `json:"card_program"`
	Currency   string          `json:"currency"`
	Sales      int             `json:"sales"`
	Charged    decimal.Decimal `json:"charged"`
	Expected   decimal.Decimal `json:"expected"`
	Difference decimal.Decimal `json:"difference"`
}

// Totals are the ledger's figures of one currency over the range.
type Totals struct {
	Currency       string          `json:"currency"`
	Rows           int             `json:"rows"`
	Gross          decimal.Decimal `json:"gross"`
	Refunded       decimal.Decimal `json:"refunded"`
	Chargebacks    int             `json:"chargebacks"`
	ChargebackFees decimal.Decimal `json:"chargeback_fees"`
	Commission     decimal.Decimal `json:"commission"`
	Net            decimal.Decimal `json:"net"`
	RollingHeld    decimal.Decimal `json:"rolling_held"`
	// Releases is the rolling reserve by the day it is released, Settles
	// the net by the day it settles to the merchant, both in date order.
	Releases []Dated `json:"rolling_releases"`
	Settles  []Dated `json:"settles"`
}

// Dated is an amount on a day (gateway time, 2006-01-02).
type Dated struct {
	Date   string          `json:"date"`
	Amount decimal.Decimal `json:"amount"`
	// Currency is the amount's, which it is written in.
	Currency string `json:"-"`
}

// Result is an audit's whole finding.
type Result struct {
	Rows        int          `json:"ledger_rows"`
	Attempts    int          `json:"journal_attempts"`
	Differences []Difference `json:"differences"`
	Fees        []FeeTotal   `json:"fees"`
	Totals      []Totals     `json:"totals"`
	// NeedsPerson counts the differences a desk must act on.
	NeedsPerson int `json:"needs_person"`
}

// In is the differences of group g, in the order found.
func (r *Result) In(g Group) []Difference {
	var out []Difference
	for _, d := range r.Differences {
		if d.Group == g {
			out = append(out, d)
		}
	}
	return out
}
