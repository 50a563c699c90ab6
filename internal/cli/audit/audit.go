// Package audit is `paycli audit`: the gateway's ledger of a day (or a
// range) matched against the journal, its fees against the commission
// table (internal/ledger), and, with --settle, the unknown attempts the
// ledger names recorded with its row as evidence (docs/ledger.md).
package audit

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/ledger"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
)

// Options are the inputs of `paycli audit`.
type Options struct {
	cmdutil.Deps
	// Journal opens the profile's journal (file or shared);
	// GatewayIdentity names its account as the journal's lines do.
	Journal         func() (journal.Store, error)
	GatewayIdentity func() (string, error)
	Kinds           journal.Kinds
	// Who names the OS user and host a settle line is written by.
	Who func() (string, string)

	Day, From, To string
	Settle        bool
}

// Output is `paycli audit -o json`: the range, then the whole result, and
// what --settle recorded.
type Output struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Zone    string `json:"zone"`
	Account string `json:"account"`
	*ledger.Result
	Settled []string `json:"settled,omitempty"`
}

// NewCmdAudit builds `paycli audit`.
func NewCmdAudit(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f), Journal: f.Journal, GatewayIdentity: f.GatewayIdentity, Kinds: f.Kinds(), Who: f.Machine}
	cmd := &cobra.Command{
		Use:   "audit [DAY] [--from DAY --to DAY]",
		Short: "Match the gateway's ledger of a day against the journal, fees included",
		Long: `Read the gateway's ledger (getTransactions) of a day, or of --from to --to,
and match it against the journal's attempts on the profile's account in the
same range: sales made elsewhere (information), sales the journal made that
the ledger lacks, refunds, chargebacks and states that disagree, unknown
attempts the ledger names, and each sale's commission against the commission
table (the gateway's commissions answer of today: the table of a past day is
not kept). A summary comes first, then the details by group; -o json gives
the whole result.

DAY is YYYY-MM-DD in the gateway's zone (Europe/Istanbul, UTC+3); the
default is today there. It exits 0 when the ledger and the journal agree,
11 when a difference needs a person (for a cron job).

--settle records each unknown or queued attempt the ledger names with the
ledger's row as evidence, as check status would; a missing row settles
nothing.`,
		Example: `  paycli audit
  paycli audit 2025-03-05 -o json
  paycli audit --from 2025-03-01 --to 2025-03-07
  paycli audit --settle`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Day = args[0]
			}
			return cmdutil.Run(cmd, opts, runF, auditRun)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "first day of a range (YYYY-MM-DD, gateway time)")
	cmd.Flags().StringVar(&opts.To, "to", "", "last day of a range, included")
	cmd.Flags().BoolVar(&opts.Settle, "settle", false, "record the unknown attempts the ledger names, with its row as evidence")
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsGateway, cmdutil.KindLedgerDiffers), Notes: map[cmdutil.Kind]string{
		cmdutil.KindLedgerDiffers: "a difference between the ledger and the journal needs a person",
	}})
	return cmd
}

// Range reads DAY or --from/--to into [from, to) in the gateway's zone;
// no day is today there (now).
func Range(day, fromDay, toDay string, now time.Time) (time.Time, time.Time, error) {
	zone := money.GatewayZone()
	parse := func(name, s string) (time.Time, error) {
		t, err := time.ParseInLocation(time.DateOnly, s, zone)
		if err != nil {
			return t, cmdutil.UsageErrorf("%s %q is not a day: write YYYY-MM-DD, e.g. 2025-03-05", name, s)
		}
		return t, nil
	}
	switch {
	case day != "" && (fromDay != "" || toDay != ""):
		return time.Time{}, time.Time{}, cmdutil.UsageErrorf("give a DAY or --from and --to, not both")
	case (fromDay == "") != (toDay == ""):
		return time.Time{}, time.Time{}, cmdutil.UsageErrorf("--from and --to go together: give both, or a DAY")
	case fromDay != "":
		from, err := parse("--from", fromDay)
		if err != nil {
			return from, from, err
		}
		to, err := parse("--to", toDay)
		if err != nil {
			return from, to, err
		}
		if to.Before(from) {
			return from, to, cmdutil.UsageErrorf("--from %s is after --to %s: the range ends before it begins", fromDay, toDay)
		}
		return from, to.AddDate(0, 0, 1), nil
	case day != "":
		d, err := parse("DAY", day)
		return d, d.AddDate(0, 0, 1), err
	}
	y, m, d := now.In(zone).Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, zone)
	return from, from.AddDate(0, 0, 1), nil
}

