package cards

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// MaxHolderLen bounds a card holder's name, as the gateway's customer
// fields are bounded.
const MaxHolderLen = gateway.MaxCustomerNumberLen

// UpdateOptions are the inputs of `paycli cards update`.
type UpdateOptions struct {
	cmdutil.Deps

	CustomerNumber string
	CardToken      string
	// ExpiryText is --expiry as given; Expiry is it read.
	ExpiryText string
	Expiry     Expiry
	Holder     string
	DryRun     bool
}

// NewCmdUpdate builds `paycli cards update`.
func NewCmdUpdate(f *cmdutil.Factory, runF func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "update --customer-number N --card-token T {--expiry MM/YY | --holder NAME}",
		Short: "Change a saved card's expiry or holder name",
		Long: `Change a saved card (editCard): its expiry (--expiry), its holder's name
(--holder), or both; what is not given is not sent, and stays as it is.
That is all the gateway lets change: a card with another number is another
card (save it, delete the old one).

--expiry takes MM/YYYY or MM/YY; a date already past is refused before
anything is sent. --dry-run prints the request, secrets redacted, and sends
nothing. The update is not journaled: it moves no money and can be changed
back.`,
		Example: `  paycli cards update --customer-number 5070 --card-token "$TOKEN" \
    --expiry 12/2030
  paycli cards update --customer-number 5070 --card-token "$TOKEN" \
    --expiry 01/31 --holder "Ada Lovelace"
  paycli cards update --customer-number 5070 --card-token "$TOKEN" \
    --holder "Ada King"`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.RequireFlags(cmd, "", "customer-number", "card-token"); err != nil {
				return err
			}
			if !cmd.Flags().Changed("expiry") && !cmd.Flags().Changed("holder") {
				return cmdutil.UsageErrorf("nothing to change: give --expiry, --holder or both")
			}
			if err := checkCustomerNumber(opts.CustomerNumber); err != nil {
				return err
			}
			opts.CardToken = strings.TrimSpace(opts.CardToken)
			if err := checkToken(opts.CardToken); err != nil {
				return cmdutil.UsageErrorf("invalid --card-token: %v", err)
			}
			var err error
			if cmd.Flags().Changed("expiry") {
				if opts.Expiry, err = ParseExpiry(opts.ExpiryText, opts.Now()); err != nil {
					return cmdutil.UsageErrorf("invalid --expiry: %v", err)
				}
			}
			if cmd.Flags().Changed("holder") {
				if opts.Holder, err = checkHolder(opts.Holder); err != nil {
					return cmdutil.UsageErrorf("invalid --holder: %v", err)
				}
			}
			return cmdutil.Run(cmd, opts, runF, updateRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.CustomerNumber, "customer-number", "", "the customer number the card was saved for")
	fl.StringVar(&opts.CardToken, "card-token", "", "the card's token, as 'paycli cards list' shows it")
	fl.StringVar(&opts.ExpiryText, "expiry", "", "the card's new expiry, MM/YYYY or MM/YY (default: unchanged)")
	fl.StringVar(&opts.Holder, "holder", "", "the card holder's new name, as on the card (default: unchanged)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the editCard request, secrets redacted, and send nothing")
	opts.AddJSONFlags(cmd)
	for _, name := range []string{"customer-number", "card-token", "expiry", "holder"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(slices.Clone(cmdutil.ExitsGateway), cmdutil.KindOutcomeUnknown), Notes: map[cmdutil.Kind]string{
		cmdutil.KindRejected:       "the gateway refused: the card is not there, or it refused the expiry",
		cmdutil.KindOutcomeUnknown: "sent, but no answer came: the card may be changed; see 'paycli cards list'",
	}})
	return cmd
}

// Expiry is a card's expiry as the gateway takes it: a two-digit month
// and a four-digit year.
type Expiry struct {
	Month, Year string
}

// ParseExpiry reads MM/YYYY or MM/YY (a one-digit month too); a month
// already past (in the gateway's time zone, at now) is refused. Its
// errors never quote s.
func ParseExpiry(s string, now time.Time) (Expiry, error) {
	m, y, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Expiry{}, errors.New("not MM/YYYY or MM/YY")
	}
	m, y = strings.TrimSpace(m), strings.TrimSpace(y)
	if !allDigits(m) || !allDigits(y) || len(m) < 1 || len(m) > 2 || (len(y) != 2 && len(y) != 4) {
		return Expiry{}, errors.New("not MM/YYYY or MM/YY")
	}
	month, _ := strconv.Atoi(m)
	year, _ := strconv.Atoi(y)
	if len(y) == 2 {
		year += 2000
	}
	if month < 1 || month > 12 {
		return Expiry{}, errors.New("the month is not 1 to 12")
	}
	if cy, cm, _ := now.In(money.GatewayZone()).Date(); year < cy || year == cy && month < int(cm) {
		return Expiry{}, errors.New("the card has expired")
	}
	if year > 2100 {
		return Expiry{}, errors.New("the year is too far ahead")
	}
	return Expiry{Month: fmt.Sprintf("%02d", month), Year: strconv.Itoa(year)}, nil
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// checkHolder trims a card holder's name and refuses one the gateway
// cannot take: empty, too long, holding '|' or a control character, or a
// card number.
func checkHolder(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", errors.New("empty")
	case utf8.RuneCountInString(s) > MaxHolderLen:
		return "", fmt.Errorf("longer than %d characters", MaxHolderLen)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r == '|' || unicode.IsControl(r) }):
		return "", errors.New("holds '|' or a control character")
	case redact.HasCard(s):
		return "", errors.New("holds a card number")
	}
	return s, nil
}

