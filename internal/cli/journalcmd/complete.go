package journalcmd

import (
	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
)

// maxCompletions bounds how many invoices a completion offers: the most
// recent ones that match.
const maxCompletions = 100

// CompleteInvoice returns a completion for an --invoice flag (journal,
// status) offering the invoices in the journal that start with what was
// typed, most recent attempt first (at most maxCompletions), each
// described by that attempt's outcome, amount and currency. It reads
// through the journal's index, so it stays fast on a large journal. A
// journal that cannot be read offers nothing: completion must never fail
// loudly. An invoice id that reads as a card number is never offered: the
// shell would show it whole, and a masked one would name another invoice.
func CompleteInvoice(journalPath func() (string, error)) cobra.CompletionFunc {
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
		for _, a := range recent {
			if redact.HasCard(a.Intent.Invoice) {
				continue
			}
			out = append(out, a.Intent.Invoice+"\t"+a.Class()+", "+a.Intent.Amount+" "+a.Intent.Currency)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
