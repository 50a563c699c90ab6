package cards

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// MaxReasonLen bounds --reason: a sentence, not a document.
const MaxReasonLen = 200

// DeleteOptions are the inputs of `paycli cards delete`: the pipeline's
// and a deletion's flags.
type DeleteOptions struct {
	moneyop.Options

	CustomerNumber string
	CardToken      string
	Reason         string
}

// NewCmdDelete builds `paycli cards delete`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{Options: moneyop.NewOptions(f)}
	cmd := &cobra.Command{
		Use:   "delete --customer-number N --card-token T --reason TEXT",
		Short: "Delete a customer's saved card, journaled with who and why",
		Long: `Delete one saved card of a customer (deleteCard): its token pays no more.
It is a desk action with no way back, so it runs through the pipeline of the
commands that move money: a summary on stderr (the card's masked number,
expiry and bank, looked up first with getCardTokens), confirmation on a
terminal (--yes without one), --dry-run (the request, secrets redacted,
nothing sent), and a journal intent before it is sent and an outcome after.

--reason says why (a KVKK/GDPR request, the customer's call): it is kept in
the journal with the deletion, and a shared journal records who deleted it.
The journal knows the deletion by the invoice "card:CUSTOMER:TOKEN" (one
card of one customer) and the kind card-delete: 'paycli journal --kind
card-delete' lists them.

A card that is not there (an unknown token, another customer's, or one
already deleted) is the gateway's refusal: exit 4 with its text, journaled
as rejected, never as done. A deletion is never retried: when its outcome is
unknown paycli exits 7, and running the same command again sends it once
more; its success settles the earlier one. A refusal of it (the card not
there) does not say the earlier one deleted the card: that stays unsettled,
and blocks the card, until the desk lead settles it ('paycli journal
settle ATTEMPT --as made --reason TEXT').`,
		Example: `  TOKEN=$(paycli cards list --customer-number 5070 --jq '.cards[0].card_token')
  paycli cards delete --customer-number 5070 --card-token "$TOKEN" \
    --reason "KVKK request #1234"
  paycli cards delete --customer-number 5070 --card-token "$TOKEN" \
    --reason "the customer called" --dry-run`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.RequireFlags(cmd, "", "customer-number", "card-token", "reason"); err != nil {
				return err
			}
			return moneyop.Start(cmd, f, opts, runF, deleteRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.CustomerNumber, "customer-number", "", "the customer number the card was saved for")
	fl.StringVar(&opts.CardToken, "card-token", "", "the card's token, as 'paycli cards list' shows it")
	fl.StringVar(&opts.Reason, "reason", "", "why the card is deleted, kept in the journal")
	moneyop.AddFlags(cmd, f, &opts.Options, moneyop.FlagText{
		Yes:    "do not ask for confirmation (required without a terminal)",
		DryRun: "print the deleteCard request, secrets redacted, and send nothing",
	})
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindAuth, cmdutil.KindRejected, cmdutil.KindDuplicate,
		cmdutil.KindOutcomeUnknown, cmdutil.KindUnavailable, cmdutil.KindJournalRefused, cmdutil.KindCancelled}, MovesMoney: true, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:          "bad input or configuration; nothing was sent",
		cmdutil.KindRejected:       "the gateway refused: the card is not there (unknown, another customer's, already deleted)",
		cmdutil.KindDuplicate:      "another command on the same card is in flight; nothing was sent",
		cmdutil.KindOutcomeUnknown: "the deletion was sent but no answer came: run the same command again (its success settles it)",
		cmdutil.KindUnavailable:    "gateway or shared journal unreachable; nothing was sent",
	}})
	for _, name := range []string{"customer-number", "card-token", "reason"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

func deleteRun(ctx context.Context, opts *DeleteOptions) error {
	var op moneyop.Operation[*deletion, gateway.DeleteCardRequest, *gateway.SavedCardResult] = deleteOperation{flags: opts.GatewayFlags}
	return moneyop.RunSingle(ctx, &opts.Options, op, &deletion{CustomerNumber: opts.CustomerNumber, CardToken: opts.CardToken, Reason: opts.Reason})
}

// deletion is one card to delete, and once prepared what getCardTokens
// showed of it.
type deletion struct {
	CustomerNumber string
	CardToken      string
	Reason         string
	// card is the customer's card with the token (set by Prepare); nil
	// when the list does not hold it.
	card *gateway.SavedCard
	// resent is the attempt id of the earlier deletion of unknown outcome
	// this one re-sends (set by Resend); empty for a first send.
	resent string
}

// deleteOperation is deleteCard as the pipeline sees it.
type deleteOperation struct {
	// flags are the global flags a suggested command repeats.
	flags []string
}

var (
	_ moneyop.Operation[*deletion, gateway.DeleteCardRequest, *gateway.SavedCardResult] = deleteOperation{}
	_ moneyop.Preparer[*deletion]                                                       = deleteOperation{}
	_ moneyop.Resender[*deletion]                                                       = deleteOperation{}
)

// KindDelete is the journal kind of a saved card's deletion: its invoice
// is "card:CUSTOMER:TOKEN" (one card of one customer), its Ref the card
// token and its Reason why it was deleted.
const KindDelete = "card-delete"

// Kind is KindDelete.
func (deleteOperation) Kind() string { return KindDelete }

// Kinds is everything the rest of paycli says about a card's deletion
// (journal.Kind): a desk action that moves no money and that check status
// knows nothing of (no Read), so one of unknown outcome is settled by
// sending the same command again (SentAgain, its Resender).
func Kinds() []journal.Kind { return []journal.Kind{{Name: KindDelete, SentAgain: true}} }

// Invoice is the deletion's journal key, "card:CUSTOMER:TOKEN": the
// journal, its locks and its one rule key attempts by invoice, and a
// deletion is about one card of one customer (a token is only ever found
// with its customer number).
func (deleteOperation) Invoice(d *deletion) string {
	if d == nil {
		return ""
	}
	return CardKey(d.CustomerNumber, d.CardToken)
}

// CardKey is the journal key of a customer's card. A card number typed
// as the customer number is masked (redact.Cards), so that it is never
// written to the journal whole; the token keeps the key one card's.
func CardKey(customerNumber, token string) string {
	return "card:" + redact.Cards(customerNumber) + ":" + token
}

// Check validates the flags before anything exists.
func (deleteOperation) Check(d *deletion) (*deletion, error) {
	out := &deletion{CustomerNumber: d.CustomerNumber, CardToken: strings.TrimSpace(d.CardToken), Reason: strings.TrimSpace(d.Reason)}
	if err := gateway.CheckCustomerNumber(out.CustomerNumber); err != nil {
		return nil, &moneyop.FieldError{Field: "customer-number", Err: errors.New(gateway.RefusalText(err))}
	}
	if err := checkToken(out.CardToken); err != nil {
		return nil, &moneyop.FieldError{Field: "card-token", Err: err}
	}
	switch {
	case out.Reason == "":
		return nil, &moneyop.FieldError{Field: "reason", Err: errors.New("empty: say why the card is deleted")}
	case utf8.RuneCountInString(out.Reason) > MaxReasonLen:
		return nil, &moneyop.FieldError{Field: "reason", Err: fmt.Errorf("longer than %d characters", MaxReasonLen)}
	case !utf8.ValidString(out.Reason) || strings.ContainsFunc(out.Reason, unicode.IsControl):
		return nil, &moneyop.FieldError{Field: "reason", Err: errors.New("holds a control character")}
	}
	return out, nil
}

// checkToken refuses a card token the gateway cannot have given: empty,
// longer than 64 characters, or holding a blank, a control character or
// '|' (the hash_key separator).
func checkToken(token string) error {
	switch {
	case token == "":
		return errors.New("empty; 'paycli cards list' shows the tokens")
	case len(token) > 64:
		return errors.New("longer than a card token (64 characters)")
	case !utf8.ValidString(token) || strings.ContainsFunc(token, func(r rune) bool { return r == '|' || unicode.IsSpace(r) || unicode.IsControl(r) }):
		return errors.New("holds a blank, a control character or '|'")
	}
	return nil
}

// Prepare looks the card up in the customer's list (getCardTokens), for
// the summary: its masked number, expiry and bank. A card the list does
// not hold is still sent: the gateway's refusal says it is not there.
func (deleteOperation) Prepare(ctx context.Context, env *moneyop.Env, d *deletion) (*deletion, error) {
	cards, err := env.Client.CardTokens(ctx, d.CustomerNumber)
	if err != nil {
		return nil, err
	}
	out := *d
	for i := range cards {
		if cards[i].CardToken == d.CardToken {
			out.card = &cards[i]
		}
	}
	return &out, nil
}

// Resend lets a deletion go out past an earlier deletion of the same card
// whose outcome is unknown: deleting a card twice deletes it once. Only
// its success settles the earlier attempt; a refusal (the card not there)
// tells nothing of it (issue 39).
func (deleteOperation) Resend(_ *moneyop.Env, d *deletion, attempts []journal.Attempt) (*deletion, *journal.Attempt, error) {
	var resent *journal.Attempt
	for i := range attempts {
		a := &attempts[i]
		if a.Intent.OpKind() == KindDelete && a.Intent.Invoice == CardKey(d.CustomerNumber, d.CardToken) &&
			a.Intent.Ref == d.CardToken && a.Unsettled() {
			resent = a
		}
	}
	if resent == nil {
		return d, nil, nil
	}
	out := *d
	out.resent = resent.Intent.Attempt
	return &out, resent, nil
}

// Describe says what the deletion does, and builds its deleteCard
// request; the gateway client signs it (the deletecard layout
// merchant_key|customer_number|card_token).
func (deleteOperation) Describe(d *deletion) (moneyop.Description, gateway.DeleteCardRequest) {
	card := "not among the customer's saved cards (getCardTokens); the gateway decides"
	desc := moneyop.Description{Title: "Saved card deletion", Noun: "card deletion", NotDone: "nothing was deleted", Ref: d.CardToken, Reason: redact.Cards(d.Reason)}
	rows := [][2]string{{"Customer", d.CustomerNumber}}
	if d.card != nil {
		card = redact.CardField(d.card.CardNumber)
		desc.Card = card
		rows = append(rows, [2]string{"Card", card})
		if e := expiry(*d.card); e != "" {
			rows = append(rows, [2]string{"Expiry", e})
		}
		if d.card.CardIssuerBank != "" {
			rows = append(rows, [2]string{"Bank", render.Escape(d.card.CardIssuerBank)})
		}
		desc.Prompt = fmt.Sprintf("Delete the saved card %s of customer %s? It cannot be undone", card, redact.Cards(d.CustomerNumber))
	} else {
		rows = append(rows, [2]string{"Card", card})
		desc.Prompt = fmt.Sprintf("Send the deletion of card token %s of customer %s?", d.CardToken, redact.Cards(d.CustomerNumber))
	}
	rows = append(rows, [2]string{"Ref", d.CardToken}, [2]string{"Reason", render.Escape(d.Reason)})
	desc.Rows = rows
	return desc, gateway.DeleteCardRequest{CustomerNumber: d.CustomerNumber, CardToken: d.CardToken}
}

// Call sends the deleteCard, once.
func (deleteOperation) Call(ctx context.Context, client *gateway.Client, req gateway.DeleteCardRequest) (*gateway.SavedCardResult, error) {
	return client.DeleteCard(ctx, req)
}

// Classify turns the answer into an outcome. The client treats deleteCard
// as a call that moves no money, so a request sent without a complete
// answer (or answered by a 5xx, or unreadably) would read as "not sent" or
// "unavailable": the card may be deleted all the same, so it is unknown.
func (op deleteOperation) Classify(d *deletion, ans *gateway.SavedCardResult, err error) moneyop.Outcome {
	if err == nil {
		if ans == nil {
			ans = &gateway.SavedCardResult{}
		}
		return moneyop.Success("", ans.StatusDescription)
	}
	o := moneyop.ClassifyError(gateway.EndpointDeleteCard, err)
	if mayHaveDeleted(err) {
		o.Class = journal.Unknown
	}
	if d == nil {
		return o
	}
	what := fmt.Sprintf("the deletion of card token %s of customer %s", d.CardToken, redact.Cards(d.CustomerNumber))
	switch o.Class {
	case journal.Unknown:
		o.Say = fmt.Sprintf("outcome unknown for %s: it was sent, but %s; it was not retried", what, unknownWhy(err))
		o.Hint = "Run the same command again to settle it: " + deleteCommand(d, op.flags)
	case journal.Rejected:
		o.Say = "the gateway refused " + what // the pipeline adds its words and NotDone
		if d.resent != "" {
			// A refused re-send tells nothing of the deletion it re-sent
			// (issue 39): the card may be gone by it, or never have been
			// saved. It stays unsettled; the desk lead settles it.
			o.Say += fmt.Sprintf(", which says nothing of the earlier deletion %s: it stays unsettled", d.resent)
			o.Hint = "Once the gateway confirms what became of the card (" + listCommand(d, op.flags) + "), the desk lead settles the earlier deletion: " +
				cmdutil.SettleCommandLine(d.resent, "made", op.flags)
		}
	case journal.Duplicate:
		o.Say = "the gateway answered " + what + " as a duplicate; nothing was deleted"
		o.Hint = "List the customer's cards: " + listCommand(d, op.flags)
	}
	return o
}

// mayHaveDeleted reports whether err leaves the deletion's outcome open.
func mayHaveDeleted(err error) bool { return mayHaveChanged(gateway.EndpointDeleteCard, err) }

// mayHaveChanged reports whether err leaves the outcome of a call to
// endpoint that changes what the gateway keeps open: the request went out
// and no readable answer came back.
func mayHaveChanged(endpoint string, err error) bool {
	var reqErr *gateway.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.Endpoint == endpoint && reqErr.Sent
	}
	var apiErr *gateway.APIError
	if errors.As(err, &apiErr) && apiErr.Endpoint == endpoint && !apiErr.HasStatusCode {
		return apiErr.HTTPStatus >= http.StatusInternalServerError || apiErr.Problem != "" && apiErr.HTTPStatus < 300
	}
	return false
}