func updateRun(ctx context.Context, opts *UpdateOptions) error {
	format, client, err := opts.Client(cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	req := gateway.EditCardRequest{CustomerNumber: opts.CustomerNumber, CardToken: opts.CardToken,
		ExpiryMonth: opts.Expiry.Month, ExpiryYear: opts.Expiry.Year, CardHolderName: opts.Holder}
	customer := redact.Cards(opts.CustomerNumber)
	return sendCardChange(ctx, &opts.Deps, format, client, opts.DryRun, cardChange[gateway.EditCardRequest]{
		req: req, endpoint: gateway.EndpointEditCard, send: (*gateway.Client).EditCard,
		what: fmt.Sprintf("the update of card token %s of customer %s", opts.CardToken, customer), customer: opts.CustomerNumber,
		done: func(res *gateway.SavedCardResult) string {
			return fmt.Sprintf("Updated the saved card %s of customer %s: %s", cardOrToken(res.Card, opts.CardToken), customer, opts.changed())
		},
	})
}

// cardChange is a save or an update of a saved card, its request built.
type cardChange[R gateway.Call] struct {
	req      R
	endpoint string
	send     func(*gateway.Client, context.Context, R) (*gateway.SavedCardResult, error)
	// what names the change in an outcome-unknown error; customer is the
	// customer number whose cards it points at.
	what, customer string
	// done is the line a person on a terminal reads once it is made.
	done func(*gateway.SavedCardResult) string
}

// sendCardChange prints the request with --dry-run; otherwise sends it,
// and prints the card as the gateway answers. A change sent without an
// answer is exit 7 (it may have been made), never retried.
func sendCardChange[R gateway.Call](ctx context.Context, d *cmdutil.Deps, format render.Format, client *gateway.Client, dryRun bool, c cardChange[R]) error {
	if dryRun {
		return moneyop.DryRun(d.IO, client, format, c.req)
	}
	ctx, cancel, err := d.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	res, err := c.send(client, ctx, c.req)
	if mayHaveChanged(c.endpoint, err) {
		return unknownChange(c.what, c.customer, err)
	}
	if err != nil {
		return err
	}
	if d.IO.IsStderrTTY() {
		fmt.Fprintln(d.IO.ErrOut, c.done(res))
	}
	return d.JSON.WriteFields(ctx, d.IO.Out, format, cmdutil.TableOptions(d.IO), cardFields(res))
}

// changed says what updateRun sent: the new expiry, the holder's name, or
// both.
func (opts *UpdateOptions) changed() string {
	var parts []string
	if opts.Expiry.Month != "" {
		parts = append(parts, "expires "+opts.Expiry.Month+"/"+opts.Expiry.Year)
	}
	if opts.Holder != "" {
		parts = append(parts, "holder "+redact.Cards(opts.Holder))
	}
	return strings.Join(parts, ", ")
}

// cardOrToken names a card by its masked number, or its token when the
// answer gave no number.
func cardOrToken(c gateway.SavedCard, token string) string {
	if c.CardNumber != "" {
		return redact.CardField(c.CardNumber)
	}
	return "token " + token
}

// cardFields are the fields printed for a card the gateway answered with.
func cardFields(res *gateway.SavedCardResult) []render.Field {
	c := res.Card
	return []render.Field{
		render.StringField("status_description", res.StatusDescription),
		render.StringField("card_token", c.CardToken),
		render.StringField("card_number", redact.CardField(c.CardNumber)),
		render.StringField("customer_number", c.CustomerNumber),
		render.StringField("card_holder_name", redact.Cards(c.CardHolderName)),
		render.StringField("expiry_month", c.ExpiryMonth),
		render.StringField("expiry_year", c.ExpiryYear),
		render.StringField("card_issuer_bank", c.CardIssuerBank),
		render.StringField("card_program", c.CardProgram),
		render.StringField("updated_at", c.UpdatedAt),
	}
}
