// Package walletpay implements `paycli walletpay`: capture a wallet
// payment safely, one at a time or as a batch.
//
// Safety comes first: everything that can be checked is checked before a
// request exists (exit 2, nothing sent, nothing journaled); every attempt
// writes an intent line to the journal before its request leaves and an
// outcome line after, even when Ctrl-C or the time limit cut it off; and a
// walletPay is never retried — an unknown outcome is reported (exit 7) with
// the `paycli status` command that resolves it.
package walletpay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/cli/status"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// DefaultParallel is how many batch payments run at once unless told.
const DefaultParallel = 4

// MaxParallel bounds --parallel: the gateway is one merchant's account.
const MaxParallel = 32

// Options are the inputs of `paycli walletpay`.
type Options struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON           *cmdutil.JSONFlags
	Gateway        func() (*gateway.Client, error)
	CommandContext func(context.Context) (context.Context, context.CancelFunc, error)
	// JournalPath returns where the journal lives.
	JournalPath func() (string, error)
	Now         func() time.Time
	// NewAttemptID names a journal attempt; Random feeds hash_key ivs and
	// salts. Both are crypto/rand outside tests.
	NewAttemptID func() string
	Random       io.Reader

	Invoice string
	// Token is the --token value as given: the token, @path or -.
	Token   string
	Name    string
	Surname string
	Email   string
	Yes     bool
	DryRun  bool
	// Batch is the --batch file, or - for stdin.
	Batch    string
	Parallel int
	// StatusFlags are the global flags the suggested `paycli status` line
	// repeats so that it reaches the same gateway: --profile, --sandbox.
	StatusFlags []string
}

