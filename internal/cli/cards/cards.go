// Package cards implements `paycli cards`: a customer's saved cards at the
// gateway (getCardTokens, editCard, deleteCard, saveCard). list and
// update are plain calls; delete is a desk action that runs through the
// money-moving pipeline (internal/moneyop) for its summary, confirmation,
// dry run, journal and one send; save, for a merchant's developer, only
// runs against the sandbox and reads the card number from stdin or a
// prompt with echo off.
package cards

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// NewCmdCards builds the `paycli cards` group.
func NewCmdCards(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cards",
		Short: "List, update, delete (and in the sandbox save) a customer's saved cards",
		Long: `A customer's saved cards at the gateway: the cards a merchant's site saved
for a customer number, each known by an opaque card token. paycli never
shows a saved card's full number (the gateway gives it masked, and paycli
masks it again), and never takes one on its command line.

  list     the customer's cards: token, masked number, expiry, bank, program
  delete   remove one card (a KVKK/GDPR request): summary, confirmation,
           --dry-run, and a journal line saying who and why
  update   change a card's expiry (and holder name), all the gateway allows
  save     save a card, in the sandbox only (a merchant's developer)

See docs/cards.md.`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdDelete(f, nil), NewCmdUpdate(f, nil), NewCmdSave(f, nil))
	return cmd
}

// ListOptions are the inputs of `paycli cards list`.
type ListOptions struct {
	cmdutil.Deps

	CustomerNumber string
}

// NewCmdList builds `paycli cards list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "list --customer-number N",
		Short: "List a customer's saved cards, masked",
		Long: `List the cards saved for a customer number (getCardTokens): each card's
token (what 'cards delete' and 'cards update' take), its number masked to
the first 6 and last 4 digits, its expiry, issuing bank and card program,
where the gateway gives them.

A customer number that holds no saved cards is said on stderr and exits 4:
an empty table would look like a lookup that worked.

-o json prints {"customer_number", "cards": [...]} (docs/json-output.md);
--jq filters it; -o csv and -o tsv print the table's rows.`,
		Example: `  paycli cards list --customer-number 5070
  paycli cards list --customer-number 5070 -o json
  paycli cards list --customer-number 5070 --jq '.cards[].card_token'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.RequireFlags(cmd, "", "customer-number"); err != nil {
				return err
			}
			if err := checkCustomerNumber(opts.CustomerNumber); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, listRun)
		},
	}
	cmd.Flags().StringVar(&opts.CustomerNumber, "customer-number", "", "the customer number the cards were saved for")
	opts.AddJSONFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("customer-number", cobra.NoFileCompletions)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway, Notes: map[cmdutil.Kind]string{
		cmdutil.KindRejected: "the customer number holds no saved cards, or the gateway refused the request",
	}})
	return cmd
}

// checkCustomerNumber refuses an unusable --customer-number (exit 2)
// with the gateway client's own rule. The value is not quoted: it may be
// anything, a card number typed in the wrong place included.
func checkCustomerNumber(customer string) error {
	if err := gateway.CheckCustomerNumber(customer); err != nil {
		return cmdutil.UsageErrorf("invalid --customer-number: %s", gateway.RefusalText(err))
	}
	return nil
}

func listRun(ctx context.Context, opts *ListOptions) error {
	// The saved-card calls all carry merchant_key.
	ctx, call, err := opts.Open(ctx, cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	defer call.Close()
	format, client := call.Format, call.Client
	cards, err := client.CardTokens(ctx, opts.CustomerNumber)
	if err != nil {
		return err
	}
	if len(cards) == 0 {
		return cmdutil.WithKind(cmdutil.KindRejected,
			fmt.Errorf("customer %s has no saved cards at the gateway", redact.Cards(opts.CustomerNumber)),
			"Check the customer number: it is the merchant's own number for the customer, as the cards were saved with it.")
	}
	return writeCards(ctx, opts, format, cards)
}

// cardJSON is one card of -o json: the gateway's fields, with the
// number masked.
type cardJSON struct {
	ID             int64  `json:"id"`
	CardToken      string `json:"card_token"`
	CardNumber     string `json:"card_number"`
	ExpiryMonth    string `json:"expiry_month"`
	ExpiryYear     string `json:"expiry_year"`
	CardHolderName string `json:"card_holder_name"`
	CardIssuerBank string `json:"card_issuer_bank"`
	BankID         int64  `json:"bank_id"`
	CardProgram    string `json:"card_program"`
	CardScheme     string `json:"card_scheme"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
}

func toJSON(c gateway.SavedCard) cardJSON {
	return cardJSON{ID: c.ID, CardToken: c.CardToken, CardNumber: c.CardNumber, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear,
		CardHolderName: redact.Cards(c.CardHolderName), CardIssuerBank: c.CardIssuerBank, BankID: c.BankID, CardProgram: c.CardProgram,
		CardScheme: c.CardScheme, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

var (
	tableHeader = []string{"TOKEN", "CARD", "EXPIRY", "BANK", "PROGRAM", "SAVED"}
	csvHeader   = []string{"card_token", "card_number", "expiry", "card_issuer_bank", "card_program", "created_at"}
)

// expiry is MM/YYYY, or what the gateway gave of it.
func expiry(c gateway.SavedCard) string {
	switch {
	case c.ExpiryMonth != "" && c.ExpiryYear != "":
		return c.ExpiryMonth + "/" + c.ExpiryYear
	}
	return c.ExpiryMonth + c.ExpiryYear
}

// program is the card's program, or its scheme when the gateway names no
// program.
func program(c gateway.SavedCard) string {
	if c.CardProgram != "" {
		return c.CardProgram
	}
	return c.CardScheme
}

// savedOn is the date a card was saved, as the gateway wrote it
// ("2026-01-10 15:44:02", "2026-01-10T15:44:02.000000Z"): its first ten
// characters.
func savedOn(c gateway.SavedCard) string {
	if len(c.CreatedAt) >= 10 {
		return c.CreatedAt[:10]
	}
	return c.CreatedAt
}

func writeCards(ctx context.Context, opts *ListOptions, format render.Format, cards []gateway.SavedCard) error {
	switch format {
	case render.JSON:
		doc := struct {
			CustomerNumber string     `json:"customer_number"`
			Cards          []cardJSON `json:"cards"`
		}{opts.CustomerNumber, make([]cardJSON, 0, len(cards))}
		for _, c := range cards {
			doc.Cards = append(doc.Cards, toJSON(c))
		}
		return opts.JSON.Write(ctx, opts.IO.Out, doc)
	}
	records := make([][]string, 0, len(cards))
	for _, c := range cards {
		// The token is the gateway's reference, kept whole; the other
		// cells go through the card masker.
		records = append(records, []string{c.CardToken, redact.CardField(c.CardNumber), expiry(c),
			redact.Cards(c.CardIssuerBank), redact.Cards(program(c)), savedOn(c)})
	}
	if format == render.CSV || format == render.TSV {
		return render.WriteRecords(opts.IO.Out, format, csvHeader, records)
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s saved for customer %s\n", render.Count(len(cards), "card", "cards"), redact.Cards(opts.CustomerNumber))
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{3, 4}
	table.Drop = []int{5}
	return render.WriteTable(opts.IO.Out, table, tableHeader, records)
}