func auditRun(ctx context.Context, opts *Options) error {
	from, to, err := Range(opts.Day, opts.From, opts.To, opts.Now())
	if err != nil {
		return err
	}
	format, cfg, err := opts.FormatAndConfig()
	if err != nil {
		return err
	}
	client, err := opts.Gateway()
	if err != nil {
		return err
	}
	identity, err := opts.GatewayIdentity()
	if err != nil {
		return err
	}
	store, err := opts.Journal()
	if err != nil {
		return err
	}
	defer store.Close()
	account := journal.Scope{Profile: cfg.Profile, Gateway: identity, BaseURL: cfg.BaseURL}.WithAlias(journal.AppAlias(identity, cfg.BaseURL, cfg.AppID))
	opts.IO.Notef("Auditing %s to %s (gateway time, %s), profile %s.", from.Format(time.DateOnly), to.AddDate(0, 0, -1).Format(time.DateOnly), "Europe/Istanbul", cfg.Profile)
	au := ledger.Audit{Kinds: opts.Kinds, Source: gateway.EndpointGetTransactions, Table: tableOf(client), Now: opts.Now(), From: from, To: to,
		Invoice: func(ctx context.Context, invoice string) ([]journal.Attempt, error) {
			found, err := store.Attempts(ctx, invoice)
			return slices.DeleteFunc(found, func(a journal.Attempt) bool { return !account.Named(a.Intent) }), err
		}}
	end := to
	q := gateway.TransactionQuery{Span: gateway.SpanRange, From: from, To: to.Add(-time.Second),
		Waited: func(d time.Duration) {
			opts.IO.Notef("The gateway refuses a listing repeated within 2 seconds; waiting %s.", d)
		}}
	res, err := au.Run(ctx, func(yield func(journal.Attempt) error) error {
		return journal.AccountAttemptsOf(ctx, store, account, from, to, func(a journal.Attempt) error {
			if over := a.Deadline().Add(journal.InFlightMargin); opts.Kinds.For(a).Sale && over.After(end) {
				end = over
			}
			return yield(a)
		})
	}, ledgerRows(ctx, client, q, from, &end))
	if err != nil {
		return err
	}
	out := Output{From: from.Format(time.DateOnly), To: to.AddDate(0, 0, -1).Format(time.DateOnly), Zone: "Europe/Istanbul", Account: identity, Result: res}
	if opts.Settle {
		if out.Settled, err = settle(ctx, opts, store, identity, res); err != nil {
			return err
		}
	}
	if format == render.JSON {
		err = opts.JSON.Write(ctx, opts.IO.Out, out)
	} else {
		err = writeText(opts, out)
	}
	if err != nil {
		return err
	}
	if res.NeedsPerson > len(out.Settled) {
		return cmdutil.SilentError(cmdutil.KindLedgerDiffers)
	}
	return nil
}

// ledgerRows is the ledger an audit of [from, to) reads, each row once:
// the rows created in the range (q) and on past it until *end, when the
// last sale attempt of the range is over (set while the journal is read,
// which Run reads first: a sale sent just before midnight is written just
// after); then the rows changed in the range (by modification) that were
// created before it (a refund or chargeback of an earlier sale).
func ledgerRows(ctx context.Context, client *gateway.Client, q gateway.TransactionQuery, from time.Time, end *time.Time) iter.Seq2[gateway.Transaction, error] {
	return func(yield func(gateway.Transaction, error) bool) {
		created := q
		created.To = end.Add(-time.Second)
		for t, err := range client.Transactions(ctx, created) {
			if !yield(t, err) {
				return
			}
		}
		changed := q
		changed.ByModified = true
		for t, err := range client.Transactions(ctx, changed) {
			if err == nil && (t.CreatedAt.IsZero() || !t.CreatedAt.Before(from)) {
				continue
			}
			if !yield(t, err) {
				return
			}
		}
	}
}

