package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// ReconcileOptions are the inputs of `paycli journal reconcile`.
type ReconcileOptions struct {
	cmdutil.Deps
	// Journal opens the journal read for the work, to hold each invoice
	// and record what the gateway said.
	Journal func() (journal.Store, error)
	// GatewayIdentity names the gateway account as the journal's lines do
	// (nil: journal.AccountOf the base URL, app_id and merchant_key).
	GatewayIdentity func() (string, error)
	// Sandbox: the command runs against the emulator (--sandbox); legacy
	// sandbox lines are matched by a loopback address (journal.ScopeFor).
	Sandbox bool
	// Kinds are the money operations' kinds (cmdutil.Factory.Kinds): those
	// check status settles are reconciled.
	Kinds journal.Kinds

	DryRun bool
	Flags  []string
}

// NewCmdReconcile builds `paycli journal reconcile`.
func NewCmdReconcile(f *cmdutil.Factory, runF func(context.Context, *ReconcileOptions) error) *cobra.Command {
	opts := &ReconcileOptions{
		Deps:    cmdutil.DepsOf(f),
		Journal: f.Journal, GatewayIdentity: f.GatewayIdentity, Kinds: f.Kinds(),
	}
	cmd := &cobra.Command{
		Use:   "reconcile [--dry-run]",
		Short: "Ask the gateway what became of unknown outcomes, and record it",
		Long: `For each invoice with an attempt whose outcome is unknown (exit 7: paycli
was killed mid-call, or the gateway had not finished) and that no later
attempt settled, ask the gateway's check-status call what happened, record
the answer in the journal as a reconcile line, and print one line per
invoice:

  succeeded   it was made: the sale taken (order number shown), the refund
              made, the hold captured or released; a resumed batch skips
              the invoice
  declined    the gateway has the transaction, failed or gone the other way:
              nothing was taken by it
  unknown     still pending, still in flight (run again after the time
              shown), not found by check status, skipped because another
              paycli command on the invoice is in flight, or the check
              failed: the note says what to do

Payments, refunds (by their refund_transaction_id in the answer's
refund_info), pre-authorization captures and cancellations, 3D completions
and 'paycli api' calls are checked: an api call on the path of a paycli
command as that command's, any other payment (paySmart2D, …) as a sale.
Check status not finding an attempt is never final, however late: the
gateway may still make it, so nothing is recorded, and the invoice stays
blocked until a refund's re-send of its own refund_transaction_id
('paycli refund --retry REF', which the gateway makes once) or, once the
gateway confirms it was never made, the desk lead's 'paycli journal settle
ATTEMPT --as not-made --reason TEXT'. An answer that does not name the
attempt (a sale found taken, a hold captured) is recorded only once the
attempt's request is over (its time limit and two minutes).

The attempts checked are those made on the gateway account the profile
points at (its base URL and merchant_key: a rotated app_id keeps it; an
earlier paycli's lines of the profile count too), under whichever profile
name; --profile
and --sandbox choose it as everywhere. Checking is a read: nothing is paid.
--dry-run lists the invoices it would check.`,
		Example: `  paycli journal reconcile
  paycli journal reconcile --dry-run
  paycli journal reconcile --profile live -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			flags, err := f.GatewayFlags(cmd)
			if err != nil {
				return err
			}
			opts.Flags, opts.Sandbox = flags, slices.Contains(flags, "--sandbox")
			return cmdutil.Run(cmd, opts, runF, reconcileRun)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list the invoices that would be checked; ask nothing")
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsGateway, cmdutil.KindOutcomeUnknown, cmdutil.KindJournalRefused), Notes: map[cmdutil.Kind]string{
		cmdutil.KindOutcomeUnknown: "some outcomes are still unknown",
	}})
	return cmd
}

// ReconcileResult is one invoice's line: its JSON fields are a stable
// interface. Invoice and Message are shown through the card masker, as in
// `paycli journal` (Record); Attempts name the journal's attempts.
type ReconcileResult struct {
	Invoice string `json:"invoice"`
	// Attempts are the ids of the unknown attempts the answer settles.
	Attempts []string `json:"attempts"`
	// Outcome is succeeded, declined or unknown (not_found only from a
	// paycli older than the settlement rule of issue 39).
	Outcome           string  `json:"outcome"`
	StatusCode        *int    `json:"status_code"`
	TransactionStatus *string `json:"transaction_status"`
	OrderNo           *string `json:"order_no"`
	Message           *string `json:"message"`
}

// reconcileRun checks every unresolved attempt of the gateway account the
// profile points at (journal.Unresolved), an invoice at a time
// (reconcileInvoice).
func reconcileRun(ctx context.Context, opts *ReconcileOptions) error {
	format, cfg, err := opts.FormatAndConfig()
	if err != nil {
		return err
	}
	if cfg.BaseURL == "" || cfg.AppID == "" {
		// No gateway, no scope to look for: the client's check says what
		// the profile lacks (exit 2).
		if _, err := opts.Gateway(); err != nil {
			return err
		}
	}
	store, err := opts.Journal()
	if err != nil {
		return err
	}
	defer store.Close()
	w, err := findWork(ctx, opts, cfg, store)
	if err != nil {
		return err
	}
	invoices := w.invoices
	if n := len(w.sendAgain); n > 0 {
		// The journal's footer names them; reconcile must not read as if
		// nothing were open.
		opts.IO.Notef("%s of unknown outcome (%s): check status knows nothing of them; send each again, the same command: its success settles it (a refusal does not: the desk lead then settles it, paycli journal settle).",
			render.Count(n, "desk action", "desk actions"), render.Escape(strings.Join(redactAll(w.sendAgain), ", ")))
	}
	if len(invoices) == 0 {
		opts.IO.Notef("No unknown outcomes to reconcile on profile %q.", cfg.Profile)
		if format == render.JSON {
			return opts.JSON.Write(ctx, opts.IO.Out, []ReconcileResult{})
		}
		return nil
	}
	if opts.DryRun {
		return dryRunReconcile(opts, cfg.Profile, cfg.BaseURL, invoices)
	}
	ctx, call, err := opts.Open(ctx, cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	defer call.Close()
	client := call.Client

	results := make([]ReconcileResult, 0, len(invoices))
	unknown := 0
	for _, inv := range invoices {
		r, err := reconcileInvoice(ctx, opts, store, w.scopes, w.identity, inv, func(ctx context.Context) (*gateway.CheckStatusResult, error) {
			return client.CheckStatus(ctx, inv)
		})
		if err != nil {
			return err
		}
		if r.Outcome == journal.Unknown {
			unknown++
		}
		results = append(results, r)
		if ctx.Err() != nil {
			break
		}
	}
	if err := writeReconcile(ctx, opts, format, results); err != nil {
		return err
	}
	return stillUnknown(opts, unknown, len(invoices))
}

// dryRunReconcile lists the invoices reconcile would check, asking
// nothing.
func dryRunReconcile(opts *ReconcileOptions, profile, baseURL string, invoices []string) error {
	opts.IO.Notef("Would check %s with the gateway's check-status call on profile %q at %s:",
		render.Count(len(invoices), "invoice", "invoices"), profile, redact.URL(baseURL))
	for _, inv := range invoices {
		fmt.Fprintln(opts.IO.Out, render.Escape(redact.Invoice(inv)))
	}
	opts.IO.Notef("Dry run: nothing was asked.")
	return nil
}

// stillUnknown is reconcile's exit-3 error when unknown of the checked
// invoices still have an unknown outcome; nil when none has.
func stillUnknown(opts *ReconcileOptions, unknown, checked int) error {
	if unknown == 0 {
		return nil
	}
	verb := "have"
	if unknown == 1 {
		verb = "has"
	}
	return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
		fmt.Errorf("%d of %s still %s an unknown outcome", unknown, render.Count(checked, "invoice", "invoices"), verb),
		"Run '"+cmdutil.ReconcileCommandLine(opts.Flags)+"' again later.")
}

// reconcileWork is what a run of reconcile checks: the scopes of the
// gateway account named identity, and the invoices with
// an unresolved attempt in them.
type reconcileWork struct {
	identity string
	scopes   []journal.Scope
	invoices []string
	// sendAgain are the keys of desk actions of unknown outcome
	// (journal.Kind.SentAgain): check status knows nothing of them.
	sendAgain []string
}

// findWork reads the journal for the invoices reconcile checks: a journal
// file whole, warning of lines it cannot read (journal.Indexed), any
// other through the invoices it names as open (openAttempts).
func findWork(ctx context.Context, opts *ReconcileOptions, cfg *config.Config, store journal.Store) (reconcileWork, error) {
	var w reconcileWork
	var err error
	w.identity = journal.AccountOf(cfg.BaseURL, cfg.AppID, cfg.MerchantKey)
	if opts.GatewayIdentity != nil {
		if w.identity, err = opts.GatewayIdentity(); err != nil {
			return w, err
		}
	}
	alias := journal.AppAlias(w.identity, cfg.BaseURL, cfg.AppID)
	var attempts []journal.Attempt
	if f, ok := store.(journal.Indexed); ok {
		var damage journal.Damage
		if attempts, damage, err = journal.ReadAll(f.IndexedFile()); err != nil {
			return w, err
		}
		warnDamage(opts.IO, f.IndexedFile(), damage)
	} else if attempts, err = openAttempts(ctx, store); err != nil {
		return w, err
	}
	w.scopes = journal.ReconcileScopes(opts.Kinds, cfg.Profile, cfg.BaseURL, w.identity, alias, opts.Sandbox)
	w.invoices = journal.UnresolvedInvoices(attempts, w.scopes)
	var again []journal.Scope
	for _, k := range opts.Kinds {
		if k.SentAgain {
			again = append(again, journal.ScopeFor(k.Name, cfg.Profile, cfg.BaseURL, w.identity, opts.Sandbox).WithAlias(alias))
		}
	}
	w.sendAgain = journal.UnresolvedInvoices(attempts, again)
	return w, nil
}

// openAttempts reads the attempts of the invoices that may hold an
// unresolved attempt, when the journal can name them
// (journal.OpenInvoicesLister), else every attempt.
func openAttempts(ctx context.Context, store journal.Store) ([]journal.Attempt, error) {
	lister, ok := store.(journal.OpenInvoicesLister)
	if !ok {
		return store.Attempts(ctx)
	}
	invoices, err := lister.OpenInvoices(ctx)
	if err != nil || len(invoices) == 0 {
		return nil, err // Attempts without invoices would read them all
	}
	return store.Attempts(ctx, invoices...)
}

// reconcileInvoice settles the unresolved attempts of one invoice
// (journal.Reconciler, the one reconciliation `paycli status` runs too):
// an invoice a command is in flight on is skipped, and said so. Only
// refused credentials are an error: anything else is the invoice's
// result.
func reconcileInvoice(ctx context.Context, opts *ReconcileOptions, store journal.Store, scopes []journal.Scope, identity, inv string,
	ask func(context.Context) (*gateway.CheckStatusResult, error)) (ReconcileResult, error) {
	r := ReconcileResult{Invoice: redact.Invoice(inv), Attempts: []string{}, Outcome: journal.Unknown}
	rec := journal.Reconciler{Store: store, Identity: identity, Scopes: scopes, Kinds: opts.Kinds, Command: "journal reconcile", Via: journal.ViaReconcile, Now: opts.Now}
	done, err := rec.Reconcile(ctx, inv, func(ctx context.Context) journal.Answer {
		asked := opts.Now()
		res, err := ask(ctx)
		return journal.Answer{Res: res, Err: err, Asked: asked}
	})
	switch {
	case err != nil:
		return r, err
	case done.InFlight != nil:
		r.Message = optional("skipped: " + done.InFlight.Say(inv))
		return r, nil
	case errors.Is(done.Err, gateway.ErrUnauthorized):
		return r, done.Err
	case len(done.Settlements) == 0:
		r.Message = optional("settled meanwhile by another command")
		if done.Latest != nil {
			r.Outcome = done.Latest.Class()
		}
		return r, nil
	}
	var notes []string
	settled := true
	for _, s := range done.Settlements {
		a, l := s.Attempt, s.Learned
		r.Attempts = append(r.Attempts, a.Intent.Attempt)
		if l.StatusCode != nil {
			r.StatusCode, r.OrderNo, r.TransactionStatus = l.StatusCode, optional(l.OrderNo), optional(l.TransactionStatus)
		}
		if settled = settled && l.Decided(); settled {
			r.Outcome = l.Outcome
		}
		if note := reconcileNote(opts.Kinds.For(a), a, l, opts.Flags); !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	if !settled {
		r.Outcome = journal.Unknown
	}
	r.Message = optional(strings.Join(notes, "; "))
	return r, nil
}

// reconcileNote says what the answer means for a, an attempt of kind k:
// its kind's words for a decided outcome (journal.Kind.Says: a sale's "the
// sale was taken", a refund's outcome), or the words every kind shares;
// after the attempt's subject ("refund REF: ", "preauth-capture: "), but
// for the invoice's sale itself (journal.Kind.Subject).
func reconcileNote(k journal.Kind, a journal.Attempt, l journal.Learned, flags []string) string {
	var note string
	switch {
	case !l.After.IsZero():
		note = "unknown: may still be in flight, run again after " + render.FormatTime(l.After, render.Table)
	case l.Missing:
		note = "unknown: check status does not find it, which is not final (the gateway may still make it); " + cmdutil.MissingNeeds(a, k, flags)
	case l.Decided() && k.Says != nil:
		note = k.Says(l)
	case l.Outcome == journal.Succeeded:
		note = "it was made"
	case l.Outcome == journal.Declined:
		note = fmt.Sprintf("it was not made: the transaction went the other way (transaction_status %q)", l.TransactionStatus)
	case l.Outcome == journal.Pending:
		note = "still pending at the gateway; check again later"
	default:
		note = l.Message
	}
	if subject := k.SubjectOf(a); subject != "" {
		return subject + ": " + note
	}
	return note
}

func writeReconcile(ctx context.Context, opts *ReconcileOptions, format render.Format, results []ReconcileResult) error {
	for i, r := range results {
		// The gateway's words and a failed check's error may echo the
		// invoice.
		if r.Message != nil {
			results[i].Message = optional(redact.Cards(*r.Message))
		}
	}
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, results)
	}
	machine := format == render.CSV || format == render.TSV
	header := []string{"INVOICE", "OUTCOME", "ORDER", "NOTE"}
	if machine {
		header = []string{"invoice", "outcome", "status_code", "transaction_status", "order_no", "message", "attempts"}
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	pal := render.Palette{Enabled: opts.IO.ColorEnabled()}
	rows := make([][]string, 0, len(results))
	for _, r := range results {
		if machine {
			code := ""
			if r.StatusCode != nil {
				code = strconv.Itoa(*r.StatusCode)
			}
			rows = append(rows, []string{r.Invoice, r.Outcome, code, deref(r.TransactionStatus), deref(r.OrderNo), deref(r.Message),
				strings.Join(r.Attempts, " ")})
			continue
		}
		rows = append(rows, []string{r.Invoice, r.Outcome, deref(r.OrderNo), deref(r.Message)})
	}
	if machine {
		return render.WriteRecords(opts.IO.Out, format, header, rows)
	}
	// The outcome column (1) is coloured by render, after it escapes the
	// cells.
	colourOf := func(row, col int) func(string) string {
		switch {
		case col != 1:
			return nil
		case results[row].Outcome == journal.Succeeded:
			return pal.Green
		case results[row].Outcome == journal.Unknown:
			return pal.Yellow
		}
		return nil
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Colour, table.Wrap = colourOf, []int{3}
	return render.WriteTable(opts.IO.Out, table, header, rows)
}

// redactAll is each key as redact.Invoice shows it.
func redactAll(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = redact.Invoice(k)
	}
	return out
}
