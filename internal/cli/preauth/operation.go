package preauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/strictjson"
)

// input is one capture or cancellation as given: flags, or a batch line.
type input struct {
	Invoice string `json:"invoice"`
	// Amount is a capture's amount; empty captures all that is held.
	Amount string `json:"amount,omitempty"`
}

// cancelLine is a cancellation's batch line: it has no amount.
type cancelLine struct {
	Invoice string `json:"invoice"`
}

// hold is an input and, once prepared, the pre-authorization check status
// showed: what it holds, on which card, since when.
type hold struct {
	input
	// amount is Amount read (zero when empty).
	amount decimal.Decimal
	// The pre-authorization, from check status (set by Prepare).
	orderID  string
	held     string
	currency string
	card     string
	created  time.Time
}

// operation is confirmPayment, a capture or a cancellation: what the
// money-moving pipeline needs to know of it.
type operation struct {
	action gateway.ConfirmStatus
	now    func() time.Time
}

var (
	_ moneyop.Operation[*hold, gateway.ConfirmPaymentRequest, *gateway.ConfirmPaymentResult] = operation{}
	_ moneyop.LineParser[*hold]                                                              = operation{}
	_ moneyop.Preparer[*hold]                                                                = operation{}
)

// Call sends the confirmPayment, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.ConfirmPaymentRequest) (*gateway.ConfirmPaymentResult, error) {
	return client.ConfirmPayment(ctx, req)
}

func (op operation) capture() bool { return op.action == gateway.ConfirmCapture }

// Kind is the journal kind of its attempts: a capture and a cancellation
// are two kinds, never read one for the other.
func (op operation) Kind() string {
	if op.capture() {
		return KindCapture
	}
	return KindCancel
}

// Invoice is the pre-authorization's invoice.
func (operation) Invoice(h *hold) string {
	if h == nil {
		return ""
	}
	return h.Invoice
}

// ParseLine reads one batch line strictly: {"invoice","amount"} for a
// capture ("amount" optional), {"invoice"} for a cancellation.
func (op operation) ParseLine(text []byte) (*hold, error) {
	h := &hold{}
	if op.capture() {
		var in struct {
			Invoice string  `json:"invoice"`
			Amount  *string `json:"amount"`
		}
		if err := strictjson.Unmarshal(text, &in); err != nil {
			return h, err
		}
		h.Invoice = in.Invoice
		if in.Amount != nil {
			if *in.Amount == "" {
				return h, errors.New("amount is empty; leave the key out to capture all that is held")
			}
			h.Amount = *in.Amount
		}
		return h, nil
	}
	var in cancelLine
	if err := strictjson.Unmarshal(text, &in); err != nil {
		return h, err
	}
	h.Invoice = in.Invoice
	return h, nil
}

// Check validates an input before anything exists: the invoice id rule,
// and a capture amount that is a positive plain decimal.
func (op operation) Check(h *hold) (*hold, error) {
	// The invoice id is checked as given, never trimmed (invoiceid).
	out := &hold{input: input{Invoice: h.Invoice, Amount: strings.TrimSpace(h.Amount)}}
	if err := invoiceid.Check(out.Invoice); err != nil {
		return nil, &moneyop.FieldError{Field: "invoice", Err: err}
	}
	if out.Amount == "" {
		return out, nil
	}
	// The decimals are checked against the currency in Prepare, once check
	// status has named it.
	d, err := money.ParseAmount(out.Amount)
	if err != nil {
		return nil, &moneyop.FieldError{Field: "amount", Err: err}
	}
	out.amount = d
	return out, nil
}

