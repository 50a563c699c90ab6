package journalcmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// minAttemptPrefix is the fewest leading characters of an attempt id that
// `journal show` looks an attempt up by.
const minAttemptPrefix = 6

// NewCmdShow builds `paycli journal show`: the attempts of one invoice, or
// one attempt, whole — what the one-line listing shortens.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f), Journal: f.Journal, SandboxIdentity: f.SandboxIdentity}
	cmd := &cobra.Command{
		Use:   "show INVOICE|ATTEMPT",
		Short: "Show an invoice's attempts, or one attempt, whole",
		Long: `Show every attempt of an invoice (or one attempt, by its id or the first
6 or more characters of it, as -o json's attempt key gives it) with all
the journal knows of it: the whole reason the listing shortens, the
outcome's time, the gateway's and the bank's codes and texts, a
reconciliation's answer, and in the shared journal who made and settled it
and from where. Newest first; every profile's and account's attempts.

-o json writes the same array of objects as 'paycli journal -o json', and
-o csv and tsv the same columns.
An invoice or attempt the journal does not hold is exit 2.`,
		Example: `  paycli journal show INV-1001
  paycli journal show 3f9c2a71
  paycli journal show INV-1001 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Invoice = args[0]
			if strings.TrimSpace(opts.Invoice) == "" {
				return cmdutil.UsageErrorf("missing the invoice or attempt id: 'paycli journal' lists them")
			}
			return cmdutil.Run(cmd, opts, runF, showRun)
		},
	}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return CompleteInvoice(f.JournalPath, f.Kinds)(cmd, args, toComplete)
	}
	opts.AddJSONFlags(cmd)
	cmdutil.NoGateway(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable, cmdutil.KindJournalRefused}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:       "the journal holds no such invoice or attempt",
		cmdutil.KindUnavailable: "the profile's shared journal (PostgreSQL) cannot be reached",
	}})
	return cmd
}

// showRun shows the attempts opts.Invoice names: an invoice's, else the
// attempt whose id it is or begins.
func showRun(ctx context.Context, opts *Options) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	key := opts.Invoice
	opts.scope = accountScope{all: true}
	l, err := readListing(ctx, opts)
	if err != nil {
		return err
	}
	records, _ := listRecords(opts, l)
	if len(records) == 0 && len(key) >= minAttemptPrefix {
		opts.Invoice = ""
		if l, err = readListing(ctx, opts); err != nil {
			return err
		}
		all, _ := listRecords(opts, l)
		for _, r := range all {
			if strings.HasPrefix(r.Attempt, key) {
				records = append(records, r)
			}
		}
	}
	shown := render.Escape(redact.Invoice(key))
	switch {
	case len(records) == 0:
		return cmdutil.UsageHint(fmt.Errorf("no invoice or attempt %s in %s", shown, render.Escape(l.where)),
			"'paycli journal' lists the attempts; give an invoice id, or an attempt id (6 characters or more, from -o json's attempt).")
	case opts.Invoice == "" && len(records) > 1 && records[0].Attempt != key:
		return cmdutil.UsageHint(fmt.Errorf("%d attempts begin with %s", len(records), shown), "Give more of the attempt id.")
	}
	newestFirst(records)
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, records)
	case render.CSV, render.TSV:
		return writeRecords(opts, format, records)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{1}
	for i, r := range records {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		if err := render.WriteTable(opts.IO.Out, table, []string{"ATTEMPT", r.Attempt}, attemptFields(r, l.shared)); err != nil {
			return err
		}
	}
	return nil
}

// attemptFields are the rows of `journal show` for r: every field the
// journal holds of the attempt that is not empty.
func attemptFields(r Record, shared bool) [][]string {
	var rows [][]string
	add := func(name, value string) {
		if value != "" {
			rows = append(rows, []string{name, value})
		}
	}
	code := func(c *int) string {
		if c == nil {
			return ""
		}
		return strconv.Itoa(*c)
	}
	add("Time", render.FormatTime(r.Time.Time, render.Table))
	if r.FinishedAt != nil {
		add("Finished", render.FormatTime(r.FinishedAt.Time, render.Table))
	}
	add("Kind", r.Kind)
	add("Invoice", r.Invoice)
	add("Amount", render.Amount(r.Amount, r.Currency))
	add("Card", r.Card)
	add("Wallet", r.Wallet)
	add("Ref", deref(r.Ref))
	outcome := outcomeText(r)
	if shared && r.SettledBy != nil && (r.SettledByLead || *r.SettledBy != deref(r.Operator)) {
		outcome += " (settled by " + *r.SettledBy + ")"
	}
	add("Outcome", outcome)
	add("Status code", code(r.StatusCode))
	add("Order", deref(r.OrderNo))
	add("Message", deref(r.Message))
	add("Description", deref(r.StatusDescription))
	add("Reason code", strings.TrimSpace(deref(r.PaymentReasonCode)+" "+deref(r.PaymentReasonCodeDetail)))
	add("Bank error", strings.TrimSpace(deref(r.OriginalBankErrorCode)+" "+deref(r.OriginalBankErrorDescription)))
	if c := r.Reconciled; c != nil {
		add("Reconciled", fmt.Sprintf("%s at %s via %s", c.Outcome, render.FormatTime(c.Time.Time, render.Table), c.Via))
		add("  status code", code(c.StatusCode))
		add("  status", deref(c.TransactionStatus))
		add("  order", deref(c.OrderNo))
		add("  message", deref(c.Message))
		add("  reason", deref(c.Reason))
		add("  by", deref(c.By))
	}
	add("Spooled outcome", deref(r.Spooled))
	add("Operator", deref(r.Operator))
	add("OS user", deref(r.OSUser))
	add("Host", deref(r.Host))
	add("Settled by", deref(r.SettledBy))
	add("Profile", r.Profile)
	add("Gateway", r.Gateway)
	add("Base URL", r.BaseURL)
	return rows
}