// tableOf is the commission table of a currency, as `paycli commissions`
// asks for it (the merchant's side); no table is no rows.
func tableOf(client *gateway.Client) func(context.Context, string) ([]commission.Row, error) {
	return func(ctx context.Context, currency string) ([]commission.Row, error) {
		com, err := client.Commissions(ctx, gateway.CommissionsRequest{CurrencyCode: currency})
		if errors.Is(err, gateway.ErrNoData) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		rows, _, err := commission.Rows(com.Schedule, commission.Filter{}, nil)
		return rows, err
	}
}

// settle records each attempt the ledger settles (ledger.Named with a
// Settlement), through the journal's own path: the invoice's lock on the
// account's identity, the attempt read again under it and still unsettled
// (journal.UnresolvedAll), a reconcile line via ViaAudit with the row as
// evidence. An attempt the ledger gives two outcomes is not recorded.
func settle(ctx context.Context, opts *Options, store journal.Store, identity string, res *ledger.Result) ([]string, error) {
	var done []string
	osUser, host := opts.Who()
	named := res.In(ledger.Named)
	outcomes := map[string]map[string]bool{}
	for _, d := range named {
		if d.Settle != nil {
			if outcomes[d.Attempt] == nil {
				outcomes[d.Attempt] = map[string]bool{}
			}
			outcomes[d.Attempt][d.Settle.Outcome] = true
		}
	}
	for _, d := range named {
		if d.Settle == nil {
			continue
		}
		if len(outcomes[d.Attempt]) > 1 {
			opts.IO.Notef("Not recorded: the ledger says attempt %s of invoice %s both succeeded and declined; ask the gateway.", d.Attempt, render.Escape(d.Invoice))
			delete(outcomes, d.Attempt)
			continue
		} else if outcomes[d.Attempt] == nil {
			continue
		}
		ok, err := settleOne(ctx, opts, store, identity, d, osUser, host)
		if err != nil {
			return done, err
		}
		if ok {
			done = append(done, d.Attempt)
			opts.IO.Notef("Recorded: attempt %s of invoice %s %s, from the ledger's row.", d.Attempt, render.Escape(d.Invoice), d.Settle.Outcome)
		}
	}
	return done, nil
}

func settleOne(ctx context.Context, opts *Options, store journal.Store, identity string, d ledger.Difference, osUser, host string) (bool, error) {
	unlock, err := store.Lock(ctx, identity, d.Invoice, "audit --settle")
	var inFlight *journal.InFlightError
	if errors.As(err, &inFlight) {
		opts.IO.Notef("Not recorded: %s.", inFlight.Say(d.Invoice))
		return false, nil
	} else if err != nil {
		return false, err
	}
	defer unlock()
	found, err := store.Attempts(ctx, d.Invoice)
	if err != nil {
		return false, err
	}
	for _, a := range journal.UnresolvedAll(found) {
		if a.Intent.Attempt != d.Attempt {
			continue
		}
		// A sale's row may be an earlier try's while a is still in flight
		// (journal.Settle holds such an answer back the same way).
		if over := a.Deadline().Add(journal.InFlightMargin); opts.Kinds.For(a).Sale && opts.Now().Before(over) {
			opts.IO.Notef("Not recorded: attempt %s of invoice %s may still be in flight until %s.", d.Attempt, render.Escape(d.Invoice), over.UTC().Format(time.RFC3339))
			return false, nil
		}
		line := journal.Reconciliation(a, journal.Learned{Outcome: d.Settle.Outcome, Message: "the gateway's ledger lists it: " + d.Message}, journal.ViaAudit, opts.Now())
		line.Evidence, line.OSUser, line.Host = d.Settle.Evidence, osUser, host
		if err := store.Append(ctx, line); err != nil {
			return false, fmt.Errorf("recording attempt %s: %w", d.Attempt, err)
		}
		return true, nil
	}
	return false, nil
}
