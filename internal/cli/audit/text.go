package audit

import (
	"fmt"
	"io"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/ledger"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
)

// groupTitle says a group in a sentence's words.
func groupTitle(g ledger.Group) string {
	switch g {
	case ledger.NotAtGateway:
		return "In the journal as made, not at the gateway"
	case ledger.Disagree:
		return "Amounts or states that disagree"
	case ledger.Named:
		return "Unknown attempts the ledger names"
	case ledger.Fees:
		return "Commission not the table's"
	}
	return "At the gateway, not in the journal (made elsewhere; information)"
}

// writeText writes the summary (one screen at 80 columns: the counts by
// group, the totals per currency), then the details by group.
func writeText(opts *Options, out Output) error {
	w := opts.IO.Out
	opts80 := render.TableOptions{Palette: opts.Palette(), MaxWidth: 80, RightAlign: []int{1}}
	fmt.Fprintf(w, "Audit of %s to %s (%s).\nAccount %s: %s, %s.\n", out.From, out.To, out.Zone, out.Account,
		render.Count(out.Rows, "ledger row", "ledger rows"), render.Count(out.Attempts, "journal attempt", "journal attempts"))
	counts := [][]string{}
	for _, g := range ledger.Groups {
		counts = append(counts, []string{groupTitle(g), strconv.Itoa(len(out.In(g)))})
	}
	if err := render.WriteTable(w, opts80, []string{"GROUP", "COUNT"}, counts); err != nil {
		return err
	}
	totals := [][]string{}
	for _, t := range out.Totals {
		in := func(d decimal.Decimal) string { return money.ExactIn(d, t.Currency) }
		totals = append(totals, []string{t.Currency, in(t.Gross), in(t.Refunded), strconv.Itoa(t.Chargebacks) + " / " + in(t.ChargebackFees),
			in(t.Commission), in(t.Net), in(t.RollingHeld)})
	}
	if err := render.WriteTable(w, render.TableOptions{Palette: opts.Palette(), MaxWidth: 80, RightAlign: []int{1, 2, 4, 5, 6}},
		[]string{"CUR", "GROSS", "REFUNDS", "CHARGEBACKS/FEES", "COMMISSION", "NET", "ROLLING"}, totals); err != nil {
		return err
	}
	for _, t := range out.Totals {
		for _, s := range t.Settles {
			fmt.Fprintf(w, "%s settles on %s.\n", render.Amount(money.ExactIn(s.Amount, t.Currency), t.Currency), s.Date)
		}
		for _, r := range t.Releases {
			fmt.Fprintf(w, "%s of rolling reserve is released on %s.\n", render.Amount(money.ExactIn(r.Amount, t.Currency), t.Currency), r.Date)
		}
	}
	if out.NeedsPerson == 0 {
		fmt.Fprintln(w, "The ledger and the journal agree.")
	} else {
		fmt.Fprintf(w, "%d differences need a person.\n", out.NeedsPerson)
	}
	return writeDetails(w, opts80, out)
}

// writeDetails writes each group's differences, one line each at 80
// columns: a message is said once, above the rows it is about, and a row
// keeps only what is its own (the outcome --settle records, the rates of
// a fee).
func writeDetails(w io.Writer, opts render.TableOptions, out Output) error {
	opts.RightAlign = nil
	for _, g := range ledger.Groups {
		ds := out.In(g)
		if len(ds) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", groupTitle(g))
		for _, said := range byMessage(ds) {
			fmt.Fprintf(w, "- %s\n", said[0].Message)
			header := []string{"INVOICE", "ATTEMPT/REF", "JOURNAL", "LEDGER"}
			rows := make([][]string, 0, len(said))
			for _, d := range said {
				rows = append(rows, []string{d.Invoice, d.Attempt + refOf(d), d.Journal, d.Ledger, noteOf(d)})
				if rows[len(rows)-1][4] != "" && len(header) == 4 {
					header = append(header, "NOTE")
				}
			}
			for i := range rows {
				rows[i] = rows[i][:len(header)]
			}
			if err := render.WriteTable(w, opts, header, rows); err != nil {
				return err
			}
		}
	}
	if len(out.Fees) > 0 {
		fmt.Fprintln(w, "\nFees per card program:")
		rows := [][]string{}
		for _, f := range out.Fees {
			rows = append(rows, []string{f.Program, f.Currency, strconv.Itoa(f.Sales), money.ExactIn(f.Charged, f.Currency), money.ExactIn(f.Expected, f.Currency), money.ExactIn(f.Difference, f.Currency)})
		}
		return render.WriteTable(w, render.TableOptions{Palette: opts.Palette, MaxWidth: 80, RightAlign: []int{2, 3, 4, 5}},
			[]string{"PROGRAM", "CUR", "SALES", "CHARGED", "TABLE", "DIFFERENCE"}, rows)
	}
	return nil
}

// byMessage splits a group's differences by their message, in the order
// each message first comes.
func byMessage(ds []ledger.Difference) [][]ledger.Difference {
	var split [][]ledger.Difference
	at := map[string]int{}
	for _, d := range ds {
		i, ok := at[d.Message]
		if !ok {
			i, at[d.Message] = len(split), len(split)
			split = append(split, nil)
		}
		split[i] = append(split[i], d)
	}
	return split
}

// noteOf is what a difference says beyond its group's message: the
// outcome --settle records, or the rates a fee was charged at.
func noteOf(d ledger.Difference) string {
	switch {
	case d.Settle != nil:
		return "--settle: " + d.Settle.Outcome
	case d.Fee != nil && d.Fee.TableRate != "":
		return "rate " + d.Fee.ChargedRate + ", table " + d.Fee.TableRate
	}
	return ""
}

func refOf(d ledger.Difference) string {
	if d.Ref == "" {
		return ""
	}
	return " " + d.Ref
}
