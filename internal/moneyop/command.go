package moneyop

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/redact"
)

// NewOptions fills the pipeline's dependencies from the Factory: what
// every money-moving command takes from it, and random attempt ids. The command embeds the result in its own options
// and registers its flags on it (AddFlags, AddBatchFlags).
func NewOptions(f *cmdutil.Factory) Options {
	return Options{
		Deps:            cmdutil.DepsOf(f),
		JournalPath:     f.JournalPath,
		Journal:         f.Journal,
		GatewayIdentity: f.GatewayIdentity,
		NewAttemptID:    NewAttemptID,
		Kinds:           f.Kinds(),
	}
}

// NewAttemptID returns a random journal attempt id (16 hex digits).
func NewAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewRefundID returns a fresh refund_transaction_id: RF and 24 random hex
// digits. One whose hex holds 13 decimal digits in a row is drawn again:
// such a run can pass the Luhn check, and paycli masks what looks like a
// card number wherever it shows text (a dry run's body), which would hide
// the id.
func NewRefundID() string {
	for {
		var b [12]byte
		_, _ = rand.Read(b[:])
		if ref := "RF" + hex.EncodeToString(b[:]); redact.Cards(ref) == ref {
			return ref
		}
	}
}

// FlagText is what a command's help says of the flags AddFlags and
// AddBatchFlags register; empty fields take the common wording.
type FlagText struct {
	Yes    string
	DryRun string
	// Batch and Parallel name what the batch does ("pay each JSON line of
	// FILE (- for stdin)", "batch payments in flight at once").
	Batch    string
	Parallel string
}

// AddFlags registers --yes, --dry-run and the JSON output flags (-o json,
// --jq) on opts.
func AddFlags(cmd *cobra.Command, f *cmdutil.Factory, opts *Options, text FlagText) {
	yes := text.Yes
	if yes == "" {
		yes = "do not ask for confirmation (required without a terminal, and with --batch)"
	}
	dryRun := text.DryRun
	if dryRun == "" {
		dryRun = "print the request, secrets redacted, and send nothing"
	}
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsMoney, MovesMoney: true, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:     "bad input or configuration, or an attempt on the invoice whose outcome is unknown (resolve it first); nothing was sent",
		cmdutil.KindDuplicate: "already done (this call charged nothing), or another command on the invoice is in flight (nothing was sent)",
	}})
	fl := cmd.Flags()
	fl.BoolVarP(&opts.Yes, "yes", "y", false, yes)
	fl.BoolVar(&opts.DryRun, "dry-run", false, dryRun)
	opts.AddJSONFlags(cmd)
}

// AddBatchFlags registers AddFlags' flags and --batch FILE and --parallel N.
func AddBatchFlags(cmd *cobra.Command, f *cmdutil.Factory, opts *Options, text FlagText) {
	AddFlags(cmd, f, opts, text)
	fl := cmd.Flags()
	fl.StringVar(&opts.Batch, "batch", "", text.Batch)
	fl.IntVar(&opts.Parallel, "parallel", DefaultParallel, text.Parallel)
	_ = cmd.RegisterFlagCompletionFunc("batch", cmdutil.CompleteFile)
	_ = cmd.RegisterFlagCompletionFunc("parallel", cobra.NoFileCompletions)
}

// Modes says how a command's flags split between one operation and a
// batch, for CheckModeFlags.
type Modes struct {
	// Noun names one operation in the messages ("payment": "a single
	// payment's result", "carries its own payment"); empty says neither.
	Noun string
	// Batched are the flags a batch line carries: --batch refuses them.
	Batched []string
	// Required are the flags one operation cannot go without.
	Required []string
	// Single, when set, checks one operation's flags instead of Required
	// (refund's --retry and --amount|--full).
	Single func() error
}

// CheckModeFlags refuses the flag combinations of a money-moving command
// that cannot be meant (exit 2, before anything exists): flags of one
// operation with --batch, --dry-run or --jq with --batch, a batch without
// --yes, one operation missing a flag, --parallel without --batch or out
// of range.
func CheckModeFlags(cmd *cobra.Command, opts *Options, m Modes) error {
	changed := cmd.Flags().Changed
	if opts.Batch != "" {
		if changed("jq") {
			result := "a single result"
			if m.Noun != "" {
				result = "a single " + m.Noun + "'s result"
			}
			return cmdutil.UsageErrorf("--jq filters %s; a batch prints JSON Lines already (pipe them to jq)", result)
		}
		own := "its own"
		if m.Noun != "" {
			own += " " + m.Noun
		}
		for _, name := range append(m.Batched, "dry-run") {
			if changed(name) {
				return cmdutil.UsageErrorf("--%s cannot be used with --batch: each line of the batch carries %s", name, own)
			}
		}
		if !opts.Yes {
			return cmdutil.UsageHint(errors.New("--batch needs --yes: a batch never asks for confirmation, and moves money"),
				"Check the file first, then run again with --yes.")
		}
	} else {
		if m.Single != nil {
			if err := m.Single(); err != nil {
				return err
			}
		} else {
			if err := cmdutil.RequireFlags(cmd, " (or use --batch FILE)", m.Required...); err != nil {
				return err
			}
		}
		if changed("parallel") {
			return cmdutil.UsageErrorf("--parallel only applies to --batch")
		}
	}
	if opts.Parallel < 1 || opts.Parallel > MaxParallel {
		return cmdutil.UsageErrorf("invalid --parallel %d: use 1 to %d", opts.Parallel, MaxParallel)
	}
	return nil
}

// Start ends a command's RunE once its flags are checked: it records the
// gateway flags a suggested command repeats (--profile, --sandbox) in the
// pipeline's options opts embeds, then calls runF when a test gave one,
// run otherwise.
func Start[O interface{ options() *Options }](cmd *cobra.Command, f *cmdutil.Factory, opts O, runF, run func(context.Context, O) error) error {
	flags, err := f.GatewayFlags(cmd)
	if err != nil {
		return err
	}
	opts.options().GatewayFlags = flags
	return cmdutil.Run(cmd, opts, runF, run)
}
