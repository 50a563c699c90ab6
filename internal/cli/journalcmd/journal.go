// Package journalcmd implements `paycli journal`: the record of every
// money-moving attempt made from this machine (internal/journal), and
// `paycli journal reconcile`, which asks the gateway about the attempts
// whose outcome is unknown and records what it learns.
package journalcmd

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// UnknownLabel is how a table shows an intent without an outcome.
const UnknownLabel = "unknown — check status"

// Options are the inputs of `paycli journal`.
type Options struct {
	IO     *iostreams.IOStreams
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
	// JournalPath returns where the journal lives.
	JournalPath func() (string, error)
	Now         func() time.Time

	Invoice string
	// Since and Until keep the attempts started at or after Since and
	// before Until; a zero time does not limit. SinceText and UntilText
	// are as given, for messages.
	Since, Until         time.Time
	SinceText, UntilText string
	// Outcomes and Kinds keep the attempts of these classes and kinds;
	// empty keeps all.
	Outcomes, Kinds []string
	// Flags are the global flags that chose the profile (--profile,
	// --sandbox) of this command. The listing shows every profile's
	// attempts: the `journal reconcile` it suggests takes the flags of the
	// attempts' own (reconcileFlags).
	Flags []string
	// SandboxIdentity names the sandbox as the lines of --sandbox commands
	// do (cmdutil.Factory.SandboxIdentity); nil when there is none.
	SandboxIdentity func() (string, error)
}