// Prepare looks the invoice up: it must be a pre-authorization still open
// (exit 4 otherwise, nothing sent), and a capture's amount must fit what
// it holds, in its currency's decimals (exit 2 otherwise).
func (op operation) Prepare(ctx context.Context, env *moneyop.Env, h *hold) (*hold, error) {
	st, err := env.LookUp(ctx, h.Invoice)
	status := env.StatusCommand(h.Invoice)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		return nil, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("no transaction with invoice %s; nothing was sent", redact.Invoice(h.Invoice)),
			"Check the invoice id of the pre-authorization.")
	case errors.Is(err, gateway.ErrPending):
		return nil, cmdutil.WithKind(cmdutil.KindRejected,
			fmt.Errorf("invoice %s is not authorized yet (status_code 69, not yet processed); nothing was sent", redact.Invoice(h.Invoice)),
			"See where it stands: "+status)
	case errors.As(err, new(*gateway.InconsistentError)):
		// An answer about another sale decides nothing here.
		return nil, fmt.Errorf("%w; nothing was sent", err)
	case err != nil:
		return nil, err
	}
	if why := notOpen(st, op.capture()); why != "" {
		return nil, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("invoice %s %s; nothing was sent", redact.Invoice(h.Invoice), why),
			"See it with: "+status)
	}
	out := *h
	out.orderID = st.OrderID
	out.currency = strings.ToUpper(strings.TrimSpace(st.CurrencyCode()))
	out.card = redact.Cards(st.CardNo())
	if t, ok := gateway.ParseTime(st.CreatedAt()); ok {
		out.created = t
	}
	held, heldKnown := st.TransactionAmount.Decimal()
	minor, currencyKnown := money.MinorUnit(out.currency)
	if !currencyKnown {
		// No currency named (the gateway's documented check status has
		// none): amounts are written with the decimals the gateway wrote
		// the held amount with, and the gateway judges the capture's.
		minor = max(-held.Exponent(), 0)
	}
	if heldKnown {
		out.held = held.StringFixed(minor)
	}
	if h.Amount == "" {
		return &out, nil
	}
	switch {
	case out.currency != "" && !currencyKnown:
		return nil, cmdutil.WithKind(cmdutil.KindRejected,
			fmt.Errorf("check status of invoice %s names no known currency (%q), so --amount cannot be checked; nothing was sent", redact.Invoice(h.Invoice), redact.Cards(out.currency)),
			"Leave out --amount to capture all that is held.")
	case currencyKnown && !h.amount.Equal(h.amount.Round(minor)):
		return nil, &moneyop.FieldError{Field: "amount", Err: fmt.Errorf("%s has more decimals than %s has (%d)", h.Amount, out.currency, minor)}
	case !heldKnown:
		return nil, cmdutil.WithKind(cmdutil.KindRejected,
			fmt.Errorf("check status of invoice %s gives no transaction_amount, so --amount cannot be checked against it; nothing was sent", redact.Invoice(h.Invoice)),
			"Leave out --amount to capture all that is held.")
	case h.amount.GreaterThan(held):
		return nil, &moneyop.FieldError{Field: "amount", Err: fmt.Errorf("%s is more than the %s the pre-authorization holds", h.Amount, strings.TrimSpace(out.held+" "+out.currency))}
	}
	if h.amount.Equal(h.amount.Round(minor)) {
		out.Amount = h.amount.StringFixed(minor)
	}
	return &out, nil
}

// notOpen says why check status shows no open pre-authorization, "" when
// it shows one (gateway.Sale.Held).
func notOpen(st *gateway.CheckStatusResult, capture bool) string {
	status := render.Escape(redact.Cards(st.TransactionStatus))
	switch sale := st.Sale(); {
	case sale.Held():
		return ""
	case !sale.IsPreAuth():
		return fmt.Sprintf("is not a pre-authorization (transaction_type %q)", render.Escape(redact.Cards(st.TransactionType)))
	case sale.Captured():
		if capture {
			return fmt.Sprintf("was already captured (transaction_status %q): nothing is charged twice", status)
		}
		return fmt.Sprintf("was captured (transaction_status %q) and can no longer be cancelled; refund it instead", status)
	case sale.Released():
		return fmt.Sprintf("was cancelled (transaction_status %q): nothing is held any more", status)
	}
	return fmt.Sprintf("is not an open pre-authorization (transaction_status %q)", status)
}

// Describe says what the capture or cancellation does, and builds its
// confirmPayment request; the gateway client signs it (the confirm layout
// merchant_key|invoice_id|status).
func (op operation) Describe(h *hold) (moneyop.Description, gateway.ConfirmPaymentRequest) {
	held := "unknown"
	if h.held != "" {
		held = render.Amount(h.held, h.currency)
	}
	card := render.CardOf(h.card)
	if card == "" {
		card = "unknown"
	}
	d := moneyop.Description{Currency: h.currency, Card: h.card}
	rows := [][2]string{{"Held", held}}
	if op.capture() {
		take := held
		if h.Amount != "" {
			take = render.Amount(h.Amount, h.currency)
		}
		d.Title, d.Noun, d.NotDone = "Pre-authorization capture", "capture", "nothing was captured"
		d.Prompt = fmt.Sprintf("Capture %s from %s?", take, card)
		d.Amount = h.Amount
		if d.Amount == "" {
			d.Amount = h.held
		}
		rows = append(rows, [2]string{"Capture", take})
	} else {
		d.Title, d.Noun, d.NotDone = "Pre-authorization cancel", "cancellation", "nothing was released: the amount stays held"
		d.Prompt = fmt.Sprintf("Release the %s held on %s?", held, card)
		d.Amount = h.held
		rows = append(rows, [2]string{"Release", held})
	}
	rows = append(rows, [2]string{"Card", card})
	if !h.created.IsZero() && op.now != nil {
		rows = append(rows, [2]string{"Age", age(op.now().Sub(h.created)) + " (authorized " + render.FormatTime(h.created, render.Table) + ")"})
	}
	rows = append(rows, [2]string{"Invoice", h.Invoice})
	if h.orderID != "" {
		rows = append(rows, [2]string{"Order", render.Escape(h.orderID)})
	}
	d.Rows = rows
	req := gateway.ConfirmPaymentRequest{InvoiceID: h.Invoice, Status: op.action}
	if op.capture() {
		req.Total = h.Amount
	}
	return d, req
}