// NewCmdWalletPay builds `paycli walletpay`.
func NewCmdWalletPay(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:             f.IOStreams,
		Config:         f.Config,
		Format:         f.OutputFormat,
		Gateway:        f.Gateway,
		CommandContext: f.CommandContext,
		JournalPath:    func() (string, error) { return DefaultJournalPath(f.LookupEnv) },
		Now:            f.Now,
		NewAttemptID:   NewAttemptID,
		Random:         rand.Reader,
	}
	cmd := &cobra.Command{
		Use:   "walletpay --invoice ID --token TOKEN --name NAME --surname SURNAME --email EMAIL",
		Short: "Capture a wallet payment, safely",
		Long: `Capture a wallet payment with the transient token a wallet button produced.
walletPay authorizes and captures in one step: it moves money.

Before anything is sent, paycli decodes the token (amount, currency, card;
it never verifies the signature) and checks every input; any problem exits 2
with nothing sent. It then shows a summary on stderr and asks for
confirmation on a terminal; without a terminal --yes is required.

--token takes the token, @FILE to read it from a file, or - to read it from
stdin. The wallet type in the token is shown, never sent.

Every attempt is recorded in <state dir>/paycli/journal.jsonl (see
'paycli journal'). A payment is never retried: when its outcome is unknown
(status_code 69, or the connection failed after the request was sent) paycli
exits 7 and prints the 'paycli status' command that tells what happened.

--batch FILE (or - for stdin) pays one JSON object per line,
{"invoice","token","name","surname","email"}, --parallel at a time, and
prints one JSON result per line in input order. A batch can be run again:
invoices the journal shows as paid are skipped, and invoices whose last
outcome is unknown are reported, not retried.

Exit codes: 0 paid, 2 bad input (nothing sent), 5 declined, 6 duplicate
invoice (nothing charged), 7 outcome unknown; see 'paycli help exit-codes'.`,
		Example: `  paycli walletpay --invoice INV-1001 --token @token.jwt --name Ada --surname Lovelace --email ada@example.com
  wallet-button | paycli walletpay --invoice INV-1002 --token - --name Ada --surname Lovelace --email ada@example.com --yes -o json
  paycli walletpay --batch payments.jsonl --yes --parallel 8 > results.jsonl
  paycli walletpay --sandbox --invoice T-1 --token "$(paycli sandbox wallet-token --amount 150.00 --currency TRY)" \
    --name Ada --surname Lovelace --email ada@example.com --dry-run`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			single := []string{"invoice", "token", "name", "surname", "email"}
			if opts.Batch != "" {
				if cmd.Flags().Changed("jq") {
					return cmdutil.UsageErrorf("--jq filters a single payment's result; a batch prints JSON Lines already (pipe them to jq)")
				}
				for _, name := range append(single, "dry-run") {
					if cmd.Flags().Changed(name) {
						return cmdutil.UsageErrorf("--%s cannot be used with --batch: each line of the batch carries its own payment", name)
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
			if opts.Parallel < 1 || opts.Parallel > MaxParallel {
				return cmdutil.UsageErrorf("invalid --parallel %d: use 1 to %d", opts.Parallel, MaxParallel)
			}
			flags, err := status.GatewayFlags(cmd, f.LookupEnv)
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
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id, fresh for every order")
	fl.StringVar(&opts.Token, "token", "", "wallet transient token: the token, @FILE, or - for stdin")
	fl.StringVar(&opts.Name, "name", "", "payer's first name")
	fl.StringVar(&opts.Surname, "surname", "", "payer's last name")
	fl.StringVar(&opts.Email, "email", "", "payer's e-mail address")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation (required without a terminal, and with --batch)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the request, secrets redacted, and send nothing")
	fl.StringVar(&opts.Batch, "batch", "", "pay each JSON line of FILE (- for stdin)")
	fl.IntVar(&opts.Parallel, "parallel", DefaultParallel, "batch payments in flight at once")
	_ = cmd.RegisterFlagCompletionFunc("token", cmdutil.CompleteValueOrAtFile)
	_ = cmd.RegisterFlagCompletionFunc("batch", cmdutil.CompleteFile)
	for _, name := range []string{"invoice", "name", "surname", "email", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	return cmd
}

// DefaultJournalPath is <state dir>/paycli/journal.jsonl.
func DefaultJournalPath(lookupEnv func(string) (string, bool)) (string, error) {
	dir, err := config.StateDir(config.LoadOptions{LookupEnv: lookupEnv})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, journal.FileName), nil
}

// NewAttemptID returns a random attempt id (16 hex digits).
func NewAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// StatusCommand is the command line that tells what happened to invoice.
func StatusCommand(invoice string, flags []string) string { return status.CommandLine(invoice, flags) }

// Run pays one payment, or a batch.
func Run(ctx context.Context, opts *Options) error {
	if opts.Batch != "" {
		return runBatch(ctx, opts)
	}
	return runSingle(ctx, opts)
}

// readToken resolves --token: the token itself, @path, or - for stdin,
// bounded and interruptible (cmdutil.ReadValue).
func readToken(ctx context.Context, opts *Options) (string, error) {
	return cmdutil.ReadValue(ctx, opts.IO.In, "token", opts.Token, "token")
}

// newPayer builds what payments share: configuration, client, journal.
// Every failure here happens before anything is sent.
func newPayer(opts *Options) (*payer, error) {
	cfg, err := opts.Config()
	if err != nil {
		return nil, err
	}
	client, err := opts.Gateway()
	if err != nil {
		return nil, err
	}
	if cfg.MerchantKey == "" {
		return nil, cmdutil.UsageHint(fmt.Errorf("profile %q has no merchant_key", cfg.Profile),
			fmt.Sprintf("Run 'paycli config init', or set %s_MERCHANT_KEY.", config.EnvPrefix))
	}
	// Batch workers make hash keys in parallel; opts.Random need not be
	// safe for concurrent use (a test's reader is not).
	var randomMu sync.Mutex
	return &payer{
		cfg:    cfg,
		client: client,
		now:    opts.Now,
		newID:  opts.NewAttemptID,
		hashKey: func(plain string) (string, error) {
			randomMu.Lock()
			defer randomMu.Unlock()
			return hashkey.GenerateFrom(opts.Random, cfg.AppSecret, plain)
		},
	}, nil
}

// openJournal opens the journal for a payer.
func openJournal(opts *Options, p *payer) error {
	path, err := opts.JournalPath()
	if err == nil {
		p.journal, err = journal.Open(path)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errJournal, err)
	}
	return nil
}

func runSingle(ctx context.Context, opts *Options) error {
	token, err := readToken(ctx, opts)
	if err != nil {
		return err
	}
	in := input{Invoice: opts.Invoice, Token: token, Name: opts.Name, Surname: opts.Surname, Email: opts.Email}
	pm, err := check(in, opts.Now())
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return cmdutil.UsageErrorf("invalid --%s: %v", fe.field, fe.err)
		}
		return err
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	p, err := newPayer(opts)
	if err != nil {
		return err
	}
	writeSummary(opts.IO.ErrOut, pm, p)

	if opts.DryRun {
		req, err := p.request(pm)
		if err != nil {
			return err
		}
		dump, err := p.client.DryRunWalletPay(req)
		if err != nil {
			return err
		}
		fmt.Fprint(opts.IO.Out, dump.String())
		fmt.Fprintln(opts.IO.ErrOut, "Dry run: nothing was sent.")
		return nil
	}
	if !opts.Yes {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageHint(errors.New("refusing to charge without confirmation: no terminal to ask on; nothing was sent"),
				"Pass --yes to confirm the payment.")
		}
		ok, err := opts.IO.Confirm(ctx, fmt.Sprintf("Charge %s %s to %s?", pm.claims.Amount, pm.claims.Currency, pm.claims.Card.Display()))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.UsageHint(errors.New("payment not confirmed; nothing was sent"), "Run the command again and answer y, or pass --yes.")
		}
	}

	if err := openJournal(opts, p); err != nil {
		return err
	}
	defer p.journal.Close()
	ctx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	res, err := p.pay(ctx, pm)
	if err != nil {
		return err
	}
	if res.journalErr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the outcome (%s) could not be written to the journal: %v\n", res.class, res.journalErr)
	}
	if res.class == journal.Succeeded {
		return writeResult(ctx, opts, format, res.data)
	}
	return explainFailure(pm.Invoice, res, opts.StatusFlags)
}

