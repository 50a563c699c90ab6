// Package refund implements `paycli refund`: refund all or part of a sale,
// one at a time or as a batch, never twice.
//
// The command is a thin adapter over internal/moneyop, the pipeline every
// money-moving command shares: this package parses the flags and says what
// a refund is — its checks (check status with refund info: what was sold,
// what is refunded, what remains), its refund_transaction_id, request,
// answer and result. docs/refund.md is the user's guide.
package refund

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/moneyop"
)

// Options are the inputs of `paycli refund`: the pipeline's and a
// refund's flags.
type Options struct {
	moneyop.Options
	// NewRef makes a refund_transaction_id; crypto/rand outside tests.
	NewRef func() string

	Invoice    string
	Amount     string
	Full       bool
	Retry      string
	WebhookKey string
}

// NewCmdRefund builds `paycli refund`.
func NewCmdRefund(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		Options: moneyop.NewOptions(f),
		NewRef:  moneyop.NewRefundID,
	}
	cmd := &cobra.Command{
		Use:   "refund {INVOICE | --invoice ID} (--amount AMOUNT | --full)",
		Short: "Refund all or part of a sale, never twice",
		Long: `Refund all or part of a sale. A refund moves money back to the buyer's card.
The invoice may be given as the argument instead of --invoice.

Before anything is sent, paycli asks the gateway about the sale (check status
with refund info). An amount that is not more than 0, has more decimals than
the currency, or is more than what remains exits 2 (the error says what
remains); a sale that cannot be refunded (not completed, failed, fully
refunded, a pre-authorization still open) exits 4. Nothing is sent either
way. Otherwise paycli shows on stderr the sale's amount, card and date, what
is already refunded and what remains, and asks for confirmation on a
terminal; without one --yes is required.

Every refund carries a refund_transaction_id chosen before it is sent and
written in the journal. The gateway makes a refund_transaction_id at most
once and refuses a repeated one (status_code 104), so a refund whose outcome
is unknown (exit 7) is re-sent with 'paycli refund --retry REF'. Only the
gateway's word about that very refund settles it: the re-send succeeding,
or 'paycli status' listing it in refund_info. A re-send refused (49, any
decline) or answered 104 says nothing about the first refund (49 is what a
first refund made causes; 104, that the id is made or queued): run 'paycli
status --invoice INV' to see what became of it. Until it is settled, a new
refund of that invoice is refused (exit 2); where the gateway cannot tell,
the desk lead settles it by hand ('paycli journal settle'). While another
paycli command on the invoice is in flight (it holds the invoice until its
outcome is recorded), a refund is refused at once (exit 6). Nothing is
retried by itself.

A refund answered 101 waits for the gateway team's approval: it exits 0, and
'paycli status' shows when it is made or refused. It is not re-sent: --retry
of a queued refund is refused (exit 2).

--batch FILE (or - for stdin) refunds one JSON object per line,
{"invoice":"…","amount":"50.00"} or {"invoice":"…","full":true}, optionally
with "id" (the line's refund_transaction_id), --parallel at a time, one result
per line in input order. An invoice may appear once per batch. A batch run
again skips the refunds the journal shows as made, knowing a line by its
invoice and amount, and its id when it has one. An id names one
refund: a batch that gives it to another invoice or amount (on another line,
or in the journal) is refused, exit 2, nothing sent.`,
		Example: `  paycli refund INV-1001 --amount 50.00
  paycli refund --invoice INV-1001 --full --yes -o json
  paycli refund --invoice INV-1001 --amount 50.00 --dry-run
  paycli refund --retry RF5f0c8e2a9b1d4c3e7a6f --yes
  paycli refund --batch refunds.jsonl --yes > results.jsonl`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFlags(cmd, opts); err != nil {
				return err
			}
			return moneyop.Start(cmd, f, opts, runF, refundRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id of the sale to refund")
	fl.StringVar(&opts.Amount, "amount", "", "amount to refund, in the sale's currency (e.g. 50.00)")
	fl.BoolVar(&opts.Full, "full", false, "refund all that remains of the sale")
	fl.StringVar(&opts.Retry, "retry", "", "re-send the refund of unknown outcome REF (its refund_transaction_id or journal attempt)")
	fl.StringVar(&opts.WebhookKey, "webhook-key", "", "the merchant's refund webhook key (refund_web_hook_key)")
	moneyop.AddBatchFlags(cmd, f, &opts.Options, moneyop.FlagText{
		DryRun:   "check, then print the request, secrets redacted, and send nothing",
		Batch:    "refund each JSON line of FILE (- for stdin)",
		Parallel: "batch refunds in flight at once",
	})
	cmdutil.NoteExit(cmd, cmdutil.KindRejected, "refused: by paycli before sending, or by the gateway (110, 49, 31)")
	cmdutil.NoteExit(cmd, cmdutil.KindDuplicate, "the gateway has this refund_transaction_id (104: made or queued; nothing more was refunded), or another command on the invoice is in flight (nothing was sent)")
	for _, name := range []string{"invoice", "amount", "retry", "webhook-key"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// checkFlags refuses flag combinations that say nothing clear (exit 2):
// those of every money-moving command, and --retry's.
func checkFlags(cmd *cobra.Command, opts *Options) error {
	changed := cmd.Flags().Changed
	return moneyop.CheckModeFlags(cmd, &opts.Options, moneyop.Modes{
		Noun:    "refund",
		Batched: []string{"invoice", "amount", "full", "retry"},
		Single: func() error {
			if opts.Retry != "" {
				for _, name := range []string{"invoice", "amount", "full"} {
					if changed(name) {
						return cmdutil.UsageErrorf("--%s cannot be used with --retry: the refund is re-sent exactly as it was", name)
					}
				}
				if strings.TrimSpace(opts.Retry) == "" {
					return cmdutil.UsageErrorf("invalid --retry: empty; give the refund_transaction_id or attempt the error named")
				}
				return nil
			}
			if !changed("invoice") {
				return cmdutil.UsageErrorf("missing --invoice (or use --batch FILE, or --retry REF)")
			}
			if changed("amount") == opts.Full {
				return cmdutil.UsageErrorf("give one of --amount AMOUNT and --full")
			}
			return nil
		},
	})
}

// refundRun makes one refund, re-sends one (--retry), or runs a batch.
func refundRun(ctx context.Context, opts *Options) error {
	var op moneyop.Operation[*refund, gateway.RefundRequest, *gateway.RefundResult] = operation{
		webhookKey: opts.WebhookKey, journalPath: opts.JournalPath, newRef: opts.NewRef, flags: opts.GatewayFlags,
	}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, &opts.Options, op)
	}
	in := &refund{retry: strings.TrimSpace(opts.Retry)}
	if in.retry == "" {
		in.input = input{Invoice: opts.Invoice, Amount: json.Number(opts.Amount), Full: opts.Full}
	}
	return moneyop.RunSingle(ctx, &opts.Options, op, in)
}
