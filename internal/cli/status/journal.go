package status

import (
	"context"
	"slices"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// recordInJournal settles, with what check status answered (res, or the
// call's error err, asked at asked), the invoice's attempts on this
// gateway account whose outcome is unknown and unresolved, appending a
// reconcile line for each it teaches something (journal.Reconciler, the
// one reconciliation `journal reconcile` runs too), so that `paycli
// journal`, the guards and a resumed batch see it. A command in flight on
// the invoice is left alone. A journal that cannot be read or written
// costs a warning: the answer is shown all the same.
func recordInJournal(ctx context.Context, opts *Options, cfg *config.Config, res *gateway.CheckStatusResult, err error, asked time.Time) {
	if opts.Journal == nil {
		return
	}
	warn := func(err error) {
		opts.IO.Warnf("the answer was not recorded in the journal: %v", err)
	}
	identity := journal.AccountOf(cfg.BaseURL, cfg.AppID, cfg.MerchantKey)
	if opts.GatewayIdentity != nil {
		var perr error
		if identity, perr = opts.GatewayIdentity(); perr != nil {
			warn(perr)
			return
		}
	}
	alias := journal.AppAlias(identity, cfg.BaseURL, cfg.AppID)
	store, serr := opts.Journal()
	if serr != nil {
		warn(serr)
		return
	}
	defer store.Close()
	r := journal.Reconciler{
		Store: store, Identity: identity, Command: "status", Via: journal.ViaStatus, Now: opts.Now,
		Kinds: opts.Kinds, Scopes: journal.ReconcileScopes(opts.Kinds, cfg.Profile, cfg.BaseURL, identity, alias, slices.Contains(opts.Flags, "--sandbox")),
		Attempts: func(ctx context.Context, invoice string) ([]journal.Attempt, error) {
			return lookUpAttempts(ctx, store, invoice)
		},
		// --watch records the answer that ends it, not every poll.
		Keep: func(l journal.Learned) bool { return l.Outcome != journal.Pending || !opts.Watch },
	}
	done, rerr := r.Reconcile(ctx, opts.Invoice, func(context.Context) journal.Answer {
		return journal.Answer{Res: res, Err: err, Asked: asked}
	})
	if done.InFlight != nil {
		opts.IO.Notef("Not recorded in the journal: %s.", done.InFlight.Say(opts.Invoice))
		return
	}
	for _, s := range done.Settlements {
		k := opts.Kinds.For(s.Attempt)
		switch {
		case !s.Learned.After.IsZero():
			opts.IO.Notef("Not recorded in the journal yet: %s may still be in flight; check again after %s.",
				attemptName(k, s.Attempt), render.FormatTime(s.Learned.After, render.Table))
		case s.Learned.Missing:
			// Never final: the gateway may still make it, however late.
			opts.IO.Notef("Not recorded in the journal: check status does not find %s (attempt %s), which does not settle it: the gateway may still make it. To settle it, %s.",
				attemptName(k, s.Attempt), s.Attempt.Intent.Attempt, cmdutil.MissingNeeds(s.Attempt, k, opts.Flags))
		case s.Recorded && s.Learned.Decided():
			opts.IO.Notef("Recorded in the journal: %s %s (its outcome was unknown).", attemptName(k, s.Attempt), s.Learned.Outcome)
		}
	}
	if rerr != nil {
		warn(rerr)
	}
}

// lookUpAttempts reads invoice's attempts: from a journal file through
// the index beside it (journal.Indexed), from any other journal by its
// own Attempts.
func lookUpAttempts(ctx context.Context, store journal.Store, invoice string) ([]journal.Attempt, error) {
	if f, ok := store.(journal.Indexed); ok {
		attempts, _, err := journalindex.Lookup(f.IndexedFile(), invoice)
		return attempts, err
	}
	return store.Attempts(ctx, invoice)
}

// attemptName names a, an attempt of the invoice of kind k, in a
// sentence: "invoice INV-1" for the invoice's sale itself, "refund RF… of
// invoice INV-1", "preauth-capture of invoice INV-1" (journal.Kind.Subject).
func attemptName(k journal.Kind, a journal.Attempt) string {
	invoice := "invoice " + redact.Invoice(a.Intent.Invoice)
	if subject := k.SubjectOf(a); subject != "" {
		return subject + " of " + invoice
	}
	return invoice
}
