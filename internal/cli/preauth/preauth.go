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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli preauth capture` and `cancel`.
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
	// NewAttemptID names a journal attempt; Random feeds hash_key ivs and
	// salts. Both are crypto/rand outside tests.
	NewAttemptID func() string
	Random       io.Reader

	// Action is gateway.ConfirmCapture or gateway.ConfirmCancel.
	Action  gateway.ConfirmStatus
	Invoice string
	// Amount is the capture's --amount; empty captures all that is held.
	Amount   string
	Yes      bool
	DryRun   bool
	Batch    string
	Parallel int
	// StatusFlags are the global flags (--profile, --sandbox) a suggested
	// command repeats to reach the same gateway.
	StatusFlags []string
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
		Use:   "capture --invoice ID [--amount AMOUNT]",
		Short: "Capture the money a pre-authorization holds, safely",
		Long: `Capture a pre-authorization: take all the money it holds, or --amount of it
(at most the amount held, with no more decimals than its currency has).

Before anything is sent, paycli looks the invoice up (check status): it must
be a pre-authorization that is still open. It shows the amount held, the
card and how long ago it was authorized, and asks for confirmation on a
terminal; without a terminal --yes is required. A sale that is not a
pre-authorization, or one already captured or cancelled, exits 4 with
nothing sent; an amount above the one held exits 2 with nothing sent.

Every attempt is recorded in the journal (kind preauth-capture, see 'paycli
journal'). A capture is never retried: when its outcome is unknown paycli
exits 7 and prints the 'paycli status' command that tells what happened.

--batch FILE (or - for stdin) captures one JSON object per line,
{"invoice","amount"} ("amount" optional), --parallel at a time, and prints
one JSON result per line in input order.

Exit codes: 0 captured, 2 bad input (nothing sent), 4 not an open
pre-authorization (check status shows it already captured or cancelled;
nothing sent) or refused by the gateway, 6 the gateway answered that it was
already captured or cancelled (status_code 117, two captures racing; nothing
charged), 7 outcome unknown; see 'paycli help exit-codes'.`,
		Example: `  paycli preauth capture --invoice INV-1001
  paycli preauth capture --invoice INV-1001 --amount 150.00 --yes -o json
  paycli preauth capture --batch captures.jsonl --yes > results.jsonl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runE(cmd, f, opts, runF)
		},
	}
	addFlags(cmd, opts, "capture")
	cmd.Flags().StringVar(&opts.Amount, "amount", "", "amount to capture, at most the amount held (default: all of it)")
	_ = cmd.RegisterFlagCompletionFunc("amount", cobra.NoFileCompletions)
	return cmd
}

// NewCmdCancel builds `paycli preauth cancel`.
func NewCmdCancel(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := newOptions(f, gateway.ConfirmCancel)
	cmd := &cobra.Command{
		Use:   "cancel --invoice ID",
		Short: "Cancel a pre-authorization, releasing the money it holds",
		Long: `Cancel a pre-authorization: release the whole amount it holds on the card.

Before anything is sent, paycli looks the invoice up (check status): it must
be a pre-authorization that is still open. A captured one cannot be
cancelled (refund it instead); that, a sale that is not a pre-authorization
and one already cancelled exit 4 with nothing sent. The summary, the
confirmation (--yes without a terminal), --dry-run, the journal (kind
preauth-cancel) and the exit codes are those of 'paycli preauth capture'.

--batch FILE (or - for stdin) cancels one JSON object per line, {"invoice"}.`,
		Example: `  paycli preauth cancel --invoice INV-1001
  paycli preauth cancel --invoice INV-1001 --dry-run`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runE(cmd, f, opts, runF)
		},
	}
	addFlags(cmd, opts, "cancel")
	return cmd
}

func newOptions(f *cmdutil.Factory, action gateway.ConfirmStatus) *Options {
	return &Options{
		IO:              f.IOStreams,
		Config:          f.Config,
		Format:          f.OutputFormat,
		Gateway:         f.Gateway,
		CommandContext:  f.CommandContext,
		JournalPath:     f.JournalPath,
		GatewayIdentity: f.GatewayIdentity,
		Now:             f.Now,
		NewAttemptID:    NewAttemptID,
		Random:          rand.Reader,
		Action:          action,
	}
}

func addFlags(cmd *cobra.Command, opts *Options, verb string) {
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id of the pre-authorization")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation (required without a terminal, and with --batch)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the request, secrets redacted, and send nothing")
	fl.StringVar(&opts.Batch, "batch", "", verb+" each JSON line of FILE (- for stdin)")
	fl.IntVar(&opts.Parallel, "parallel", moneyop.DefaultParallel, "batch lines in flight at once")
	_ = cmd.RegisterFlagCompletionFunc("batch", cmdutil.CompleteFile)
	for _, name := range []string{"invoice", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(opts.Format)
}

// runE refuses flag combinations that cannot be meant, then runs.
func runE(cmd *cobra.Command, f *cmdutil.Factory, opts *Options, runF func(context.Context, *Options) error) error {
	single := []string{"invoice", "amount"}
	if opts.Batch != "" {
		if cmd.Flags().Changed("jq") {
			return cmdutil.UsageErrorf("--jq filters a single result; a batch prints JSON Lines already (pipe them to jq)")
		}
		for _, name := range append(single, "dry-run") {
			if cmd.Flags().Lookup(name) != nil && cmd.Flags().Changed(name) {
				return cmdutil.UsageErrorf("--%s cannot be used with --batch: each line of the batch carries its own", name)
			}
		}
		if !opts.Yes {
			return cmdutil.UsageHint(errors.New("--batch needs --yes: a batch never asks for confirmation, and moves money"),
				"Check the file first, then run again with --yes.")
		}
	} else {
		if !cmd.Flags().Changed("invoice") {
			return cmdutil.UsageErrorf("missing --invoice (or use --batch FILE)")
		}
		if cmd.Flags().Changed("parallel") {
			return cmdutil.UsageErrorf("--parallel only applies to --batch")
		}
	}
	if opts.Parallel < 1 || opts.Parallel > moneyop.MaxParallel {
		return cmdutil.UsageErrorf("invalid --parallel %d: use 1 to %d", opts.Parallel, moneyop.MaxParallel)
	}
	flags, err := f.GatewayFlags(cmd)
	if err != nil {
		return err
	}
	opts.StatusFlags = flags
	if runF != nil {
		return runF(cmd.Context(), opts)
	}
	return Run(cmd.Context(), opts)
}

// NewAttemptID returns a random attempt id (16 hex digits).
func NewAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run captures or cancels one pre-authorization, or a batch.
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
		GatewayFlags:    opts.StatusFlags,
	}
	op := operation{action: opts.Action, now: opts.Now}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, mo, op)
	}
	return moneyop.RunSingle(ctx, mo, op, &hold{input: input{Invoice: opts.Invoice, Amount: opts.Amount}})
}
