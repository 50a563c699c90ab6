// Package preauth implements `paycli preauth capture` and `paycli preauth
// cancel`: take, or release, the money a pre-authorization holds
// (/api/confirmPayment), one at a time or as a batch.
//
// Both commands are adapters over internal/moneyop, the pipeline every
// money-moving command shares; this package says what a capture and a
// cancellation are: their input, the check status that must show an open
// pre-authorization first, the request and the answer.
package preauth

import (
	"context"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli preauth capture` and `cancel`: the
// pipeline's and a pre-authorization's flags.
type Options struct {
	moneyop.Options

	// Action is gateway.ConfirmCapture or gateway.ConfirmCancel.
	Action  gateway.ConfirmStatus
	Invoice string
	// Amount is the capture's --amount; empty captures all that is held.
	Amount string
}

// NewCmdPreAuth builds the `paycli preauth` group.
func NewCmdPreAuth(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "preauth",
		Short: "Capture or cancel a pre-authorization",
		Long: `A pre-authorization (a payment made with transaction_type PreAuth) holds an
amount on the buyer's card; nothing is charged until the merchant captures
it, and the hold is released when the merchant cancels it. Both are
confirmPayment calls and move money: they run through the same checks,
confirmation, journal and exit codes as 'paycli walletpay'.`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(NewCmdCapture(f, nil), NewCmdCancel(f, nil))
	return cmd
}

// NewCmdCapture builds `paycli preauth capture`.
func NewCmdCapture(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := newOptions(f, gateway.ConfirmCapture)
	cmd := &cobra.Command{
		Use:   "capture {INVOICE | --invoice ID} [--amount AMOUNT]",
		Short: "Capture the money a pre-authorization holds, safely",
		Long: `Capture a pre-authorization: take all the money it holds, or --amount of it
(at most the amount held, with no more decimals than its currency has).
The invoice may be given as the argument instead of --invoice.

Before anything is sent, paycli looks the invoice up (check status): it must
be a pre-authorization that is still open. It shows the amount held, the
card and how long ago it was authorized, and asks for confirmation on a
terminal; without a terminal --yes is required. A sale that is not a
pre-authorization, or one already captured or cancelled, exits 4 with
nothing sent; an amount above the one held exits 2 with nothing sent.

Every attempt is recorded in the journal (kind preauth-capture, see 'paycli
journal'). A capture is never retried: when its outcome is unknown paycli
exits 7 and prints the 'paycli status' command that tells what happened;
until it has settled it, the invoice is not captured again (exit 2). While
another paycli command on the invoice is in flight, this one is refused at
once (exit 6).

--batch FILE (or - for stdin) captures one JSON object per line,
{"invoice","amount"} ("amount" optional), --parallel at a time, and prints
one JSON result per line in input order.`,
		Example: `  paycli preauth capture INV-1001
  paycli preauth capture --invoice INV-1001 --amount 150.00 --yes -o json
  paycli preauth capture --batch captures.jsonl --yes > results.jsonl`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runE(cmd, f, opts, runF)
		},
	}
	addFlags(cmd, f, opts, "capture")
	cmd.Flags().StringVar(&opts.Amount, "amount", "", "amount to capture, at most the amount held (default: all of it)")
	_ = cmd.RegisterFlagCompletionFunc("amount", cobra.NoFileCompletions)
	return cmd
}

// NewCmdCancel builds `paycli preauth cancel`.
func NewCmdCancel(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := newOptions(f, gateway.ConfirmCancel)
	cmd := &cobra.Command{
		Use:   "cancel {INVOICE | --invoice ID}",
		Short: "Cancel a pre-authorization, releasing the money it holds",
		Long: `Cancel a pre-authorization: release the whole amount it holds on the card.
The invoice may be given as the argument instead of --invoice.

Before anything is sent, paycli looks the invoice up (check status): it must
be a pre-authorization that is still open. A captured one cannot be
cancelled (refund it instead); that, a sale that is not a pre-authorization
and one already cancelled exit 4 with nothing sent. The summary, the
confirmation (--yes without a terminal), --dry-run, the journal (kind
preauth-cancel) and the exit codes are those of 'paycli preauth capture'.

--batch FILE (or - for stdin) cancels one JSON object per line, {"invoice"}.`,
		Example: `  paycli preauth cancel INV-1001
  paycli preauth cancel --invoice INV-1001 --dry-run`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runE(cmd, f, opts, runF)
		},
	}
	addFlags(cmd, f, opts, "cancel")
	return cmd
}

func newOptions(f *cmdutil.Factory, action gateway.ConfirmStatus) *Options {
	return &Options{Options: moneyop.NewOptions(f), Action: action}
}

func addFlags(cmd *cobra.Command, f *cmdutil.Factory, opts *Options, verb string) {
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "invoice id of the pre-authorization")
	_ = cmd.RegisterFlagCompletionFunc("invoice", cobra.NoFileCompletions)
	moneyop.AddBatchFlags(cmd, f, &opts.Options, moneyop.FlagText{
		Batch:    verb + " each JSON line of FILE (- for stdin)",
		Parallel: "batch lines in flight at once",
	})
	cmdutil.NoteExit(cmd, cmdutil.KindRejected, "not an open pre-authorization (check status shows it captured or cancelled; nothing sent), or refused by the gateway")
	cmdutil.NoteExit(cmd, cmdutil.KindDuplicate, "the gateway answered status_code 117: another call, racing this one, captured or cancelled it (nothing charged); or another command on the invoice is in flight (nothing was sent)")
}

// runE refuses flag combinations that cannot be meant, then runs.
func runE(cmd *cobra.Command, f *cmdutil.Factory, opts *Options, runF func(context.Context, *Options) error) error {
	// cancel has no --amount; a flag a command lacks is never changed.
	if err := moneyop.CheckModeFlags(cmd, &opts.Options, moneyop.Modes{
		Batched:  []string{"invoice", "amount"},
		Required: []string{"invoice"},
	}); err != nil {
		return err
	}
	return moneyop.Start(cmd, f, opts, runF, preauthRun)
}

// preauthRun captures or cancels one pre-authorization, or a batch.
func preauthRun(ctx context.Context, opts *Options) error {
	var op moneyop.Operation[*hold, gateway.ConfirmPaymentRequest, *gateway.ConfirmPaymentResult] = operation{action: opts.Action, now: opts.Now}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, &opts.Options, op)
	}
	return moneyop.RunSingle(ctx, &opts.Options, op, &hold{input: input{Invoice: opts.Invoice, Amount: opts.Amount}})
}