// writeSummary shows, on stderr, what is about to be charged and where.
func writeSummary(w io.Writer, pm *payment, p *payer) {
	rows := [][2]string{
		{"Amount", pm.claims.Amount + " " + pm.claims.Currency},
		{"Card", pm.claims.Card.Display()},
	}
	if pm.claims.Wallet != "" {
		rows = append(rows, [2]string{"Wallet", pm.claims.Wallet})
	}
	rows = append(rows,
		[2]string{"Invoice", pm.Invoice},
		[2]string{"Payer", pm.Name + " " + pm.Surname},
		[2]string{"Profile", p.cfg.Profile},
		[2]string{"Gateway", p.client.BaseURL()},
	)
	fmt.Fprintln(w, "Wallet payment")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-8s %s\n", r[0]+":", r[1])
	}
}

// explainFailure turns an attempt that did not succeed into the error the
// user sees: what happened, and what to run next.
func explainFailure(invoice string, res attemptResult, flags []string) error {
	status := StatusCommand(invoice, flags)
	switch res.class {
	case journal.Duplicate:
		return cmdutil.WithKind(cmdutil.KindDuplicate,
			fmt.Errorf("invoice %s was already processed or is in flight; this call charged nothing", invoice),
			"See what happened to it: "+status)
	case journal.Declined:
		return cmdutil.WithKind(cmdutil.KindDeclined, fmt.Errorf("payment declined: %s", declineText(res.err)), "")
	case journal.Unknown:
		why := "the request was sent but no complete answer arrived"
		if errors.Is(res.err, gateway.ErrPending) {
			why = "the gateway has not finished processing it (status_code 69)"
		} else if errors.Is(res.err, context.Canceled) {
			why = "interrupted after the request was sent"
		} else if errors.Is(res.err, context.DeadlineExceeded) {
			why = "the time limit ran out after the request was sent"
		}
		return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
			fmt.Errorf("outcome unknown for invoice %s: %s; it was not retried", invoice, why),
			"Find out what happened with: "+status)
	}
	return res.err
}

// declineText is the gateway's code, text and payment_reason_code.
func declineText(err error) string {
	var apiErr *gateway.APIError
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	s := fmt.Sprintf("status_code %d", apiErr.StatusCode)
	if apiErr.Description != "" {
		s += fmt.Sprintf(" %q", apiErr.Description)
	}
	if apiErr.PaymentReasonCode != "" {
		s += ", payment_reason_code " + apiErr.PaymentReasonCode
		if apiErr.PaymentReasonCodeDetail != "" {
			s += fmt.Sprintf(" (%s)", apiErr.PaymentReasonCodeDetail)
		}
	}
	return s
}
