// Package complete implements `paycli complete`: complete, or cancel, a
// 3D payment that waits for the merchant (payment_completed_by merchant;
// /payment/complete), one at a time or as a batch.
//
// The command is an adapter over internal/moneyop, the pipeline every
// money-moving command shares; this package says what a completion is:
// its input, the check status that must show a sale waiting for it, the
// request and the answer.
package complete

import (
	"context"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli complete`: the pipeline's and a
// completion's flags.
type Options struct {
	moneyop.Options

	Invoice string
	OrderID string
	// Cancel cancels the sale instead of completing it.
	Cancel bool
}

// NewCmdComplete builds `paycli complete`.
func NewCmdComplete(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: moneyop.NewOptions(f)}
	cmd := &cobra.Command{
		Use:   "complete [INVOICE | --invoice ID] [--order-id ORDER] [--cancel]",
		Short: "Complete (or cancel) a 3D payment that waits for the merchant",
		Long: `Complete a 3D payment made with payment_completed_by "merchant": after the
buyer passed the 3D challenge, the sale waits until the merchant completes
it (the money is taken) or cancels it (--cancel: nothing is taken). Both
are /payment/complete calls and move money: they run through the same
checks, confirmation, journal and exit codes as 'paycli walletpay'.

The invoice may be given as the argument instead of --invoice. Without
--order-id, paycli takes the order id check status names for the invoice.
Before anything is sent, paycli looks the invoice up (check status): an
unknown invoice, an order id that is not the invoice's, a sale already
completed, cancelled or failed, one completed by the gateway itself, and one
whose buyer has not answered the 3D challenge yet exit 4 with nothing sent.
When check status cannot tell whether the sale waits for the merchant, the
summary says so and the gateway decides.

Every attempt is recorded in the journal (kind complete, or complete-cancel).
A completion is never retried: when its outcome is unknown paycli exits 7 and
prints the 'paycli status' command that tells what happened; until it has
settled it, the invoice is not completed again (exit 2). While another
paycli command on the invoice is in flight, this one is refused at once
(exit 6).

--batch FILE (or - for stdin) completes (or, with --cancel, cancels) one
JSON object per line, {"invoice","order_id"} (order_id may be left out),
--parallel at a time.`,
		Example: `  paycli complete INV-1001
  paycli complete --invoice INV-1001 --order-id VP17395123456789012
  paycli complete --invoice INV-1001 --order-id VP17395123456789012 --cancel --yes
  paycli complete --batch completions.jsonl --yes > results.jsonl`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := moneyop.CheckModeFlags(cmd, &opts.Options, moneyop.Modes{Batched: []string{"invoice", "order-id"}, Required: []string{"invoice"}}); err != nil {
				return err
			}
			return moneyop.Start(cmd, f, opts, runF, completeRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id of the 3D payment")
	fl.StringVar(&opts.OrderID, "order-id", "", "the payment's order id, as its 3D result named it (default: the one check status names)")
	fl.BoolVar(&opts.Cancel, "cancel", false, "cancel the payment instead of completing it (nothing is taken)")
	moneyop.AddBatchFlags(cmd, f, &opts.Options, moneyop.FlagText{
		Batch:    "complete each JSON line of FILE (- for stdin)",
		Parallel: "batch lines in flight at once",
	})
	cmdutil.NoteExit(cmd, cmdutil.KindRejected, "not waiting for the merchant (check status shows it completed or cancelled; nothing sent), or refused by the gateway")
	cmdutil.NoteExit(cmd, cmdutil.KindDuplicate, "the gateway answered status_code 117: another call, racing this one, completed or cancelled it (nothing charged); or another command on the invoice is in flight (nothing was sent)")
	for _, name := range []string{"invoice", "order-id"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// completeRun completes or cancels one payment, or a batch.
func completeRun(ctx context.Context, opts *Options) error {
	var op moneyop.Operation[*sale, gateway.CompletePaymentRequest, *gateway.CompletePaymentResult] = operation{cancel: opts.Cancel, flags: opts.GatewayFlags}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, &opts.Options, op)
	}
	return moneyop.RunSingle(ctx, &opts.Options, op, &sale{input: input{Invoice: opts.Invoice, OrderID: opts.OrderID}})
}