// age says how long ago something was, to the minute: "3d 4h", "2h 5m",
// "12m".
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Truncate(time.Minute)
	days, hours, minutes := int(d/(24*time.Hour)), int(d/time.Hour)%24, int(d/time.Minute)%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh %dm", hours, minutes)
	}
	return fmt.Sprintf("%dm", minutes)
}

// Classify turns a confirmPayment answer into an outcome. status_code 117
// (already captured or cancelled) is a duplicate: this call took nothing.
// A success that contradicts itself or the action (a capture answered
// Failed, Declined, still Pre-Authorized or with payment_status 0; a
// cancellation answered Completed) comes from the client as an
// *gateway.InconsistentError: unknown.
func (op operation) Classify(h *hold, ans *gateway.ConfirmPaymentResult, err error) moneyop.Outcome {
	if err != nil {
		o := moneyop.ClassifyError(gateway.EndpointConfirmPayment, err)
		if o.Class == journal.Duplicate && h != nil {
			o.Say = fmt.Sprintf("the pre-authorization of invoice %s was already captured or cancelled; this call charged nothing", redact.Invoice(h.Invoice))
		}
		return o
	}
	if ans == nil {
		ans = &gateway.ConfirmPaymentResult{}
	}
	return moneyop.Success(ans.OrderID, ans.StatusDescription)
}

// amountText shows the answer's amount as every amount is shown, in the
// currency's minor unit with its code, beside released_amount; a cancel's
// 0 says that nothing was charged. JSON keeps the gateway's value.
func (op operation) amountText(h *hold, f render.Field) string {
	var text string
	if json.Unmarshal(f.JSON, &text) != nil {
		text = string(f.JSON)
	}
	d, ok := money.ParsePlain(text)
	if !ok {
		return f.Text
	}
	minor, known := money.MinorUnit(h.currency)
	if !known {
		minor = max(-d.Exponent(), 0)
	}
	shown := render.Amount(money.Shown(d, minor), h.currency)
	if !op.capture() && d.IsZero() {
		shown += " (nothing charged)"
	}
	return shown
}

// Result is the answer's fields, and the verdict a person reads on a
// terminal.
func (op operation) Result(h *hold, ans *gateway.ConfirmPaymentResult) ([]render.Field, string) {
	if ans == nil {
		ans = &gateway.ConfirmPaymentResult{}
	}
	fs := []render.Field{
		render.IntField("status_code", ans.StatusCode),
		render.StringField("status_description", ans.StatusDescription),
		render.StringField("transaction_status", ans.TransactionStatus),
		render.StringField("order_id", ans.OrderID),
		render.StringField("invoice_id", ans.InvoiceID),
	}
	fs = append(fs, render.ExtraFields(ans.Extra)...)
	for i := range fs {
		if fs[i].Name == "amount" {
			fs[i].Text = op.amountText(h, fs[i])
		}
	}
	if !op.capture() && h.held != "" {
		// The gateway's answer to a cancel says amount 0 (nothing taken);
		// what was released is what the pre-authorization held.
		fs = append(fs, render.Field{Name: "released_amount", JSON: json.RawMessage(h.held), Text: render.Amount(h.held, h.currency)})
	}
	held := render.Amount(h.held, h.currency)
	var verdict string
	switch {
	case op.capture() && h.Amount != "":
		verdict = fmt.Sprintf("Captured %s of the %s held, invoice %s", render.Amount(h.Amount, h.currency), held, redact.Invoice(h.Invoice))
	case op.capture():
		verdict = fmt.Sprintf("Captured the %s held, invoice %s", held, redact.Invoice(h.Invoice))
	default:
		verdict = fmt.Sprintf("Released the %s held, invoice %s", held, redact.Invoice(h.Invoice))
	}
	return fs, verdict
}
