// Package app builds paycli: the factory, the command tree, and the one
// function that turns errors into exit codes.
package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/redact"
	"github.com/spf13/cobra"
)

// Exit codes; `paycli help exit-codes` documents them and docs/exit-codes.md
// repeats them. They are part of paycli's interface: never renumber.
const (
	ExitOK             = 0
	ExitError          = 1
	ExitUsage          = 2
	ExitAuth           = 3
	ExitRejected       = 4
	ExitDeclined       = 5
	ExitDuplicate      = 6
	ExitOutcomeUnknown = 7
	ExitUnavailable    = 8
	ExitInterrupted    = 130
	// ExitJournalRefused: the shared journal refused the login or the role.
	ExitJournalRefused = 9
	// ExitCancelled: the person answered no at a money command's
	// confirmation; nothing was sent. Not an error, and not a success.
	ExitCancelled = 10
	// ExitLedgerDiffers: `paycli audit` found a difference between the
	// gateway's ledger and the journal that a person must look at.
	ExitLedgerDiffers = 11
)

// Main runs paycli with the process's arguments, streams and environment
// and returns the exit code. Ctrl-C, SIGTERM or SIGHUP (a closed terminal)
// cancel the command's context; a second one ends the process at once. A
// run with nothing to finish (interruptible) is simply ended by them, as
// by a closed stdout (SIGPIPE): the exit status a shell sees is the same,
// 130 or 141.
func Main() int {
	args := os.Args[1:]
	named, ok := namedCommand(args)
	ctx := context.Background()
	if interruptible(named, ok) {
		var stop context.CancelFunc
		ctx, stop = notifySignals()
		defer stop()
	}
	return runNamed(ctx, args, iostreams.System(), os.LookupEnv, named, ok)
}

// interruptible says whether a run of the command a command line names
// (namedCommand) has something to finish when interrupted, and so needs
// the signals handled: every command but the instant ones. A command line
// that names none (help, shell completion, an unknown command) only reads
// and writes text. Handling signals starts a thread, a good part of
// `paycli version`'s start-up (docs/performance.md, Start-up).
func interruptible(named topLevel, ok bool) bool { return ok && !named.instant }

// interruptSignals end a command the way Ctrl-C does: a payment in flight
// records its outcome (unknown: exit 7) before paycli exits.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// notifySignals returns a context cancelled by the first interrupt signal,
// after which default handling is restored (a second one kills). It also
// takes SIGPIPE: by default a write to a closed stdout or stderr pipe kills
// a Go program on the spot, which would cut a payment off between its
// answer and its journal line. With SIGPIPE caught the write fails with
// EPIPE instead, and the command decides what that means (Run exits 141,
// as the signal would have, when nothing more important happened).
func notifySignals() (context.Context, context.CancelFunc) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	go func() {
		<-ctx.Done()
		stop() // restore default handling: a second Ctrl-C kills
	}()
	return ctx, stop
}

// exitBrokenPipe is the status a shell reports for a process SIGPIPE
// killed; paycli keeps it for a command whose output was cut off.
const exitBrokenPipe = 128 + 13

// Run executes one paycli command line and returns its exit code. Errors are
// printed here, once, as one or two lines on stderr.
func Run(ctx context.Context, args []string, ios *iostreams.IOStreams, lookupEnv func(string) (string, bool)) int {
	named, ok := namedCommand(args)
	return runNamed(ctx, args, ios, lookupEnv, named, ok)
}

// runNamed is Run once the command args name is known (namedCommand).
func runNamed(ctx context.Context, args []string, ios *iostreams.IOStreams, lookupEnv func(string) (string, bool), named topLevel, ok bool) int {
	f := NewFactory(ios, lookupEnv)
	defer f.Close() // stops what the command's dependencies started (the in-process sandbox)
	root, started := newRootFor(f, named, ok)
	return execute(ctx, f, root, started, args, ios)
}

// RunTool runs a developer tool's command (cmd/paycli-soak,
// cmd/paycli-bench) as Run runs paycli: on the one factory, its command
// bound before it runs, its errors printed once and turned into exit
// codes here.
func RunTool(ctx context.Context, args []string, ios *iostreams.IOStreams, lookupEnv func(string) (string, bool), newCmd func(*cmdutil.Factory) *cobra.Command) int {
	f := NewFactory(ios, lookupEnv)
	defer f.Close()
	root := newCmd(f)
	started := new(bool)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := missingRequiredFlags(cmd); err != nil {
			return err
		}
		*started = true
		f.BindCommand(cmd)
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &cmdutil.Error{Kind: cmdutil.KindUsage, Err: err}
	})
	return execute(ctx, f, root, started, args, ios)
}

// RunToolMain runs a developer tool's command (RunTool) with the
// process's arguments, streams and environment, Ctrl-C or SIGTERM
// cancelling its context, and returns the exit code: a tool's whole main.
func RunToolMain(newCmd func(*cmdutil.Factory) *cobra.Command) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunTool(ctx, os.Args[1:], iostreams.System(), os.LookupEnv, newCmd)
}

