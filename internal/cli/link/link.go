// Package link implements `paycli link create`: a payment link for an
// invoice (POST /purchase/link), the page a customer pays through on their
// own device, so that a desk never types a card.
//
// The command is an adapter over internal/moneyop: a link moves no money
// itself, but it takes its invoice (the customer pays that invoice through
// it), so it shares the pipeline's checks, confirmation, dry run, journal
// (kind link: who sent which link to whom) and the invoice's one rule.
package link

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/moneyop"
)

// Options are the inputs of `paycli link create`: the pipeline's and a
// link's flags.
type Options struct {
	moneyop.Options

	Invoice string
	Amount  string
	// Currency is resolved from --currency or the profile's
	// default_currency before the run.
	Currency        string
	Items           []string
	Description     string
	Name, Surname   string
	Email, Phone    string
	MaxInstallments int
	ReturnURL       string
	CancelURL       string
}

// NewCmdLink builds the `paycli link` group.
func NewCmdLink(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "link",
		Short: "Make a payment link a customer pays through",
		Long: `A payment link is a page of the gateway's where a customer pays an invoice
with their own card, on their own device: a desk sends the link (or shows its
QR code) instead of ever typing a card. The gateway offers making a link
(/purchase/link); it documents no call to list or cancel links (docs/links.md).`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(NewCmdCreate(f, nil))
	return cmd
}