func unknownWhy(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "it was interrupted before the answer came"
	case errors.Is(err, context.DeadlineExceeded):
		return "the time limit ran out before the answer came"
	}
	var apiErr *gateway.APIError
	if errors.As(err, &apiErr) {
		return "the gateway answered " + apiErr.Answer()
	}
	return "no complete answer came"
}

// deleteCommand is the command line that sends the deletion again.
func deleteCommand(d *deletion, flags []string) string {
	return cmdutil.CommandLine(slices.Concat([]string{"paycli", "cards", "delete", "--customer-number", d.CustomerNumber,
		"--card-token", d.CardToken, "--reason", d.Reason}, flags, []string{"--yes"})...)
}

// unknownChange is the error of an update or a save sent without a
// readable answer: it may have been made, so it is an unknown outcome
// (exit 7), never "nothing was sent" — and it is not retried.
func unknownChange(what, customer string, err error) error {
	return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
		fmt.Errorf("outcome unknown for %s: it was sent, but %s; it was not retried", what, unknownWhy(err)),
		"See whether it was made before you send it again: "+cmdutil.CommandLine("paycli", "cards", "list", "--customer-number", customer)+" (with this command's profile flags)")
}

// listCommand is the command line that lists the customer's cards.
func listCommand(d *deletion, flags []string) string {
	return cmdutil.CommandLine(slices.Concat([]string{"paycli", "cards", "list", "--customer-number", d.CustomerNumber}, flags)...)
}

// Result is the deleted card's fields, and the verdict a person reads on a
// terminal.
func (deleteOperation) Result(d *deletion, ans *gateway.SavedCardResult) ([]render.Field, string) {
	if ans == nil {
		ans = &gateway.SavedCardResult{}
	}
	number := ans.Card.CardNumber
	if number == "" && d.card != nil {
		number = d.card.CardNumber
	}
	number = redact.CardField(number)
	fs := []render.Field{
		render.IntField("status_code", gateway.StatusSuccess),
		render.StringField("status_description", ans.StatusDescription),
		render.StringField("customer_number", d.CustomerNumber),
		render.StringField("card_token", d.CardToken),
		render.StringField("card_number", number),
		render.StringField("reason", d.Reason),
	}
	shown := number
	if shown == "" {
		shown = "token " + d.CardToken
	}
	return fs, fmt.Sprintf("Deleted the saved card %s of customer %s", shown, redact.Cards(d.CustomerNumber))
}
