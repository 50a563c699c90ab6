// Package walletpay implements `paycli walletpay`: capture a wallet
// payment safely, one at a time or as a batch.
//
// The command is a thin adapter over internal/moneyop, the pipeline every
// money-moving command shares (checks before anything exists, summary and
// confirmation, dry run, journal intent and outcome, one send, exit codes,
// the batch runner): this package parses the flags and says what a wallet
// payment is — its input, checks, request, answer and result.
package walletpay

import (
	"context"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/spf13/cobra"
)

// DefaultParallel is how many batch payments run at once unless told.
const DefaultParallel = moneyop.DefaultParallel

// MaxParallel bounds --parallel: the gateway is one merchant's account.
const MaxParallel = moneyop.MaxParallel

// Options are the inputs of `paycli walletpay`: the pipeline's (its
// dependencies, --yes, --dry-run, --batch, --parallel, the JSON flags and
// the gateway flags a suggested `paycli status` line repeats) and a
// payment's flags.
type Options struct {
	moneyop.Options

	Invoice string
	// Token is the --token value as given: the token, @path or -.
	Token   string
	Name    string
	Surname string
	Email   string
}

// NewCmdWalletPay builds `paycli walletpay`.
func NewCmdWalletPay(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: moneyop.NewOptions(f)}
	cmd := &cobra.Command{
		Use:   "walletpay --invoice ID --token T --name N --surname S --email E",
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
Until that command has settled it, the invoice is not paid again (exit 2);
while another paycli command on the invoice is in flight, this one is
refused at once (exit 6).

--batch FILE (or - for stdin) pays one JSON object per line,
{"invoice","token","name","surname","email"}, --parallel at a time, and
prints one JSON result per line in input order. A batch can be run again:
invoices the journal shows as paid are skipped, and invoices whose last
outcome is unknown are reported, not retried.`,
		Example: `  paycli walletpay --invoice INV-1001 --token @token.jwt --name Ada --surname Lovelace --email ada@example.com
  wallet-button | paycli walletpay --invoice INV-1002 --token - --name Ada --surname Lovelace --email ada@example.com --yes -o json
  paycli walletpay --batch payments.jsonl --yes --parallel 8 > results.jsonl
  paycli walletpay --sandbox --invoice T-1 --token "$(paycli sandbox wallet-token --amount 150.00 --currency TRY)" \
    --name Ada --surname Lovelace --email ada@example.com --dry-run`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			single := []string{"invoice", "token", "name", "surname", "email"}
			if err := moneyop.CheckModeFlags(cmd, &opts.Options, moneyop.Modes{
				Noun:     "payment",
				Batched:  single,
				Required: single,
			}); err != nil {
				return err
			}
			return moneyop.Start(cmd, f, opts, runF, walletpayRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id, fresh for every order")
	fl.StringVar(&opts.Token, "token", "", "wallet transient token: the token, @FILE, or - for stdin")
	fl.StringVar(&opts.Name, "name", "", "payer's first name")
	fl.StringVar(&opts.Surname, "surname", "", "payer's last name")
	fl.StringVar(&opts.Email, "email", "", "payer's e-mail address")
	moneyop.AddBatchFlags(cmd, f, &opts.Options, moneyop.FlagText{
		Batch:    "pay each JSON line of FILE (- for stdin)",
		Parallel: "batch payments in flight at once",
	})
	cmdutil.NoteExit(cmd, cmdutil.KindDeclined, "payment declined; nothing was charged")
	cmdutil.NoteExit(cmd, cmdutil.KindDuplicate, "duplicate invoice (this call charged nothing), or another command on the invoice is in flight (nothing was sent)")
	_ = cmd.RegisterFlagCompletionFunc("token", cmdutil.CompleteValueOrAtFile)
	for _, name := range []string{"invoice", "name", "surname", "email"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// StatusCommand is the command line that tells what happened to invoice.
func StatusCommand(invoice string, flags []string) string {
	return cmdutil.StatusCommandLine(invoice, flags)
}

// walletpayRun pays one payment, or a batch.
func walletpayRun(ctx context.Context, opts *Options) error {
	var op moneyop.Operation[*payment, gateway.WalletPayRequest, *gateway.WalletPayResult] = operation{now: opts.Now}
	if opts.Batch != "" {
		return moneyop.RunBatch(ctx, &opts.Options, op)
	}
	token, err := readToken(ctx, opts)
	if err != nil {
		return err
	}
	return moneyop.RunSingle(ctx, &opts.Options, op, &payment{input: input{
		Invoice: opts.Invoice, Token: token, Name: opts.Name, Surname: opts.Surname, Email: opts.Email,
	}})
}

// readToken resolves --token: the token itself, @path, or - for stdin,
// bounded and interruptible (cmdutil.ReadValue).
func readToken(ctx context.Context, opts *Options) (string, error) {
	return cmdutil.ReadValue(ctx, opts.IO.In, "token", opts.Token, "token")
}