// NewCmdCreate builds `paycli link create`.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: moneyop.NewOptions(f)}
	// One link at a time: there is no batch.
	opts.Parallel = 1
	cmd := &cobra.Command{
		Use:   "create {INVOICE | --invoice ID} --amount AMOUNT",
		Short: "Make a payment link for an invoice, safely",
		Long: `Make a payment link for an invoice: the gateway answers a page where the
customer pays --amount (in --currency, or the profile's default_currency) with
their card, in up to --max-installments installments. The invoice may be given
as the argument instead of --invoice.

The link lists --item NAME:PRICE[:QUANTITY] lines (repeat the flag), whose
prices times quantities must add up to --amount; without --item it has one
line, the invoice's description, for the whole amount. --name and --surname
are the customer's; --email and --phone (10 to 15 digits with the country
code: +90 555 555 55 55) are sent when given, and refused first when the
gateway would refuse them (exit 2, the field named). --return-url is where the
customer's browser goes after paying, --cancel-url (default: --return-url)
after giving up. The gateway takes no expiry and no language for a link.

Before anything is sent, paycli checks every input (exit 2 with nothing sent),
shows a summary on stderr and asks for confirmation on a terminal; without a
terminal --yes is required. --dry-run prints the request, secrets redacted.

The link is printed on stdout, alone, for a pipeline; on a terminal a QR code
of it follows, for a customer to scan from a shared screen, and the command
that follows it up. -o json prints the answer's fields. No money moves until the customer pays; 'paycli status
INVOICE' then shows whether the link was paid (transaction_status Completed,
link_status used).

Every link is recorded in the journal (kind link, see 'paycli journal'): who
sent which link, for which invoice and amount, to which customer (the e-mail
and phone are never written). A link takes its invoice: while an attempt of
any kind on the invoice is unsettled no link is made (exit 2), and once a link
is made the gateway refuses the invoice to another link or payment (exit 6).
The call is never retried: when its outcome is unknown paycli exits 7 and
prints the 'paycli status' command that tells whether the link was made.`,
		Example: `  paycli link create INV-1001 --amount 150.00 --currency TRY --name Ayşe --surname Yılmaz \
      --email ayse@example.com --return-url https://shop.example/thanks
  paycli link create INV-1002 --amount 250 --item "Lamp:100:2" --item "Bulb:50" \
      --name Ali --surname Kaya --phone "+90 555 555 55 55" --return-url https://shop.example/thanks --yes
  paycli link create INV-1003 --amount 90 --name Ali --surname Kaya --return-url https://shop.example/ --yes -o json`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := moneyop.CheckModeFlags(cmd, &opts.Options, moneyop.Modes{Noun: "link", Single: func() error {
				return cmdutil.RequireFlags(cmd, "", "invoice", "amount", "name", "surname", "return-url")
			}}); err != nil {
				return err
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			cur, err := cmdutil.ResolveCurrency(cfg)
			if err != nil {
				return err
			}
			opts.Currency = cur.Code
			return moneyop.Start(cmd, f, opts, runF, createRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Invoice, "invoice", "", "invoice id the customer pays through the link")
	fl.StringVar(&opts.Amount, "amount", "", "amount the customer pays, in the currency's decimals")
	fl.String("currency", "", "ISO 4217 currency code, e.g. TRY (default: the profile's default_currency)")
	_ = cmd.RegisterFlagCompletionFunc("currency", cmdutil.CompleteCurrency)
	fl.StringArrayVar(&opts.Items, "item", nil, "a line of the invoice, NAME:PRICE or NAME:PRICE:QUANTITY (repeat the flag)")
	fl.StringVar(&opts.Description, "description", "", "the invoice's description, shown on the link's page (at most 255 characters)")
	fl.StringVar(&opts.Name, "name", "", "the customer's first name")
	fl.StringVar(&opts.Surname, "surname", "", "the customer's last name")
	fl.StringVar(&opts.Email, "email", "", "the customer's e-mail (bill_email), never written to the journal")
	fl.StringVar(&opts.Phone, "phone", "", "the customer's phone with its country code (bill_phone), never written to the journal")
	fl.IntVar(&opts.MaxInstallments, "max-installments", 1, "most installments the customer may choose (1 to 12)")
	fl.StringVar(&opts.ReturnURL, "return-url", "", "http or https URL the customer's browser goes to after paying")
	fl.StringVar(&opts.CancelURL, "cancel-url", "", "http or https URL the customer's browser goes to after giving up (default: --return-url)")
	for _, name := range []string{"invoice", "amount", "item", "description", "name", "surname", "email", "phone", "max-installments", "return-url", "cancel-url"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	moneyop.AddFlags(cmd, f, &opts.Options, moneyop.FlagText{
		Yes: "do not ask for confirmation (required without a terminal)",
	})
	// A link is never declined: nothing is charged when it is made.
	cmdutil.SetExits(cmd, cmdutil.Exits{MovesMoney: true, Kinds: slices.DeleteFunc(slices.Clone(cmdutil.ExitsMoney),
		func(k cmdutil.Kind) bool { return k == cmdutil.KindDeclined })})
	cmdutil.NoteExit(cmd, cmdutil.KindRejected, "refused by the gateway (its status_code and words are shown); nothing was made")
	cmdutil.NoteExit(cmd, cmdutil.KindDuplicate, "the gateway already has the invoice (status_code 3: a link or a payment took it; nothing was made), or another command on the invoice is in flight (nothing was sent)")
	cmdutil.NoteExit(cmd, cmdutil.KindOutcomeUnknown, "the link may or may not have been made: 'paycli status INVOICE' tells")
	return cmd
}

// createRun makes one payment link.
func createRun(ctx context.Context, opts *Options) error {
	op := operation{terminal: opts.IO.IsStdoutTTY(), width: opts.IO.TerminalWidth(), gatewayFlags: opts.GatewayFlags}
	return moneyop.RunSingle(ctx, &opts.Options, op, &request{input: input{
		Invoice: opts.Invoice, Amount: opts.Amount, Currency: opts.Currency, Items: opts.Items,
		Description: opts.Description, Name: opts.Name, Surname: opts.Surname, Email: opts.Email, Phone: opts.Phone,
		MaxInstallments: opts.MaxInstallments, ReturnURL: opts.ReturnURL, CancelURL: strings.TrimSpace(opts.CancelURL),
	}})
}
