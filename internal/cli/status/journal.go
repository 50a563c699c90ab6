package status

import (
	"fmt"
	"slices"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
)

// recordInJournal appends what a check taught to the journal when the
// journal lists attempts for the invoice, on this profile and gateway,
// whose outcome is unknown (a reconcile line, see internal/journal), so
// that `paycli journal` and a resumed batch see it. A journal that cannot
// be read or written costs a warning: the answer is shown all the same.
func recordInJournal(opts *Options, cfg *config.Config, res *gateway.CheckStatusResult, err error) {
	if opts.JournalPath == nil {
		return
	}
	learned, ok := journal.LearnFromStatus(opts.Invoice, res, err)
	if !ok || (learned.Outcome == journal.Pending && opts.Watch) {
		// --watch records the answer that ends it, not every poll; the
		// refunds of a sale still pending are not known either.
		return
	}
	path, perr := opts.JournalPath()
	if perr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", perr)
		return
	}
	identity := journal.Identity(cfg.BaseURL, cfg.AppID)
	if opts.GatewayIdentity != nil {
		if identity, perr = opts.GatewayIdentity(); perr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", perr)
			return
		}
	}
	sandbox := slices.Contains(opts.Flags, "--sandbox")
	for _, kind := range journal.KindsCheckedByStatus {
		scope := journal.ScopeFor(kind, cfg.Profile, cfg.BaseURL, identity, sandbox)
		settled, rerr := journalindex.RecordLearned(path, scope, opts.Invoice, learned, journal.ViaStatus, opts.Now())
		if rerr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", rerr)
			return
		}
		if len(settled) > 0 && learned.Settled() {
			fmt.Fprintf(opts.IO.ErrOut, "Recorded in the journal: invoice %s %s (its outcome was unknown).\n", redact.Invoice(opts.Invoice), learned.Outcome)
		}
	}
	// Refunds of unknown outcome are settled by refund_info: listed, the
	// refund was made; not listed, it was not.
	scope := journal.ScopeFor(journal.KindRefund, cfg.Profile, cfg.BaseURL, identity, sandbox)
	attempts, _, lerr := journalindex.Lookup(path, opts.Invoice)
	if lerr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", lerr)
		return
	}
	settled, rerr := journal.RecordRefundsLearned(path, attempts, scope, opts.Invoice, res, err, journal.ViaStatus, opts.Now())
	if rerr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", rerr)
	}
	for _, a := range settled {
		fmt.Fprintf(opts.IO.ErrOut, "Recorded in the journal: refund %s of invoice %s %s (its outcome was unknown).\n",
			a.Intent.Ref, redact.Invoice(opts.Invoice), a.Class())
	}
}
