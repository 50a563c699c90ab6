package status

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// recordInJournal settles, with what check status answered (res, or the
// call's error err, asked at asked), the invoice's attempts on this
// gateway account whose outcome is unknown and unresolved
// (journal.Unresolved, journal.Settle), appending a reconcile line for
// each it teaches something, so that `paycli journal`, the guards and a
// resumed batch see it. It holds the invoice's lock meanwhile; a command
// in flight on the invoice is left alone. A journal that cannot be read
// or written costs a warning: the answer is shown all the same.
func recordInJournal(ctx context.Context, opts *Options, cfg *config.Config, res *gateway.CheckStatusResult, err error, asked time.Time) {
	if opts.JournalPath == nil || opts.Journal == nil {
		return
	}
	warn := func(err error) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the answer was not recorded in the journal: %v\n", err)
	}
	path, perr := opts.JournalPath()
	if perr != nil {
		warn(perr)
		return
	}
	identity := journal.Identity(cfg.BaseURL, cfg.AppID)
	if opts.GatewayIdentity != nil {
		if identity, perr = opts.GatewayIdentity(); perr != nil {
			warn(perr)
			return
		}
	}
	store, serr := opts.Journal()
	if serr != nil {
		warn(serr)
		return
	}
	defer store.Close()
	attempts, lerr := lookUpAttempts(ctx, store, path, opts.Invoice)
	if lerr != nil {
		warn(lerr)
		return
	}
	sandbox := slices.Contains(opts.Flags, "--sandbox")
	var open []journal.Attempt
	for _, kind := range journal.Kinds {
		open = append(open, journal.Unresolved(attempts, journal.ScopeFor(kind, cfg.Profile, cfg.BaseURL, identity, sandbox), opts.Invoice)...)
	}
	if len(open) == 0 {
		return // nothing to record
	}
	unlock, lerr := store.Lock(ctx, identity, opts.Invoice, "status")
	var inFlight *journal.InFlightError
	switch {
	case errors.As(lerr, &inFlight):
		fmt.Fprintf(opts.IO.ErrOut, "Not recorded in the journal: %s.\n", inFlight.Say(opts.Invoice))
		return
	case lerr != nil:
		warn(lerr)
		return
	}
	defer unlock()
	// A shared journal's guards go by the database's clock.
	if clock, ok := store.(interface{ DatabaseTime(time.Time) time.Time }); ok {
		asked = clock.DatabaseTime(asked)
	}
	// Read again under the lock: a command may have finished meanwhile.
	if attempts, lerr = lookUpAttempts(ctx, store, path, opts.Invoice); lerr != nil {
		warn(lerr)
		return
	}
	for _, kind := range journal.Kinds {
		scope := journal.ScopeFor(kind, cfg.Profile, cfg.BaseURL, identity, sandbox)
		for _, a := range journal.Unresolved(attempts, scope, opts.Invoice) {
			l := journal.Settle(a, res, err, asked)
			switch {
			case !l.After.IsZero():
				fmt.Fprintf(opts.IO.ErrOut, "Not recorded in the journal yet: %s may still be in flight; check again after %s.\n",
					attemptName(a), render.FormatTime(l.After, render.Table))
				continue
			case l.Outcome == "", l.Outcome == journal.Pending && opts.Watch:
				// --watch records the answer that ends it, not every poll.
				continue
			}
			line := journal.Reconciliation(a, l, journal.ViaStatus, opts.Now())
			line.Evidence = journal.EvidenceOf(res, err)
			if werr := store.Append(ctx, line); werr != nil {
				warn(werr)
				return
			}
			if l.Decided() {
				fmt.Fprintf(opts.IO.ErrOut, "Recorded in the journal: %s %s (its outcome was unknown).\n", attemptName(a), l.Outcome)
			}
		}
	}
}

// lookUpAttempts reads invoice's attempts: from the journal file at path
// through its index, or from the desk's shared journal when the profile
// names one (store is then no file).
func lookUpAttempts(ctx context.Context, store journal.Store, path, invoice string) ([]journal.Attempt, error) {
	if _, file := store.(*journal.File); file {
		attempts, _, err := journalindex.Lookup(path, invoice)
		return attempts, err
	}
	return store.Attempts(ctx, invoice)
}

// attemptName names an attempt of the invoice in a sentence: "invoice
// INV-1" for a payment, "refund RF… of invoice INV-1", "preauth-capture
// of invoice INV-1".
func attemptName(a journal.Attempt) string {
	invoice := "invoice " + redact.Invoice(a.Intent.Invoice)
	switch kind := a.Intent.OpKind(); kind {
	case journal.KindWalletPay:
		return invoice
	case journal.KindRefund:
		return "refund " + a.Intent.Ref + " of " + invoice
	default:
		return kind + " of " + invoice
	}
}
