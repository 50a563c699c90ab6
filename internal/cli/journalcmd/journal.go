// Package journalcmd implements `paycli journal`: the record of every
// walletPay attempt made from this machine (internal/journal).
package journalcmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
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
	// Since keeps attempts started at most this long ago; 0 keeps all.
	Since time.Duration
}

// NewCmdJournal builds `paycli journal`. journalPath locates the journal
// (<state dir>/paycli/journal.jsonl).
func NewCmdJournal(f *cmdutil.Factory, journalPath func() (string, error), runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Format: f.OutputFormat, JournalPath: journalPath, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "journal [--invoice ID] [--since DURATION]",
		Short: "List the wallet payments attempted from this machine",
		Long: `List the walletPay attempts recorded in <state dir>/paycli/journal.jsonl,
oldest first: when, which profile and gateway, the invoice, amount, masked
card, and the outcome (succeeded, declined, duplicate, rejected, unknown,
not_sent) with the gateway's status_code and order number.

An attempt whose outcome was never recorded (paycli was killed mid-call) is
shown as "unknown — check status": run 'paycli status --invoice ID' to learn
whether the buyer was charged.

With -o json the output is an array of objects with the keys attempt,
time, finished_at, profile, base_url, invoice, amount, currency, card,
wallet, outcome, outcome_recorded, status_code, order_no and message.`,
		Example: `  paycli journal
  paycli journal --invoice INV-1001
  paycli journal --since 24h -o json
  paycli journal --jq '.[] | select(.outcome == "unknown") | .invoice'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Since < 0 {
				return cmdutil.UsageErrorf("invalid --since %s: must not be negative", opts.Since)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "only attempts for this invoice id")
	cmd.Flags().DurationVar(&opts.Since, "since", 0, "only attempts started within this long, e.g. 30m or 24h")
	_ = cmd.RegisterFlagCompletionFunc("invoice", CompleteInvoice(journalPath))
	_ = cmd.RegisterFlagCompletionFunc("since", cobra.NoFileCompletions)
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	return cmd
}

// Record is the JSON form of one attempt; its fields are a stable
// interface.
type Record struct {
	Attempt string `json:"attempt"`
	// Kind is the operation: walletpay, refund.
	Kind       string     `json:"kind"`
	Time       time.Time  `json:"time"`
	FinishedAt *time.Time `json:"finished_at"`
	Profile    string     `json:"profile"`
	BaseURL    string     `json:"base_url"`
	Invoice    string     `json:"invoice"`
	Amount     string     `json:"amount"`
	Currency   string     `json:"currency"`
	Card       string     `json:"card"`
	Wallet     string     `json:"wallet"`
	// Ref is the operation's own id for the attempt (a refund's
	// refund_transaction_id); null when it has none.
	Ref     *string `json:"ref"`
	Outcome string  `json:"outcome"`
	// OutcomeRecorded is false for an intent without an outcome line.
	OutcomeRecorded bool    `json:"outcome_recorded"`
	StatusCode      *int    `json:"status_code"`
	OrderNo         *string `json:"order_no"`
	Message         *string `json:"message"`
}

func recordOf(a journal.Attempt) Record {
	r := Record{
		Attempt: a.Intent.Attempt, Kind: a.Intent.OpKind(), Time: a.Intent.Time, Profile: a.Intent.Profile, BaseURL: a.Intent.BaseURL,
		Invoice: a.Intent.Invoice, Amount: a.Intent.Amount, Currency: a.Intent.Currency, Card: a.Intent.Card,
		Wallet: a.Intent.Wallet, Outcome: a.Class(), OutcomeRecorded: a.Recorded(),
	}
	if a.Intent.Ref != "" {
		ref := a.Intent.Ref
		r.Ref = &ref
	}
	if o := a.Outcome; o != nil {
		t := o.Time
		r.FinishedAt, r.StatusCode = &t, o.StatusCode
		if o.OrderNo != "" {
			r.OrderNo = &o.OrderNo
		}
		if o.Message != "" {
			r.Message = &o.Message
		}
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
	attempts, skipped, err := journal.Read(path)
	if err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %d lines of %s could not be read and were left out\n", skipped, path)
	}
	var since time.Time
	if opts.Since > 0 {
		since = opts.Now().Add(-opts.Since)
	}
	records := []Record{}
	unknown := map[string]bool{}
	unknownRefunds := map[string]bool{}
	for _, a := range attempts {
		if opts.Invoice != "" && a.Intent.Invoice != opts.Invoice {
			continue
		}
		if !since.IsZero() && a.Intent.Time.Before(since) {
			continue
		}
		r := recordOf(a)
		records = append(records, r)
		if r.Outcome == journal.Unknown && r.Kind == journal.KindRefund && r.Ref != nil {
			unknownRefunds[*r.Ref] = true
		} else if r.Outcome == journal.Unknown {
			unknown[r.Invoice] = true
		}
	}

	switch format {
	case render.JSON:
		err = opts.JSON.Write(ctx, opts.IO.Out, records)
	default:
		if len(records) == 0 && format == render.Table {
			fmt.Fprintf(opts.IO.ErrOut, "No payment attempts recorded in %s%s.\n", path, filterNote(opts))
			return nil
		}
		err = writeRows(opts, format, records)
	}
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		what := fmt.Sprintf("%d invoices have", len(unknown))
		if len(unknown) == 1 {
			what = "1 invoice has"
		}
		fmt.Fprintf(opts.IO.ErrOut, "%s an unknown outcome; 'paycli status --invoice ID' tells what happened.\n", what)
	}
	if n := len(unknownRefunds); n > 0 {
		// A later attempt with the same ref may have resolved it.
		fmt.Fprintf(opts.IO.ErrOut, "%d refund attempts have an unknown outcome; 'paycli refund --retry REF' re-sends one (it is made at most once).\n", n)
	}
	return nil
}

func filterNote(opts *Options) string {
	switch {
	case opts.Invoice != "" && opts.Since > 0:
		return fmt.Sprintf(" for invoice %s in the last %s", opts.Invoice, opts.Since)
	case opts.Invoice != "":
		return " for invoice " + opts.Invoice
	case opts.Since > 0:
		return fmt.Sprintf(" in the last %s", opts.Since)
	}
	return ""
}

func writeRows(opts *Options, format render.Format, records []Record) error {
	machine := format == render.CSV || format == render.TSV
	header := []string{"TIME", "PROFILE", "KIND", "INVOICE", "AMOUNT", "CARD", "OUTCOME", "CODE", "ORDER"}
	if machine {
		header = []string{"time", "profile", "base_url", "invoice", "amount", "currency", "card", "outcome", "outcome_recorded", "status_code", "order_no", "message", "attempt", "kind", "ref"}
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
		ref := ""
		if r.Ref != nil {
			ref = *r.Ref
		}
		if machine {
			rows = append(rows, []string{r.Time.UTC().Format(time.RFC3339), r.Profile, r.BaseURL, r.Invoice, r.Amount, r.Currency,
				r.Card, r.Outcome, strconv.FormatBool(r.OutcomeRecorded), code, order, msg, r.Attempt, r.Kind, ref})
			continue
		}
		outcome := r.Outcome
		var colour func(string) string
		switch {
		case !r.OutcomeRecorded:
			outcome, colour = UnknownLabel, pal.Yellow
		case outcome == journal.Succeeded:
			colour = pal.Green
		case outcome == journal.Unknown:
			colour = pal.Yellow
		case outcome == journal.Declined:
			colour = pal.Red
		}
		outcomeColours = append(outcomeColours, colour)
		rows = append(rows, []string{r.Time.Local().Format("2006-01-02 15:04:05"), r.Profile, r.Kind, r.Invoice,
			r.Amount + " " + r.Currency, r.Card, outcome, code, order})
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
	return render.WriteTable(opts.IO.Out, render.TableOptions{Palette: pal, RightAlign: []int{4}, Colour: colourOf}, header, rows)
}
