package audit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/ledger"
	"github.com/paycli/paycli/internal/render"
)

// auditOutput is an end of day with a difference of each group, its
// attempts and refs as long as paycli makes them.
func auditOutput() Output {
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	res := &ledger.Result{Rows: 4, Attempts: 1, NeedsPerson: 4,
		Totals: []ledger.Totals{{Currency: "TRY", Gross: d("1784.4"), Refunded: d("50"), Commission: d("58.425"), Net: d("1726"), RollingHeld: d("135")}},
		Differences: []ledger.Difference{
			{Group: ledger.NotAtGateway, What: ledger.WhatSaleMissing, Invoice: "EOD-4", Attempt: "08bd45f05b821ce1", Journal: "80.00",
				Message: "the journal has the sale made; the ledger has no row for it"},
			{Group: ledger.Disagree, What: ledger.WhatRefundMissing, Invoice: "EOD-1", Attempt: "18bd45f05b821ce1", Ref: "RF04b20d68a39f842fec4d1f18",
				Journal: "50.00", Message: "the journal has the refund made; the ledger's refund_history does not list it"},
			{Group: ledger.Named, What: ledger.WhatSettles, Invoice: "EOD-2", Attempt: "28bd45f05b821ce1", Ledger: "Completed 1200.00",
				Message: "the ledger lists the sale", Settle: &ledger.Settlement{Outcome: journal.Succeeded}},
			{Group: ledger.Fees, What: ledger.WhatFee, Invoice: "EOD-2", Journal: "52.80", Ledger: "55.80",
				Fee: &ledger.Fee{ChargedRate: "4.65%", TableRate: "4.4%"}, Message: "the commission charged is not the table's"},
			{Group: ledger.Elsewhere, What: ledger.WhatSaleElsewhere, Invoice: "EOD-3", Ledger: "Partially Refunded 150.00",
				Message: "the gateway has a sale the journal did not make (the shop's site, the panel)"},
			{Group: ledger.Elsewhere, What: ledger.WhatSaleElsewhere, Invoice: "EOD-5", Ledger: "Completed 300.00",
				Message: "the gateway has a sale the journal did not make (the shop's site, the panel)"},
		}}
	return Output{From: "2025-03-05", To: "2025-03-05", Zone: "Europe/Istanbul", Account: "sandbox-0db70f985745e2ab", Result: res}
}

// TestTextAt80Columns: the summary and every detail fit 80 columns with
// one line per difference (its invoice, attempt, ref, journal, ledger and
// note on that line), each message said once above its rows, the counts
// in agreeing words and the money in the currency's decimals.
func TestTextAt80Columns(t *testing.T) {
	ios, _, stdout, _ := iostreams.Test()
	opts := &Options{Deps: cmdutil.Deps{IO: ios, Palette: func() render.Palette { return render.Palette{} }}}
	out := auditOutput()
	if err := writeText(opts, out); err != nil {
		t.Fatal(err)
	}
	text := stdout.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	for _, d := range out.Differences {
		want := []string{d.Invoice, d.Attempt, d.Ref, d.Journal, d.Ledger, noteOf(d)}
		found := 0
		for _, l := range lines {
			if strings.HasPrefix(l, d.Invoice+" ") && strings.Contains(l, d.Ledger) && strings.Contains(l, d.Journal) {
				found++
				for _, cell := range want {
					if !strings.Contains(l, cell) {
						t.Errorf("%s's row is not on one line: %q lacks %q", d.Invoice, l, cell)
					}
				}
			}
		}
		if found != 1 {
			t.Errorf("%s %s: %d lines, want one", d.Invoice, d.What, found)
		}
		if c := strings.Count(text, "- "+d.Message+"\n"); c != 1 {
			t.Errorf("message %q said %d times, want once above its rows", d.Message, c)
		}
	}
	for _, said := range []string{"Account sandbox-0db70f985745e2ab: 4 ledger rows, 1 journal attempt.\n", "REFUNDS", "1784.40", "50.00", "58.425", "1726.00", "135.00", "0 / 0.00"} {
		if !strings.Contains(text, said) {
			t.Errorf("the text does not say %q:\n%s", said, text)
		}
	}
	if t.Failed() {
		t.Log("\n" + text)
	}
}