// execute runs root with args and returns the exit code of what happened;
// started says whether the command's own code began to run.
func execute(ctx context.Context, f *cmdutil.Factory, root *cobra.Command, started *bool, args []string, ios *iostreams.IOStreams) int {
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)

	cmd, err := root.ExecuteContextC(ctx)
	code := exitOf(ctx, f, cmd, *started, err, ios)
	checkListedExit(cmd, *started, code)
	return code
}

// exitOf says what went wrong, if anything, and returns the exit code of
// what happened.
func exitOf(ctx context.Context, f *cmdutil.Factory, cmd *cobra.Command, started bool, err error, ios *iostreams.IOStreams) int {
	if err == nil {
		return ExitOK
	}
	if !started {
		// Cobra failed before the command ran: unknown command or flag, a
		// bad flag value, a missing argument or required flag.
		err = usageFromCobra(err)
	}
	if errors.Is(err, syscall.EPIPE) {
		// The reader of stdout went away (`paycli … | head -1`): nothing to
		// say, and nobody to say it to. Money-moving commands never get
		// here after an outcome: they keep the outcome's exit code.
		return exitBrokenPipe
	}
	code := ExitCode(err)
	if started && (code == ExitAuth || code == ExitRejected || code == ExitUnavailable || errors.Is(err, gateway.ErrNoMerchantKey)) {
		// Refused credentials, a base URL that is not the gateway's API
		// and a profile without the merchant_key a call is signed with
		// read the same whichever command met them.
		if cfg, cfgErr := f.Config(); cfgErr == nil {
			err = cmdutil.ExplainGatewayError(err, cfg)
			code = ExitCode(err)
		}
	}
	// A command that knows what an interruption meant (a payment whose
	// outcome is now unknown) says so; anything else is plainly interrupted.
	if ctx.Err() != nil && (code == ExitError || code == ExitInterrupted) {
		fmt.Fprintln(ios.ErrOut, "interrupted")
		return ExitInterrupted
	}
	if cmdutil.IsSilent(err) {
		return code
	}
	msg, hint := describe(err, code)
	if hint == "" && code == ExitUsage && cmd != nil {
		hint = fmt.Sprintf("Run '%s --help' for usage.", cmd.CommandPath())
	}
	if hint == "" && code == ExitUnavailable {
		// Exit 8 is only for calls that were safe (nothing was charged),
		// so one piece of advice fits every command.
		cfg, _ := f.Config()
		hint = cmdutil.UnavailableHint(err, cfg)
	}
	fmt.Fprintln(ios.ErrOut, ios.WrapForStderr("error: "+msg))
	if hint != "" {
		fmt.Fprintln(ios.ErrOut, ios.WrapForStderr(hint))
	}
	return code
}

// usageFromCobra turns cobra's own errors into usage errors, keeping only
// the first line (cobra appends suggestions on further lines). Like every
// usage error, the line is shown with card numbers masked (describe).
func usageFromCobra(err error) error {
	if _, ok := cmdutil.KindOf(err); ok {
		return err
	}
	msg := err.Error()
	first, rest, _ := strings.Cut(msg, "\n")
	var hint string
	if _, sugg, ok := strings.Cut(rest, "Did you mean this?\n"); ok {
		if s := strings.TrimSpace(strings.SplitN(sugg, "\n", 2)[0]); s != "" {
			hint = fmt.Sprintf("Did you mean '%s'? Run 'paycli --help' for the list of commands.", s)
		}
	}
	return &cmdutil.Error{Kind: cmdutil.KindUsage, Err: errors.New(first), Hint: hint}
}

// maxErrorLine bounds the error line: an error that quotes a huge value
// (a pasted file as base_url) stays readable.
const maxErrorLine = 500

// describe returns the first line and the advice for an error. Whatever
// the error quotes, a URL's user name and password never reach the
// terminal: they are masked before the line is cut, so that a cut cannot
// split a URL and leave its password unrecognised.
//
// Card numbers are looked for only in usage errors (code 2), which echo
// what was typed and nothing the gateway said: a card number typed in the
// wrong place (as an argument, a currency, an amount) is masked there.
// Other lines hold the gateway's references (an order number can pass the
// Luhn check by chance), which must stay whole: an invoice id is masked
// where a message puts it in (redact.Invoice), and the gateway's words
// come masked from the gateway client. The advice is paycli's own, often a
// command to paste, which must stay exact: its builders keep such an
// invoice id out of it (cmdutil.InvoiceCommandLine).
func describe(err error, code int) (msg, hint string) {
	msg = err.Error()
	if first, _, ok := strings.Cut(msg, "\n"); ok {
		msg = first
	}
	msg = redact.URL(msg)
	if code == ExitUsage {
		msg = redact.Cards(msg)
	}
	if r := []rune(msg); len(r) > maxErrorLine {
		msg = fmt.Sprintf("%s… (%d more characters)", string(r[:maxErrorLine]), len(r)-maxErrorLine)
	}
	return msg, redact.URL(cmdutil.HintOf(err))
}