// NewCmdJournal builds `paycli journal`.
func NewCmdJournal(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Format: f.OutputFormat, JournalPath: f.JournalPath, Now: f.Now, SandboxIdentity: f.SandboxIdentity}
	cmd := &cobra.Command{
		Use:   "journal [INVOICE] [--since WHEN] [--until WHEN] [--outcome O]",
		Short: "List the payments attempted from this machine",
		Long: `List the attempts recorded in <state dir>/paycli/journal.jsonl, oldest
first: when (local time with its offset), which profile and gateway, the
invoice, amount, masked card, and the outcome (succeeded, declined,
duplicate, rejected, unknown, not_sent, not_found) with the gateway's
status_code, order number and, for an attempt that did not succeed, the
reason the gateway or paycli gave.

--since and --until take a duration ago (30m, 24h, 1d, 2w), today,
yesterday, now, a date (2026-11-24) or a date and time (2026-11-24 15:04,
or RFC 3339 with its offset). Dates and times are read in your time zone
(TZ) unless written with an offset. A day given to --since starts at its
midnight; a day given to --until takes in the whole day, so
'--since yesterday --until yesterday' is all of yesterday. --outcome and
--kind take one value or several, comma-separated.

An attempt whose outcome was never recorded (paycli was killed mid-call) is
shown as "unknown — check status". 'paycli status --invoice ID' or
'paycli journal reconcile' asks the gateway what happened and records it:
the attempt then shows the learned outcome, marked "(reconciled)", and a
resumed batch acts on it. The footer names the invoices still unknown,
and the 'paycli journal reconcile' line of each profile they were made on
(with its --profile, or --sandbox); for a pre-authorization capture or
cancel, a 3D completion or an api call, which reconcile does not settle,
the 'paycli status' line of its invoice.

Lines the journal cannot read (a line torn by a failed write, a foreign
line) are left out with a warning naming their byte offsets.

With -o json the output is an array of objects with the keys attempt, kind,
time, finished_at, profile, base_url, gateway, invoice, amount, currency,
card, wallet, ref, outcome, outcome_recorded, status_code, order_no, message
and reconciled. Times are RFC 3339 in your time zone, to the second: the
same moment, written the same way, as the table shows.`,
		Example: `  paycli journal
  paycli journal INV-1001
  paycli journal --since 24h -o json
  paycli journal --since yesterday --until yesterday --outcome declined
  paycli journal --since 2026-11-24 --kind refund
  paycli journal --jq '.[] | select(.outcome == "unknown") | .invoice'
  paycli journal reconcile`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			// One reading of the clock for both ends.
			now := sync.OnceValue(func() time.Time { return opts.Now() })
			var err error
			if opts.SinceText != "" {
				if opts.Since, err = cmdutil.ParseWhen(opts.SinceText, now(), false); err != nil {
					return cmdutil.UsageErrorf("invalid --since %w", err)
				}
			}
			if opts.UntilText != "" {
				if opts.Until, err = cmdutil.ParseWhen(opts.UntilText, now(), true); err != nil {
					return cmdutil.UsageErrorf("invalid --until %w", err)
				}
			}
			if !opts.Since.IsZero() && !opts.Until.IsZero() && !opts.Since.Before(opts.Until) {
				return cmdutil.UsageHint(fmt.Errorf("--since %s is not before --until %s", opts.SinceText, opts.UntilText),
					"Give --since the earlier moment; --until takes in the whole of a day it names.")
			}
			if err := checkValues("--outcome", opts.Outcomes, journal.Classes); err != nil {
				return err
			}
			if err := checkValues("--kind", opts.Kinds, journal.Kinds); err != nil {
				return err
			}
			if cmd.Flags().Changed("invoice") {
				if err := invoiceid.Check(opts.Invoice); err != nil {
					return cmdutil.UsageErrorf("invalid --invoice: %w", err)
				}
			}
			flags, err := f.GatewayFlags(cmd)
			if err != nil {
				return err
			}
			opts.Flags = flags
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "only attempts for this invoice id")
	cmd.Flags().StringVar(&opts.SinceText, "since", "", "only attempts started at or after `WHEN`: 24h, 1d, today, yesterday, 2026-11-24…")
	cmd.Flags().StringVar(&opts.UntilText, "until", "", "only attempts started before `WHEN` (a day is taken in whole)")
	cmd.Flags().StringSliceVar(&opts.Outcomes, "outcome", nil, "only attempts with this `OUTCOME`: "+strings.Join(journal.Classes, ", "))
	cmd.Flags().StringSliceVar(&opts.Kinds, "kind", nil, "only attempts of this `KIND`: "+strings.Join(journal.Kinds, ", "))
	_ = cmd.RegisterFlagCompletionFunc("outcome", cobra.FixedCompletions(journal.Classes, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(journal.Kinds, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("until", cobra.FixedCompletions([]string{"now", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("invoice", CompleteInvoice(f.JournalPath))
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || cmd.Flags().Changed("invoice") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return CompleteInvoice(f.JournalPath)(cmd, args, toComplete)
	}
	_ = cmd.RegisterFlagCompletionFunc("since", cobra.FixedCompletions([]string{"1h", "24h", "7d", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	cmd.AddCommand(NewCmdReconcile(f, nil), NewCmdInit(f, nil))
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// Record is the JSON form of one attempt; its fields are a stable
// interface. It is what is shown of the attempt: Invoice is shown as
// redact.Invoice shows it and the messages pass through the card masker
// (redact.Cards), so an invoice id that is a card number shows as its
// first 6 and last 4 digits, in every format; the journal file keeps it whole, and --invoice looks it up whole.
// Card is masked in the journal already; order numbers are the gateway's
// references, shown whole.
type Record struct {
	Attempt    string       `json:"attempt"`
	Kind       string       `json:"kind"`
	Time       render.Time  `json:"time"`
	FinishedAt *render.Time `json:"finished_at"`
	Profile    string       `json:"profile"`
	BaseURL    string       `json:"base_url"`
	// Gateway is the gateway identity; empty on lines written before
	// lines carried it.
	Gateway  string `json:"gateway"`
	Invoice  string `json:"invoice"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Card     string `json:"card"`
	Wallet   string `json:"wallet"`
	// Ref is the operation's own id for the attempt (a refund's
	// refund_transaction_id); null when it has none.
	Ref *string `json:"ref"`
	// Outcome is the attempt's class: from its outcome line, or from its
	// reconciliation when that line did not know.
	Outcome string `json:"outcome"`
	// OutcomeRecorded is false for an intent without an outcome line.
	OutcomeRecorded bool    `json:"outcome_recorded"`
	StatusCode      *int    `json:"status_code"`
	OrderNo         *string `json:"order_no"`
	Message         *string `json:"message"`
	// Reconciled is what the gateway said later, or null.
	Reconciled *Reconciliation `json:"reconciled"`
}

// Reconciliation is the JSON form of a reconcile line.
type Reconciliation struct {
	// Outcome is succeeded, declined, not_found, pending or unknown.
	Outcome           string      `json:"outcome"`
	Time              render.Time `json:"time"`
	Via               string      `json:"via"`
	StatusCode        *int        `json:"status_code"`
	TransactionStatus *string     `json:"transaction_status"`
	OrderNo           *string     `json:"order_no"`
	Message           *string     `json:"message"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func recordOf(a journal.Attempt) Record {
	r := Record{
		Attempt: a.Intent.Attempt, Kind: a.Intent.OpKind(), Time: render.Time{Time: a.Intent.Time}, Profile: a.Intent.Profile,
		BaseURL: a.Intent.BaseURL, Gateway: a.Intent.Gateway, Invoice: redact.Invoice(a.Intent.Invoice), Amount: a.Intent.Amount,
		Currency: a.Intent.Currency, Card: a.Intent.Card, Wallet: a.Intent.Wallet, Outcome: a.Class(),
		OutcomeRecorded: a.Recorded(), OrderNo: optional(a.OrderNo()), Ref: optional(a.Intent.Ref),
	}
	if o := a.Outcome; o != nil {
		t := render.Time{Time: o.Time}
		r.FinishedAt, r.StatusCode, r.Message = &t, o.StatusCode, optional(redact.Cards(o.Message))
	}
	if c := a.Reconciled; c != nil {
		r.Reconciled = &Reconciliation{Outcome: c.Outcome, Time: render.Time{Time: c.Time}, Via: c.Via, StatusCode: c.StatusCode,
			TransactionStatus: optional(c.TransactionStatus), OrderNo: optional(c.OrderNo), Message: optional(redact.Cards(c.Message))}
	}
	return r
}

// Run lists the attempts.
func Run(ctx context.Context, opts *Options) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	path, err := opts.JournalPath()
	if err != nil {
		return err
	}
	var attempts []journal.Attempt
	var damage journal.Damage
	if opts.Invoice != "" {
		attempts, damage, err = journalindex.Lookup(path, opts.Invoice)
	} else {
		attempts, damage, err = journal.ReadAll(path)
	}
	if err != nil {
		return err
	}
	warnDamage(opts.IO, path, damage)
	records := []Record{}
	// The footer names the unresolved attempts, by the rule `journal
	// reconcile` checks them by: an unknown attempt whose story a later
	// one told is not.
	open := map[string]bool{}
	for _, a := range journal.UnresolvedOf(attempts) {
		open[a.Intent.Attempt+"\x00"+a.Intent.Invoice] = true
	}
	var unknown []string
	seen := map[string]bool{}
	// reconcile holds the `journal reconcile` flags of the unknown
	// attempts, one entry per profile, in the order they first appear.
	var reconcile [][]string
	// checks are the `paycli status` lines of the unknown attempts that
	// reconcile does not settle (journal.Settles).
	var checks []string
	seenFlags, seenChecks := map[string]bool{}, map[string]bool{}
	sandboxID := ""
	if opts.SandboxIdentity != nil {
		// Without it (no state folder), no line is taken for the sandbox's.
		sandboxID, _ = opts.SandboxIdentity()
	}
	for _, a := range attempts {
		if opts.Invoice != "" && a.Intent.Invoice != opts.Invoice {
			continue
		}
		if !opts.Since.IsZero() && a.Intent.Time.Before(opts.Since) ||
			!opts.Until.IsZero() && !a.Intent.Time.Before(opts.Until) ||
			len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, a.Intent.OpKind()) ||
			len(opts.Outcomes) > 0 && !slices.Contains(opts.Outcomes, a.Class()) {
			continue
		}
		records = append(records, recordOf(a))
		if !open[a.Intent.Attempt+"\x00"+a.Intent.Invoice] {
			continue
		}
		if inv := a.Intent.Invoice; !seen[inv] {
			seen[inv] = true
			unknown = append(unknown, inv)
		}
		flags := reconcileFlags(a.Intent, sandboxID, opts.Flags)
		if !journal.Settles(a.Intent.OpKind()) {
			// reconcile would find nothing to do for it: the reader is
			// pointed at `paycli status` for that invoice instead.
			line, note := cmdutil.InvoiceCommandLine([]string{"status"}, a.Intent.Invoice, "its invoice id, kept whole in "+path, flags)
			if !seenChecks[line] {
				seenChecks[line] = true
				checks = append(checks, line+note)
			}
			continue
		}
		if key := strings.Join(flags, "\x00"); !seenFlags[key] {
			seenFlags[key] = true
			reconcile = append(reconcile, flags)
		}
	}

	switch format {
	case render.JSON:
		err = opts.JSON.Write(ctx, opts.IO.Out, records)
	default:
		if len(records) == 0 && format == render.Table {
			fmt.Fprintf(opts.IO.ErrOut, "No payment attempts recorded in %s%s.\n", render.Escape(path), filterNote(opts))
			return nil
		}
		err = writeRows(opts, format, records)
	}
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		fmt.Fprintln(opts.IO.ErrOut, unknownFooter(unknown, reconcile, checks))
	}
	return nil
}

// maxNamed bounds how many unknown invoices the footer names.
const maxNamed = 10

// reconcileFlags are the gateway flags that make `paycli journal
// reconcile` check the attempt e: --sandbox for a line of a --sandbox
// command (journal.Entry.MadeInSandbox), else --profile with the line's
// profile, named even when it is the default one, as PAYCLI_PROFILE or
// default_profile may choose another. When this command runs in sandbox
// mode (given is this command's flags: --sandbox, or PAYCLI_SANDBOX set),
// a profile's line adds --sandbox=false, which overrides PAYCLI_SANDBOX.
func reconcileFlags(e journal.Entry, sandboxID string, given []string) []string {
	if e.MadeInSandbox(sandboxID) {
		return []string{"--sandbox"}
	}
	flags := []string{"--profile", e.Profile}
	if slices.Contains(given, "--sandbox") {
		flags = append(flags, "--sandbox=false")
	}
	return flags
}

// unknownFooter names the invoices whose outcome is unknown (masked, like
// every invoice shown) and the command that reconciles them all, which
// needs no invoice id: `paycli journal reconcile` with the flags of their
// profile (reconcileFlags), or one such line per profile, as reconcile
// checks one profile at a time; then the `paycli status` lines of the
// attempts reconcile does not settle (checks), which the reader settles by
// looking.
func unknownFooter(unknown []string, reconcile [][]string, checks []string) string {
	what := fmt.Sprintf("%d invoices have", len(unknown))
	if len(unknown) == 1 {
		what = "1 invoice has"
	}
	named := unknown
	more := ""
	if len(named) > maxNamed {
		named, more = named[:maxNamed], fmt.Sprintf(" and %d more", len(unknown)-maxNamed)
	}
	// The invoices come from the journal, a file anything may have
	// written to.
	named = slices.Clone(named)
	for i, inv := range named {
		named[i] = render.Escape(redact.Invoice(inv))
	}
	footer := fmt.Sprintf("%s an unknown outcome: %s%s.", what, strings.Join(named, ", "), more)
	switch len(reconcile) {
	case 0:
	case 1:
		footer += "\nAsk the gateway and record what it says with: " + render.Escape(cmdutil.ReconcileCommandLine(reconcile[0]))
	default:
		lines := make([]string, len(reconcile))
		for i, flags := range reconcile {
			lines[i] = "  " + render.Escape(cmdutil.ReconcileCommandLine(flags))
		}
		footer += fmt.Sprintf("\nThey were made on %d profiles; ask the gateway and record what it says with one command for each:\n", len(reconcile)) +
			strings.Join(lines, "\n")
	}
	if len(checks) > 0 {
		lines := make([]string, len(checks))
		for i, c := range checks {
			lines[i] = "  " + render.Escape(c)
		}
		footer += "\nreconcile does not settle an operation this paycli does not know (written by another version); see where each stands with:\n" +
			strings.Join(lines, "\n")
	}
	return footer
}

func warnDamage(ios *iostreams.IOStreams, path string, d journal.Damage) {
	if d.Lines == 0 {
		return
	}
	offs := make([]string, len(d.Offsets))
	for i, o := range d.Offsets {
		offs[i] = strconv.FormatInt(o, 10)
	}
	list := strings.Join(offs, ", ")
	if d.Lines > len(d.Offsets) {
		list += ", …"
	}
	lines, were := "lines", "were"
	if d.Lines == 1 {
		lines, were = "line", "was"
	}
	fmt.Fprintf(ios.ErrOut, "warning: %d %s of %s could not be read and %s left out (torn or foreign; byte offsets %s)\n",
		d.Lines, lines, render.Escape(path), were, list)
}

// filterNote says which attempts the filters kept, for the message that
// none were.
func filterNote(opts *Options) string {
	var parts []string
	if opts.Invoice != "" {
		parts = append(parts, "for invoice "+render.Escape(redact.Invoice(opts.Invoice)))
	}
	if len(opts.Kinds) > 0 {
		parts = append(parts, "of kind "+strings.Join(opts.Kinds, " or "))
	}
	if len(opts.Outcomes) > 0 {
		parts = append(parts, "with outcome "+strings.Join(opts.Outcomes, " or "))
	}
	if !opts.Since.IsZero() {
		parts = append(parts, "since "+render.FormatTime(opts.Since, render.Table))
	}
	if !opts.Until.IsZero() {
		parts = append(parts, "before "+render.FormatTime(opts.Until, render.Table))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}

// checkValues is the usage error of a list flag holding a value not in
// allowed; nil when each is.
func checkValues(flag string, given, allowed []string) error {
	for _, v := range given {
		if !slices.Contains(allowed, v) {
			return cmdutil.UsageErrorf("invalid %s %q: use %s", flag, v, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// outcomeText is the OUTCOME cell: the class, marked when a
// reconciliation taught it, and why an unknown one is unknown.
func outcomeText(r Record) string {
	switch {
	case r.Reconciled != nil && r.Outcome != journal.Unknown:
		return r.Outcome + " (reconciled)"
	case r.Reconciled != nil && r.Reconciled.Outcome == journal.Pending:
		return "unknown — still pending"
	case !r.OutcomeRecorded:
		return UnknownLabel
	}
	return r.Outcome
}

func writeRows(opts *Options, format render.Format, records []Record) error {
	machine := format == render.CSV || format == render.TSV
	header := []string{"TIME", "PROFILE", "KIND", "INVOICE", "AMOUNT", "CARD", "OUTCOME", "CODE", "ORDER", "REASON"}
	if machine {
		header = []string{"time", "profile", "base_url", "invoice", "amount", "currency", "card", "outcome", "outcome_recorded", "status_code", "order_no", "message", "attempt", "kind", "reconciled", "ref"}
	}
	pal := render.Palette{Enabled: opts.IO.ColorEnabled()}
	rows := make([][]string, 0, len(records))
	var outcomeColours []func(string) string // per row of rows, for the table
	for _, r := range records {
		code, order, msg := "", "", ""
		if r.StatusCode != nil {
			code = strconv.Itoa(*r.StatusCode)
		}
		if r.OrderNo != nil {
			order = *r.OrderNo
		}
		if r.Message != nil {
			msg = *r.Message
		}
		if machine {
			reconciled := ""
			if r.Reconciled != nil {
				reconciled = r.Reconciled.Outcome
			}
			rows = append(rows, []string{render.FormatTime(r.Time.Time, format), r.Profile, r.BaseURL, r.Invoice, r.Amount, r.Currency,
				r.Card, r.Outcome, strconv.FormatBool(r.OutcomeRecorded), code, order, msg, r.Attempt, r.Kind, reconciled, deref(r.Ref)})
			continue
		}
		outcome := outcomeText(r)
		var colour func(string) string
		switch r.Outcome {
		case journal.Succeeded:
			colour = pal.Green
		case journal.Unknown:
			colour = pal.Yellow
		case journal.Declined:
			colour = pal.Red
		}
		outcomeColours = append(outcomeColours, colour)
		rows = append(rows, []string{render.FormatTime(r.Time.Time, format), r.Profile, r.Kind, r.Invoice,
			render.Amount(r.Amount, r.Currency), r.Card, outcome, code, order, reason(r)})
	}
	if machine {
		return render.WriteRecords(opts.IO.Out, format, header, rows)
	}
	// The outcome column (6) is coloured by render, after it escapes the
	// cells: colour inside a cell's text would be shown escaped.
	colourOf := func(row, col int) func(string) string {
		if col != 6 {
			return nil
		}
		return outcomeColours[row]
	}
	table := cmdutil.TableOptions(opts.IO)
	table.RightAlign, table.Colour = []int{4}, colourOf
	table.Wrap = []int{9, 0, 6}    // reason, time (date above the hour), outcome
	table.Drop = []int{1, 5, 7, 8} // profile, card, code, order: the reason and the invoice say more
	return render.WriteTable(opts.IO.Out, table, header, rows)
}

// reason is the REASON cell: why an attempt did not succeed, as the
// gateway (or paycli) said it; what a reconciliation learned outranks the
// outcome line. Empty for a success.
func reason(r Record) string {
	if r.Outcome == journal.Succeeded {
		return ""
	}
	if c := r.Reconciled; c != nil && c.Message != nil {
		return *c.Message
	}
	return deref(r.Message)
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
