// Package completecmd implements `paycli complete`: complete, or cancel, a
// 3D payment that waits for the merchant (payment_completed_by merchant;
// /payment/complete), one at a time or as a batch.
//
// The command is an adapter over internal/moneyop, the pipeline every
// money-moving command shares; this package says what a completion is:
// its input, the check status that must show a sale waiting for it, the
// request and the answer.
package completecmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

// Options are the inputs of `paycli complete`.
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
	NewAttemptID    func() string
	Random          io.Reader

	Invoice string
	OrderID string
	// Cancel cancels the sale instead of completing it.
	Cancel   bool
	Yes      bool
	DryRun   bool
	Batch    string
	Parallel int
	// StatusFlags are the global flags (--profile, --sandbox) a suggested
	// command repeats to reach the same gateway.
	StatusFlags []string
}

// NewCmdComplete builds `paycli complete`.
func NewCmdComplete(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
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
	}
	cmd := &cobra.Command{
		Use:   "complete --invoice ID --order-id ORDER [--cancel]",
		Short: "Complete (or cancel) a 3D payment that waits for the merchant",
		Long: `Complete a 3D payment made with payment_completed_by "merchant": after the
buyer passed the 3D challenge, the sale waits until the merchant completes
it (the money is taken) or cancels it (--cancel: nothing is taken). Both
are /payment/complete calls and move money: they run through the same
checks, confirmation, journal and exit codes as 'paycli walletpay'.

Before anything is sent, paycli looks the invoice up (check status): an
unknown invoice, an order id that is not the invoice's, a sale already
completed, cancelled or failed, one completed by the gateway itself, and one
whose buyer has not answered the 3D challenge yet exit 4 with nothing sent.
When check status cannot tell whether the sale waits for the merchant, the
summary says so and the gateway decides.

Every attempt is recorded in the journal (kind complete, or complete-cancel).
A completion is never retried: when its outcome is unknown paycli exits 7 and
prints the 'paycli status' command that tells what happened.

--batch FILE (or - for stdin) completes (or, with --cancel, cancels) one
JSON object per line, {"invoice","order_id"}, --parallel at a time.

Exit codes: 0 done, 2 bad input (nothing sent), 4 not waiting for the
merchant (check status shows it already completed or cancelled; nothing
sent) or refused, 5 declined, 6 the gateway answered that it was already
completed or cancelled (status_code 117, two calls racing; nothing charged),
7 outcome unknown; see 'paycli help exit-codes'.`,
		Example: `  paycli complete --invoice INV-1001 --order-id VP17395123456789012
  paycli complete --invoice INV-1001 --order-id VP17395123456789012 --cancel --yes
  paycli complete --batch completions.jsonl --yes > results.jsonl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			single := []string{"invoice", "order-id"}
			if opts.Batch != "" {
				if cmd.Flags().Changed("jq") {
					return cmdutil.UsageErrorf("--jq filters a single result; a batch prints JSON Lines already (pipe them to jq)")
				}
				for _, name := range append(single, "dry-run") {
					if cmd.Flags().Changed(name) {
						return cmdutil.UsageErrorf("--%s cannot be used with --batch: each line of the batch carries its own", name)
					}
				}
				if !opts.Yes {
					return cmdutil.UsageHint(errors.New("--batch needs --yes: a batch never asks for confirmation, and moves money"),
						"Check the file first, then run again with --yes.")
				}
			} else {
				var missing []string
				for _, name := range single {
					if !cmd.Flags().Changed(name) {
						missing = append(missing, "--"+name)
					}
				}
				if len(missing) > 0 {
					return cmdutil.UsageErrorf("missing %s (or use --batch FILE)", strings.Join(missing, ", "))
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
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id of the 3D payment")
	fl.StringVar(&opts.OrderID, "order-id", "", "the payment's order id, as its 3D result named it")
	fl.BoolVar(&opts.Cancel, "cancel", false, "cancel the payment instead of completing it (nothing is taken)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation (required without a terminal, and with --batch)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the request, secrets redacted, and send nothing")
	fl.StringVar(&opts.Batch, "batch", "", "complete each JSON line of FILE (- for stdin)")
	fl.IntVar(&opts.Parallel, "parallel", moneyop.DefaultParallel, "batch lines in flight at once")
	_ = cmd.RegisterFlagCompletionFunc("batch", cmdutil.CompleteFile)
	for _, name := range []string{"invoice", "order-id", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	return cmd
}

// NewAttemptID returns a random attempt id (16 hex digits).
func NewAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run completes or cancels one payment, or a batch.
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
	op := operation{cancel: opts.Cancel}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, mo, op)
	}
	return moneyop.RunSingle(ctx, mo, op, &sale{input: input{Invoice: opts.Invoice, OrderID: opts.OrderID}})
}
