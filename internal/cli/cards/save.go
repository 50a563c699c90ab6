package cards

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/contact"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/redact"
)

// SaveOptions are the inputs of `paycli cards save`.
type SaveOptions struct {
	cmdutil.Deps

	CustomerNumber string
	Holder         string
	ExpiryText     string
	Expiry         Expiry
	CustomerName   string
	CustomerEmail  string
	CustomerPhone  string
	DryRun         bool
}

// NewCmdSave builds `paycli cards save`.
func NewCmdSave(f *cmdutil.Factory, runF func(context.Context, *SaveOptions) error) *cobra.Command {
	opts := &SaveOptions{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "save --customer-number N --holder NAME --expiry MM/YY",
		Short: "Save a card for a customer, in the sandbox (for a merchant's developer)",
		Long: `Save a card for a customer number (saveCard), as a merchant's site does when
a buyer ticks "remember my card": for a developer who needs saved cards in
the sandbox. It runs only against the sandbox (--sandbox): a desk never
types a customer's card (that is a payment link's job), and the live
gateway's saved cards are the merchant's site's to make.

The card number is read from stdin (one line) or, on a terminal, asked for
with echo off: never from a flag, which the shell's history would keep. It
is sent to the gateway and written nowhere: not in the journal, the logs, or
the output, which show it masked (first 6 and last 4 digits).

--expiry takes MM/YYYY or MM/YY. The answer's card_token is what 'cards
delete' and payments by saved card take.`,
		Example: `  paycli --sandbox cards save --customer-number 5070 --holder "Ada Lovelace" \
    --expiry 12/2030
  printf '%s\n' "$CARD" | paycli --sandbox cards save --customer-number 5070 \
    --holder "Ada Lovelace" --expiry 12/30 -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.RequireFlags(cmd, "", "customer-number", "holder", "expiry"); err != nil {
				return err
			}
			if err := checkCustomerNumber(opts.CustomerNumber); err != nil {
				return err
			}
			var err error
			if opts.Holder, err = checkHolder(opts.Holder); err != nil {
				return cmdutil.UsageErrorf("invalid --holder: %v", err)
			}
			if opts.Expiry, err = ParseExpiry(opts.ExpiryText, opts.Now()); err != nil {
				return cmdutil.UsageErrorf("invalid --expiry: %v", err)
			}
			for _, fl := range []struct {
				name string
				v    *string
			}{{"customer-name", &opts.CustomerName}, {"customer-email", &opts.CustomerEmail}, {"customer-phone", &opts.CustomerPhone}} {
				if cmd.Flags().Changed(fl.name) {
					if *fl.v, err = checkHolder(*fl.v); err != nil {
						return cmdutil.UsageErrorf("invalid --%s: %v", fl.name, err)
					}
				}
			}
			// An e-mail or phone the gateway would refuse is refused here
			// first, by the one reading walletpay and link use.
			if opts.CustomerEmail != "" {
				if err := contact.Email(opts.CustomerEmail); err != nil {
					return cmdutil.UsageErrorf("invalid --customer-email: %v", err)
				}
			}
			if opts.CustomerPhone != "" {
				if opts.CustomerPhone, err = contact.Phone(opts.CustomerPhone); err != nil {
					return cmdutil.UsageErrorf("invalid --customer-phone: %v", err)
				}
			}
			sandbox := false
			if f.SandboxMode != nil {
				if sandbox, err = f.SandboxMode(cmd); err != nil {
					return err
				}
			}
			if !sandbox {
				return cmdutil.UsageHint(errors.New("cards save runs only against the sandbox; nothing was read or sent"),
					"Add --sandbox. A customer's card is saved by the merchant's site, never typed at a desk: send a payment link.")
			}
			return cmdutil.Run(cmd, opts, runF, saveRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.CustomerNumber, "customer-number", "", "the customer number to save the card for")
	fl.StringVar(&opts.Holder, "holder", "", "the card holder's name, as on the card")
	fl.StringVar(&opts.ExpiryText, "expiry", "", "the card's expiry, MM/YYYY or MM/YY")
	fl.StringVar(&opts.CustomerName, "customer-name", "", "the customer's name, kept with the card")
	fl.StringVar(&opts.CustomerEmail, "customer-email", "", "the customer's e-mail, kept with the card")
	fl.StringVar(&opts.CustomerPhone, "customer-phone", "", "the customer's phone, kept with the card")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the saveCard request, secrets and the card number redacted, and send nothing")
	opts.AddJSONFlags(cmd)
	for _, name := range []string{"customer-number", "holder", "expiry", "customer-name", "customer-email", "customer-phone"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(slices.Clone(cmdutil.ExitsGateway), cmdutil.KindOutcomeUnknown), Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:          "bad input (the card number is not one), or not against the sandbox; nothing was sent",
		cmdutil.KindRejected:       "the gateway refused to save the card",
		cmdutil.KindOutcomeUnknown: "sent, but no answer came: the card may be saved; see 'paycli cards list' before saving it again",
	}})
	return cmd
}

// ParseCardNumber reads a card number as a person types it (blanks or
// dashes between groups allowed): 12 to 19 digits that pass the Luhn
// check. Its errors never quote the input.
func ParseCardNumber(s string) (string, error) {
	digits, ok := cardno.Digits(s)
	switch {
	case !ok:
		return "", errors.New("not a card number: only digits, with blanks or dashes between groups")
	case len(digits) < 12 || len(digits) > 19:
		return "", fmt.Errorf("not a card number: %d digits, not 12 to 19", len(digits))
	case !cardno.Luhn(digits):
		return "", errors.New("not a card number: it fails the Luhn check (a digit is mistyped)")
	}
	return digits, nil
}

// readCardNumber asks for the card number with echo off on a terminal, or
// reads one line of stdin.
func readCardNumber(ctx context.Context, io *iostreams.IOStreams) (string, error) {
	var text string
	var err error
	if io.CanPrompt() {
		text, err = io.PromptSecret(ctx, "Card number (not shown)")
	} else {
		text, err = io.ReadLine()
	}
	if err != nil {
		return "", cmdutil.UsageErrorf("cannot read the card number from stdin: %v", err)
	}
	number, err := ParseCardNumber(text)
	if err != nil {
		return "", cmdutil.UsageErrorf("%v; nothing was sent", err)
	}
	return number, nil
}

func saveRun(ctx context.Context, opts *SaveOptions) error {
	format, client, err := opts.Client(cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	number, err := readCardNumber(ctx, opts.IO)
	if err != nil {
		return err
	}
	req := gateway.SaveCardRequest{CustomerNumber: opts.CustomerNumber, CardHolderName: opts.Holder, CardNumber: number,
		ExpiryMonth: opts.Expiry.Month, ExpiryYear: opts.Expiry.Year,
		CustomerName: opts.CustomerName, CustomerEmail: opts.CustomerEmail, CustomerPhone: opts.CustomerPhone}
	card, customer := redact.CardField(number), redact.Cards(opts.CustomerNumber)
	return sendCardChange(ctx, &opts.Deps, format, client, opts.DryRun, cardChange[gateway.SaveCardRequest]{
		req: req, endpoint: gateway.EndpointSaveCard, send: (*gateway.Client).SaveCard,
		what: fmt.Sprintf("saving the card %s for customer %s", card, customer), customer: opts.CustomerNumber,
		done: func(*gateway.SavedCardResult) string {
			return fmt.Sprintf("Saved the card %s for customer %s", card, customer)
		},
	})
}
