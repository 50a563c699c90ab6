package journalcmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/journal"
)

// CompleteInvoice returns a completion for an --invoice flag (journal,
// status) offering the invoices in the journal that start with what was
// typed, most recent attempt first, each described by that attempt's
// outcome, amount and currency. A journal that cannot be read offers
// nothing: completion must never fail loudly.
func CompleteInvoice(journalPath func() (string, error)) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		path, err := journalPath()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		attempts, _, err := journal.Read(path)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		seen := map[string]bool{}
		var out []string
		for i := len(attempts) - 1; i >= 0; i-- {
			a := attempts[i]
			inv := a.Intent.Invoice
			if seen[inv] || inv == "" || !strings.HasPrefix(inv, toComplete) {
				continue
			}
			seen[inv] = true
			out = append(out, inv+"\t"+a.Class()+", "+a.Intent.Amount+" "+a.Intent.Currency)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
