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
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli refund`.
type Options struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON            *cmdutil.JSONFlags
	Gateway         func() (*gateway.Client, error)
	CommandContext  func(context.Context) (context.Context, context.CancelFunc, error)
	JournalPath     func() (string, error)
	GatewayIdentity func() (string, error)
	Now             func() time.Time
	// NewAttemptID names a journal attempt, NewRef a refund_transaction_id;
	// Random feeds hash_key ivs and salts. All are crypto/rand outside
	// tests.
	NewAttemptID func() string
	NewRef       func() string
	Random       io.Reader

	Invoice    string
	Amount     string
	Full       bool
	Retry      string
	WebhookKey string
	Yes        bool
	DryRun     bool
	Batch      string
	Parallel   int
	// Flags are the global flags (--profile, --sandbox) the suggested
	// command lines repeat.
	Flags []string
}

// NewCmdRefund builds `paycli refund`.
func NewCmdRefund(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:              f.IOStreams,
		Config:          f.Config,
		Gateway:         f.Gateway,
		CommandContext:  f.CommandContext,
		JournalPath:     f.JournalPath,
		GatewayIdentity: f.GatewayIdentity,
		Now:             f.Now,
		NewAttemptID:    randomHex(8),
		NewRef:          func() string { return "RF" + randomHex(12)() },
		Random:          rand.Reader,
	}
	cmd := &cobra.Command{
		Use:   "refund --invoice ID (--amount AMOUNT | --full)",
		Short: "Refund all or part of a sale, never twice",
		Long: `Refund all or part of a sale. A refund moves money back to the buyer's card.

Before anything is sent, paycli asks the gateway about the sale (check status
with refund info). An amount that is not more than 0, has more decimals than
the currency, or is more than what remains exits 2 (the error says what
remains); a sale that cannot be refunded (not completed, failed, fully
refunded, a pre-authorization still open) exits 4. Nothing is sent either
way. Otherwise paycli shows on stderr the sale's amount, card and date, what
is already refunded and what remains, and asks for confirmation on a
terminal; without one --yes is required.

Every refund carries a refund_transaction_id chosen before it is sent and
written in the journal. The gateway refuses a repeated one (status_code 104),
so a refund whose outcome is unknown (exit 7) is re-sent with
'paycli refund --retry REF': it is made once, whatever happened before. Until
it is, a new refund of that invoice is refused. Nothing is retried by itself.

A refund answered 101 waits for the gateway team's approval: it exits 0, and
'paycli status' shows when it is made.

