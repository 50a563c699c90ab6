package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// SettleOptions are the inputs of `paycli journal settle`.
type SettleOptions struct {
	cmdutil.Deps
	// Journal opens the journal the settle line is written to.
	Journal func() (journal.Store, error)
	// Who names this machine's user and host, written on the settle line
	// (a file journal records no role; a shared one stamps the role too).
	Who func() (osUser, host string)
	// Kinds are the money operations' kinds (cmdutil.Factory.Kinds): how
	// the settled attempt is named.
	Kinds journal.Kinds
	// Account names the profile's account (accountFunc): an attempt of it
	// is locked on its identity, whatever account name its line carries
	// (an earlier paycli's). Nil, or another account's attempt: the line's.
	Account func() (Account, error)

	Attempt string
	// As is "made" or "not-made"; Reason why the lead settles it so.
	As, Reason  string
	Yes, DryRun bool
}

// Settlement words (--as).
const (
	settleMade    = "made"
	settleNotMade = "not-made"
)

// NewCmdSettle builds `paycli journal settle`.
func NewCmdSettle(f *cmdutil.Factory, runF func(context.Context, *SettleOptions) error) *cobra.Command {
	opts := &SettleOptions{Deps: cmdutil.DepsOf(f), Journal: f.Journal, Who: f.Machine, Kinds: f.Kinds(), Account: accountFunc(f)}
	cmd := &cobra.Command{
		Use:   "settle ATTEMPT --as made|not-made --reason TEXT",
		Short: "Settle an attempt of unknown outcome by hand (the desk lead)",
		Long: `Settle, by hand, an attempt whose outcome is unknown or queued, when the
gateway cannot say what became of it: --as made (the money moved, or the
card was deleted) or --as not-made (it did not), with --reason saying why
(a ticket with the gateway's support, a bank statement).

Only the gateway's word about an attempt settles it otherwise: check status
naming it ('paycli status', 'paycli journal reconcile'), or a re-send of its
own ref that succeeds ('paycli refund --retry REF'). Check status not
finding it, a refused re-send, a later attempt or the time passed settle
nothing, and paycli never settles an attempt by hand on its own. Until it
is settled, the attempt blocks every money command on its invoice.

The settle line is written to the journal with the reason and who: the OS
user and host (and, on a shared journal, the database role, which must be
a desk lead's: 'paycli journal init --lead ROLE'). 'paycli journal' and
'journal show' show the attempt as settled by the lead, with the reason.
The invoice is held while the line is written; the command asks before
writing it, unless --yes. --dry-run says what it would write.`,
		Example: `  paycli journal settle 3f9c2a7e1b4d --as not-made --reason "gateway support ticket 4711: RF5f0c never reached them"
  paycli journal settle 3f9c2a7e1b4d --as made --reason "the bank statement of 2026-11-25 shows the refund" --yes`,
		Args: cmdutil.ExactArgs(1, "ATTEMPT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Attempt = strings.TrimSpace(args[0])
			if opts.Attempt == "" {
				return cmdutil.UsageErrorf("invalid ATTEMPT: empty; give the attempt id 'paycli journal -o json' shows")
			}
			if opts.As != settleMade && opts.As != settleNotMade {
				return cmdutil.UsageErrorf("invalid --as %q: give made or not-made", opts.As)
			}
			opts.Reason = strings.TrimSpace(opts.Reason)
			if opts.Reason == "" {
				return cmdutil.UsageHint(errors.New("missing --reason"), "Say why the attempt is settled so: --reason \"gateway support ticket 4711 says it was never made\".")
			}
			return cmdutil.Run(cmd, opts, runF, settleRun)
		},
	}
	cmd.Flags().StringVar(&opts.As, "as", "", "what became of the attempt: `made` or not-made")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why the attempt is settled so (`TEXT`, kept in the journal)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "write the settlement without asking")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what would be written; write nothing")
	opts.AddJSONFlags(cmd)
	cmdutil.NoGateway(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindDuplicate, cmdutil.KindUnavailable, cmdutil.KindJournalRefused, cmdutil.KindCancelled}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:          "bad flags, no such attempt, or an attempt that is not unsettled",
		cmdutil.KindDuplicate:      "another command on the invoice is in flight; nothing was written",
		cmdutil.KindJournalRefused: "the shared journal refused the settlement: your role is not a desk lead's",
	}})
	return cmd
}

// SettleResult is what `journal settle` wrote (or would write: DryRun);
// its JSON fields are a stable interface.
type SettleResult struct {
	Attempt string  `json:"attempt"`
	Kind    string  `json:"kind"`
	Invoice string  `json:"invoice"`
	Ref     *string `json:"ref"`
	// Outcome is the class the attempt now has: succeeded (made) or
	// not_found (not made).
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	// By is the OS user and host that wrote it (user@host).
	By     string `json:"by"`
	DryRun bool   `json:"dry_run"`
}

// lockAccount is the account a's invoice is locked on: the identity of
// the profile's account when a is its (its line may carry an earlier
// paycli's name, which the money commands do not lock), else the line's.
func lockAccount(account func() (Account, error), a journal.Attempt) string {
	if account != nil {
		if acc, err := account(); err == nil && acc.Scope.Named(a.Intent) {
			return acc.Identity
		}
	}
	return a.Intent.Gateway
}

