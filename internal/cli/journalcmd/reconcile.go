package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// ReconcileOptions are the inputs of `paycli journal reconcile`.
type ReconcileOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON           *cmdutil.JSONFlags
	Gateway        func() (*gateway.Client, error)
	CommandContext func(context.Context) (context.Context, context.CancelFunc, error)
	JournalPath    func() (string, error)
	Now            func() time.Time
	// GatewayIdentity names the gateway account as the journal's lines do
	// (nil: of the base URL and app_id).
	GatewayIdentity func() (string, error)
	// Sandbox: the command runs against the emulator (--sandbox); legacy
	// sandbox lines are matched by a loopback address (journal.ScopeFor).
	Sandbox bool

	DryRun bool
	Flags  []string
}

// NewCmdReconcile builds `paycli journal reconcile`.
func NewCmdReconcile(f *cmdutil.Factory, journalPath func() (string, error), runF func(context.Context, *ReconcileOptions) error) *cobra.Command {
	opts := &ReconcileOptions{
		IO: f.IOStreams, Config: f.Config, Format: f.OutputFormat, Gateway: f.Gateway, CommandContext: f.CommandContext,
		JournalPath: journalPath, GatewayIdentity: f.GatewayIdentity, Now: f.Now,
	}
	cmd := &cobra.Command{
		Use:   "reconcile [--dry-run]",
		Short: "Ask the gateway what became of unknown outcomes, and record it",
		Long: `For each invoice whose last attempt on this profile and gateway has an
unknown outcome (exit 7: paycli was killed mid-call, or the gateway had not
finished), ask the gateway's check-status call what happened, record the
answer in the journal as a reconcile line, and print one line per invoice:

  succeeded   the sale was taken (order number shown): a resumed batch
              skips the invoice
  declined    the gateway has the transaction, failed: nothing was taken
  not_found   the gateway has no transaction: nothing was taken, and a
              resumed batch sends the invoice again
  unknown     still pending, or the check failed: run this again later

Only the current profile's attempts on the gateway it points at are
checked; --profile and --sandbox choose them as everywhere. Checking is a
read: nothing is paid. --dry-run lists the invoices it would check.`,
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
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return RunReconcile(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list the invoices that would be checked; ask nothing")
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsGateway, cmdutil.KindOutcomeUnknown), Notes: map[cmdutil.Kind]string{
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
	// Outcome is succeeded, declined, not_found or unknown.
	Outcome           string  `json:"outcome"`
	StatusCode        *int    `json:"status_code"`
	TransactionStatus *string `json:"transaction_status"`
	OrderNo           *string `json:"order_no"`
	Message           *string `json:"message"`
}

// RunReconcile checks every unknown attempt of the profile's scope.
func RunReconcile(ctx context.Context, opts *ReconcileOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	cfg, err := opts.Config()
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
	identity := journal.Identity(cfg.BaseURL, cfg.AppID)
	if opts.GatewayIdentity != nil {
		if identity, err = opts.GatewayIdentity(); err != nil {
			return err
		}
	}
	path, err := opts.JournalPath()
	if err != nil {
		return err
	}
	attempts, damage, err := journal.ReadAll(path)
	if err != nil {
		return err
	}
	warnDamage(opts.IO, path, damage)
	var open []journal.Attempt
	for _, kind := range journal.KindsCheckedByStatus {
		scope := journal.ScopeFor(kind, cfg.Profile, cfg.BaseURL, identity, opts.Sandbox)
		states := journal.ByInvoice(attempts, scope)
		for _, a := range journal.Unresolved(attempts, scope, "") {
			// Only an invoice whose latest attempt is unknown needs the
			// gateway: a later attempt already told its story.
			if states[a.Intent.Invoice].Resume() == journal.ResumeUnknown {
				open = append(open, a)
			}
		}
	}
	// Refunds of unknown outcome: the same call, with refund info, says
	// whether each refund_transaction_id was made.
	refundScope := journal.ScopeFor(journal.KindRefund, cfg.Profile, cfg.BaseURL, identity, opts.Sandbox)
	open = append(open, journal.UnresolvedRefunds(attempts, refundScope, "")...)
	invoices, byInvoice := groupByInvoice(open)
	if len(invoices) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No unknown outcomes to reconcile on profile %q.\n", cfg.Profile)
		if format == render.JSON {
			return opts.JSON.Write(ctx, opts.IO.Out, []ReconcileResult{})
		}
		return nil
	}
	if opts.DryRun {
		fmt.Fprintf(opts.IO.ErrOut, "Would check %s with the gateway's check-status call on profile %q at %s:\n",
			render.Count(len(invoices), "invoice", "invoices"), cfg.Profile, redact.URL(cfg.BaseURL))
		for _, inv := range invoices {
			fmt.Fprintln(opts.IO.Out, render.Escape(redact.Invoice(inv)))
		}
		fmt.Fprintln(opts.IO.ErrOut, "Dry run: nothing was asked.")
		return nil
	}
	client, err := opts.Gateway()
	if err != nil {
		return err
	}
	if err := client.RequireMerchantKey(); err != nil {
		return err
	}
	ctx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()

	results := make([]ReconcileResult, 0, len(invoices))
	unknown := 0
	for _, inv := range invoices {
		res, err := client.CheckStatus(ctx, inv)
		if errors.Is(err, gateway.ErrUnauthorized) {
			return err
		}
		r := ReconcileResult{Invoice: redact.Invoice(inv), Outcome: journal.Unknown}
		for _, a := range byInvoice[inv] {
			r.Attempts = append(r.Attempts, a.Intent.Attempt)
		}
		var sales, refunds []journal.Attempt
		for _, a := range byInvoice[inv] {
			if a.Intent.OpKind() == journal.KindRefund {
				refunds = append(refunds, a)
			} else {
				sales = append(sales, a)
			}
		}
		if len(refunds) > 0 {
			settled, rerr := journal.RecordRefundsLearned(path, refunds, refundScope, inv, res, err, journal.ViaReconcile, opts.Now())
			if rerr != nil {
				return rerr
			}
			if len(sales) == 0 {
				r.Outcome, r.Message = refundOutcome(refunds, settled)
				if err != nil && len(settled) < len(refunds) {
					r.Message = optional("the check failed: " + err.Error())
				}
				if r.Outcome == journal.Unknown {
					unknown++
				}
				results = append(results, r)
				if ctx.Err() != nil {
					break
				}
				continue
			}
			byInvoice[inv] = sales
		}
		learned, ok := journal.LearnFromStatus(inv, res, err)
		switch {
		case ok:
			scope := journal.ScopeFor(byInvoice[inv][0].Intent.OpKind(), cfg.Profile, cfg.BaseURL, identity, opts.Sandbox)
			j, jerr := journal.Open(path)
			if jerr != nil {
				return jerr
			}
			jerr = j.Reconcile(byInvoice[inv], scope, learned, journal.ViaReconcile, opts.Now())
			if cerr := j.Close(); jerr == nil {
				jerr = cerr
			}
			if jerr != nil {
				return jerr
			}
			if learned.Settled() {
				r.Outcome = learned.Outcome
			}
			r.StatusCode, r.OrderNo = learned.StatusCode, optional(learned.OrderNo)
			r.TransactionStatus, r.Message = optional(learned.TransactionStatus), optional(reconcileNote(learned))
		case err != nil:
			r.Message = optional("the check failed: " + err.Error())
		default:
			r.Message = optional("the gateway's answer is about another invoice; nothing recorded")
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
	if unknown > 0 {
		return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
			fmt.Errorf("%d of %d invoices still have an unknown outcome", unknown, len(invoices)),
			"Run '"+cmdutil.ReconcileCommandLine(opts.Flags)+"' again later.")
	}
	return nil
}

// groupByInvoice lists the invoices of attempts in journal order, each
// with its attempts.
func groupByInvoice(attempts []journal.Attempt) ([]string, map[string][]journal.Attempt) {
	var invoices []string
	by := map[string][]journal.Attempt{}
	for _, a := range attempts {
		inv := a.Intent.Invoice
		if _, seen := by[inv]; !seen {
			invoices = append(invoices, inv)
		}
		by[inv] = append(by[inv], a)
	}
	return invoices, by
}

// reconcileNote says what the answer means for the invoice.
func reconcileNote(l journal.Learned) string {
	switch l.Outcome {
	case journal.Succeeded:
		return "the sale was taken; a resumed batch skips it"
	case journal.Declined:
		return "the transaction failed; nothing was taken"
	case journal.NotFound:
		return "the gateway has no transaction; nothing was taken, and a resumed batch sends it again"
	case journal.Pending:
		return "still pending at the gateway; check again later"
	}
	return l.Message
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

// refundOutcome is the result of an invoice whose unknown attempts are
// refunds: succeeded or not_found when every one was settled (the last
// one's), unknown otherwise; and a note naming each settled refund.
func refundOutcome(refunds, settled []journal.Attempt) (string, *string) {
	if len(settled) == 0 {
		return journal.Unknown, optional("the answer does not say whether the refunds were made")
	}
	notes := make([]string, 0, len(settled))
	for _, a := range settled {
		notes = append(notes, fmt.Sprintf("refund %s: %s", a.Intent.Ref, a.Class()))
	}
	outcome := settled[len(settled)-1].Class()
	if len(settled) < len(refunds) {
		outcome = journal.Unknown
	}
	return outcome, optional(strings.Join(notes, "; "))
}
