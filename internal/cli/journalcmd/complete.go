package journalcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// maxCompletions bounds how many invoices a completion offers: the most
// recent ones that match.
const maxCompletions = 100

// CompleteInvoice returns a completion for an --invoice flag (journal,
// status) offering the invoices in the journal that start with what was
// typed, most recent attempt first (at most maxCompletions), each
// described by its sale (describeInvoice), not by a later refund of it. It reads
// through the journal's index, so it stays fast on a large journal. A
// journal that cannot be read offers nothing: completion must never fail
// loudly. An invoice id that reads as a card number is never offered: the
// shell would show it whole, and a masked one would name another invoice.
func CompleteInvoice(journalPath func() (string, error), kinds func() journal.Kinds) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		path, err := journalPath()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		recent, err := journalindex.Recent(path, toComplete, maxCompletions)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]string, 0, len(recent))
		for _, attempts := range recent {
			if inv := attempts[0].Intent.Invoice; !redact.HasCard(inv) {
				out = append(out, inv+"\t"+describeInvoice(kinds(), attempts))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// describeInvoice is how a completion describes an invoice: by its sale
// (its latest attempt of a kind that does not act on the sale, such as a
// refund: journal.Kind.OnTheSale; the latest one when all do), with the
// kind, outcome and amount, and how many of those it has had ("1
// refund").
func describeInvoice(kinds journal.Kinds, attempts []journal.Attempt) string {
	sale := attempts[len(attempts)-1]
	after := map[string]int{} // kind → attempts on the sale
	for _, a := range attempts {
		if kinds.For(a).OnTheSale {
			after[a.Intent.OpKind()]++
		}
	}
	for i := len(attempts) - 1; i >= 0; i-- {
		if !kinds.For(attempts[i]).OnTheSale {
			sale = attempts[i]
			break
		}
	}
	d := fmt.Sprintf("%s %s, %s", sale.Intent.OpKind(), sale.Class(), render.Amount(sale.Intent.Amount, sale.Intent.Currency))
	if kinds.For(sale).OnTheSale {
		return d
	}
	for _, k := range kinds {
		if n := after[k.Name]; n > 0 {
			d += ", " + render.Count(n, k.Name, k.Name+"s")
		}
	}
	return d
}