// settleRun finds the attempt, checks that it is unsettled, asks, and
// writes the lead's settle line under the invoice's lock.
func settleRun(ctx context.Context, opts *SettleOptions) error {
	format, store, err := formatAndJournal(&opts.Deps, opts.Journal)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := unsettledAttempt(ctx, store, opts.Attempt)
	if err != nil {
		return err
	}
	class := journal.Succeeded
	if opts.As == settleNotMade {
		class = journal.NotFound
	}
	var osUser, host string
	if opts.Who != nil {
		osUser, host = opts.Who()
	}
	res := SettleResult{Attempt: a.Intent.Attempt, Kind: a.Intent.OpKind(), Invoice: redact.Invoice(a.Intent.Invoice), Ref: optional(a.Intent.Ref),
		Outcome: class, Reason: opts.Reason, By: osUser + "@" + host, DryRun: opts.DryRun}
	what := fmt.Sprintf("%s (%s, now %s)", settledName(opts.Kinds.For(a), a), a.Intent.Attempt, a.Class())
	words := strings.ReplaceAll(opts.As, "-", " ")
	if opts.DryRun {
		opts.IO.Notef("Dry run: would settle %s as %s, by %s, for: %s. Nothing was written.", what, words, res.By, render.Escape(redact.Cards(opts.Reason)))
		return writeSettle(ctx, opts, format, res)
	}
	if !opts.Yes {
		ok, err := opts.IO.Confirm(ctx, fmt.Sprintf("Settle %s as %s? Nothing the gateway said backs it, and it frees the invoice", what, words))
		if errors.Is(err, iostreams.ErrNoTerminal) {
			return cmdutil.UsageHint(errors.New("journal settle asks before writing, and there is no terminal to ask on"), "Add --yes once you are sure.")
		}
		if err != nil {
			return err
		}
		if !ok {
			opts.IO.Notef("Cancelled: nothing was written.")
			return cmdutil.SilentError(cmdutil.KindCancelled)
		}
	}
	unlock, err := store.Lock(ctx, lockAccount(opts.Account, a), a.Intent.Invoice, "journal settle")
	var inFlight *journal.InFlightError
	if errors.As(err, &inFlight) {
		return cmdutil.WithKind(cmdutil.KindDuplicate, fmt.Errorf("%s; nothing was written", inFlight.Say(a.Intent.Invoice)), "Run it again once that command has finished.")
	} else if err != nil {
		return journalWriteError(err)
	}
	defer unlock()
	// Read again under the lock: the gateway's word may have come meanwhile.
	if a, err = unsettledAttempt(ctx, store, a.Intent.Attempt); err != nil {
		return err
	}
	line := journal.Reconciliation(a, journal.Learned{Outcome: class, Message: "settled by the desk lead as " + words}, journal.ViaSettle, opts.Now())
	line.Reason, line.OSUser, line.Host, line.Evidence = opts.Reason, osUser, host, nil
	if err := store.Append(ctx, line); err != nil {
		return journalWriteError(err)
	}
	opts.IO.Notef("Settled %s as %s, by %s: %s.", what, words, res.By, render.Escape(redact.Cards(opts.Reason)))
	return writeSettle(ctx, opts, format, res)
}

// writeSettle writes the result as JSON when asked; a person has read the
// note on stderr.
func writeSettle(ctx context.Context, opts *SettleOptions, format render.Format, res SettleResult) error {
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, res)
	}
	return nil
}

// unsettledAttempt finds the attempt named id and checks that it is
// unsettled: unknown or queued, and told by no later attempt
// (journal.UnresolvedAll over its invoice's attempts).
func unsettledAttempt(ctx context.Context, store journal.Store, id string) (journal.Attempt, error) {
	found, err := store.Find(ctx, id)
	if err != nil {
		return journal.Attempt{}, readFailed(err)
	}
	i := slices.IndexFunc(found, func(a journal.Attempt) bool { return a.Intent.Attempt == id })
	if i < 0 {
		return journal.Attempt{}, cmdutil.UsageHint(fmt.Errorf("no attempt %s in %s", render.Escape(id), render.Escape(journal.WhereOf(store))),
			"Give the attempt's whole id: 'paycli journal -o json' lists them (attempt).")
	}
	a := found[i]
	attempts, err := store.Attempts(ctx, a.Intent.Invoice)
	if err != nil {
		return journal.Attempt{}, readFailed(err)
	}
	for _, open := range journal.UnresolvedAll(attempts) {
		if open.Intent.Attempt == id && open.Intent.Invoice == a.Intent.Invoice {
			return open, nil
		}
	}
	for _, b := range attempts {
		if b.Intent.Attempt == id {
			a = b
		}
	}
	why := "its outcome is " + a.Class()
	if a.Unsettled() {
		why = "a later attempt of the same ref succeeded, which settles it"
	}
	return journal.Attempt{}, cmdutil.UsageErrorf("attempt %s is not unsettled: %s; journal settle settles only an attempt whose outcome is unknown or queued", render.Escape(id), why)
}

// journalWriteError is a failed lock or write of the settle line: the
// database's refusal of a role that is no desk lead's (exit 9, with its
// remedy), an outage (exit 8), or any other refusal.
func journalWriteError(err error) error {
	var refused *pgjournal.RefusedError
	switch {
	case errors.As(err, &refused) && refused.NotLead():
		return cmdutil.WithKind(cmdutil.KindJournalRefused, fmt.Errorf("%w; nothing was settled", err),
			"Only a desk lead settles an attempt by hand: ask one, or the database's owner to run 'paycli journal init --url URL --lead ROLE' for your role.")
	case errors.Is(err, journal.ErrUnavailable):
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("%w; nothing was settled", err), "Run it again once the database answers.")
	}
	return err
}

// settledName names a, an attempt of kind k, in a sentence: "refund RF1
// of invoice INV-1", "walletpay of invoice INV-1" (journal.Kind.Subject,
// or the kind's name for the invoice's sale itself).
func settledName(k journal.Kind, a journal.Attempt) string {
	name := k.SubjectOf(a)
	if name == "" {
		name = k.Name
	}
	return name + " of invoice " + render.Escape(redact.Invoice(a.Intent.Invoice))
}