--batch FILE (or - for stdin) refunds one JSON object per line,
{"invoice":"…","amount":"50.00"} or {"invoice":"…","full":true}, optionally
with "id" (the line's refund_transaction_id), --parallel at a time, one result
per line in input order. An invoice may appear once per batch. A batch run
again skips the refunds the journal shows as made, knowing a line by its id,
or without one by its invoice and amount.

Exit codes: 0 refunded or queued, 2 bad input (nothing sent), 3 credentials
refused, 4 refused (by paycli before sending, or by the gateway: 110, 49, 31),
6 this refund was already made (104), 7 outcome unknown; see
'paycli help exit-codes'.`,
		Example: `  paycli refund --invoice INV-1001 --amount 50.00
  paycli refund --invoice INV-1001 --full --yes -o json
  paycli refund --invoice INV-1001 --amount 50.00 --dry-run
  paycli refund --retry RF5f0c8e2a9b1d4c3e7a6f --yes
  paycli refund --batch refunds.jsonl --yes > results.jsonl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFlags(cmd, opts); err != nil {
				return err
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
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id of the sale to refund")
	fl.StringVar(&opts.Amount, "amount", "", "amount to refund, in the sale's currency (e.g. 50.00)")
	fl.BoolVar(&opts.Full, "full", false, "refund all that remains of the sale")
	fl.StringVar(&opts.Retry, "retry", "", "re-send the refund of unknown outcome REF (its refund_transaction_id or journal attempt)")
	fl.StringVar(&opts.WebhookKey, "webhook-key", "", "the merchant's refund webhook key (refund_web_hook_key)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation (required without a terminal, and with --batch)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check, then print the request, secrets redacted, and send nothing")
	fl.StringVar(&opts.Batch, "batch", "", "refund each JSON line of FILE (- for stdin)")
	fl.IntVar(&opts.Parallel, "parallel", moneyop.DefaultParallel, "batch refunds in flight at once")
	_ = cmd.RegisterFlagCompletionFunc("batch", cmdutil.CompleteFile)
	for _, name := range []string{"invoice", "amount", "retry", "webhook-key", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	return cmd
}

// checkFlags refuses flag combinations that say nothing clear (exit 2).
func checkFlags(cmd *cobra.Command, opts *Options) error {
	changed := cmd.Flags().Changed
	switch {
	case opts.Batch != "":
		if changed("jq") {
			return cmdutil.UsageErrorf("--jq filters a single refund's result; a batch prints JSON Lines already (pipe them to jq)")
		}
		for _, name := range []string{"invoice", "amount", "full", "retry", "dry-run"} {
			if changed(name) {
				return cmdutil.UsageErrorf("--%s cannot be used with --batch: each line of the batch carries its own refund", name)
			}
		}
		if !opts.Yes {
			return cmdutil.UsageHint(errors.New("--batch needs --yes: a batch never asks for confirmation, and moves money"),
				"Check the file first, then run again with --yes.")
		}
	case opts.Retry != "":
		for _, name := range []string{"invoice", "amount", "full"} {
			if changed(name) {
				return cmdutil.UsageErrorf("--%s cannot be used with --retry: the refund is re-sent exactly as it was", name)
			}
		}
		if strings.TrimSpace(opts.Retry) == "" {
			return cmdutil.UsageErrorf("invalid --retry: empty; give the refund_transaction_id or attempt the error named")
		}
	default:
		if !changed("invoice") {
			return cmdutil.UsageErrorf("missing --invoice (or use --batch FILE, or --retry REF)")
		}
		if changed("amount") == opts.Full {
			return cmdutil.UsageErrorf("give one of --amount AMOUNT and --full")
		}
	}
	if opts.Batch == "" && changed("parallel") {
		return cmdutil.UsageErrorf("--parallel only applies to --batch")
	}
	if opts.Parallel < 1 || opts.Parallel > moneyop.MaxParallel {
		return cmdutil.UsageErrorf("invalid --parallel %d: use 1 to %d", opts.Parallel, moneyop.MaxParallel)
	}
	return nil
}

// randomHex returns a maker of random ids of n bytes, in hex.
func randomHex(n int) func() string {
	return func() string {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b)
	}
}

// Run makes one refund, re-sends one (--retry), or runs a batch.
func Run(ctx context.Context, opts *Options) error {
	mo := &moneyop.Options{
		IO:              opts.IO,
		Config:          opts.Config,
		Format:          opts.Format,
		JSON:            opts.JSON,
		Gateway:         opts.Gateway,
		CommandContext:  opts.CommandContext,
		JournalPath:     opts.JournalPath,
		GatewayIdentity: opts.GatewayIdentity,
		Now:             opts.Now,
		NewAttemptID:    opts.NewAttemptID,
		Random:          opts.Random,
		Yes:             opts.Yes,
		DryRun:          opts.DryRun,
		Batch:           opts.Batch,
		Parallel:        opts.Parallel,
		GatewayFlags:    opts.Flags,
	}
	op := operation{webhookKey: opts.WebhookKey, journalPath: opts.JournalPath, newRef: opts.NewRef, flags: opts.Flags}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, mo, op)
	}
	in := &refund{retry: strings.TrimSpace(opts.Retry)}
	if in.retry == "" {
		in.input = input{Invoice: opts.Invoice, Amount: json.Number(opts.Amount), Full: opts.Full}
	}
	return moneyop.RunSingle(ctx, mo, op, in)
}
