package complete

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

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

// input is one completion as given: flags, or a batch line.
type input struct {
	Invoice string `json:"invoice"`
	OrderID string `json:"order_id"`
}

// sale is an input and, once prepared, what check status showed of it.
type sale struct {
	input
	amount, currency, card string
	// undecided: check status could not tell whether the sale waits for
	// the merchant; the gateway decides.
	undecided string
}

// operation is /payment/complete, a completion or a cancellation: what
// the money-moving pipeline needs to know of it.
type operation struct {
	cancel bool
	// flags are the global flags (--profile, --sandbox) a suggested
	// command repeats.
	flags []string
}

var (
	_ moneyop.Operation[*sale, gateway.CompletePaymentRequest, *gateway.CompletePaymentResult] = operation{}
	_ moneyop.LineParser[*sale]                                                                = operation{}
	_ moneyop.Preparer[*sale]                                                                  = operation{}
)

// Call sends the payment/complete, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.CompletePaymentRequest) (*gateway.CompletePaymentResult, error) {
	return client.CompletePayment(ctx, req)
}

// Kind is the journal kind of its attempts: a completion and a
// cancellation are two kinds, never read one for the other.
func (op operation) Kind() string {
	if op.cancel {
		return KindCancel
	}
	return KindComplete
}

func (op operation) status() string {
	if op.cancel {
		return gateway.CompleteStatusCancel
	}
	return gateway.CompleteStatusComplete
}

// Invoice is the 3D payment's invoice.
func (operation) Invoice(s *sale) string {
	if s == nil {
		return ""
	}
	return s.Invoice
}

// ParseLine reads one batch line strictly: {"invoice","order_id"}.
func (operation) ParseLine(text []byte) (*sale, error) {
	s := &sale{}
	if err := strictjson.Unmarshal(text, &s.input); err != nil {
		return s, err
	}
	return s, nil
}

// maxOrderID bounds an order id; the gateway's are about 20 characters.
const maxOrderID = 64

// Check validates the invoice id (the one rule) and the order id, when one
// is given (Prepare takes the invoice's own otherwise): no '|' (it
// separates the hash_key's fields), no blanks, printable. Neither is
// trimmed: what is checked is what is sent.
func (operation) Check(s *sale) (*sale, error) {
	out := &sale{input: input{Invoice: s.Invoice, OrderID: s.OrderID}}
	if err := invoiceid.Check(out.Invoice); err != nil {
		return nil, &moneyop.FieldError{Field: "invoice", Err: err}
	}
	switch o := out.OrderID; {
	case o == "":
	case len(o) > maxOrderID:
		return nil, &moneyop.FieldError{Field: "order-id", Err: fmt.Errorf("the order id is longer than %d characters", maxOrderID)}
	case strings.Contains(o, "|"):
		return nil, &moneyop.FieldError{Field: "order-id", Err: errors.New("an order id may not contain '|' (it separates the hash_key's fields)")}
	case strings.IndexFunc(o, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return nil, &moneyop.FieldError{Field: "order-id", Err: errors.New("the order id holds blanks or control characters")}
	}
	return out, nil
}

// Prepare looks the invoice up: it must be the order's, and a 3D sale
// that waits for the merchant. Anything else exits 4 with nothing sent.
// Check status may not say which step a pending sale waits for (the
// sandbox does, in three_d_status); then the summary says so and the
// gateway decides.
func (op operation) Prepare(ctx context.Context, env *moneyop.Env, s *sale) (*sale, error) {
	st, err := env.LookUp(ctx, s.Invoice)
	reject := func(format string, args ...any) error {
		return cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf(format+"; nothing was sent", args...),
			"See it with: "+env.StatusCommand(s.Invoice))
	}
	pending := errors.Is(err, gateway.ErrPending)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		return nil, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("no transaction with invoice %s; nothing was sent", redact.Invoice(s.Invoice)),
			"Check the invoice id of the 3D payment.")
	case errors.As(err, new(*gateway.InconsistentError)):
		// An answer about another sale decides nothing here.
		return nil, fmt.Errorf("%w; nothing was sent", err)
	case err != nil && !pending:
		return nil, err
	}
	out := *s
	if s.OrderID == "" {
		// No --order-id: the invoice's own, as check status names it.
		if st == nil || st.OrderID == "" {
			return nil, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("check status names no order id for invoice %s; nothing was sent", redact.Invoice(s.Invoice)),
				"Give the order id of its 3D result with --order-id.")
		}
		out.OrderID = st.OrderID
	}
	if st == nil {
		// A pending answer whose fields could not be read.
		out.undecided = "check status says only that it is not processed yet"
		return &out, nil
	}
	if st.OrderID != "" && st.OrderID != out.OrderID {
		return nil, reject("order %s is not the order of invoice %s", s.OrderID, redact.Invoice(s.Invoice))
	}
	switch {
	case st.CompletedByGateway():
		return nil, reject("invoice %s is completed by the gateway (payment_completed_by app), not by the merchant", redact.Invoice(s.Invoice))
	case st.AwaitsChallenge():
		return nil, reject("the buyer has not answered the 3D challenge of invoice %s yet", redact.Invoice(s.Invoice))
	case !pending:
		if why := settled(st.TransactionStatus); why != "" {
			return nil, reject("invoice %s %s", redact.Invoice(s.Invoice), why)
		}
		if !st.AwaitsCompletion() {
			out.undecided = fmt.Sprintf("check status says transaction_status %q", render.Escape(redact.Cards(st.TransactionStatus)))
		}
	case !st.AwaitsCompletion():
		out.undecided = "check status says only that it is not processed yet (status_code 69)"
	}
	out.currency = strings.ToUpper(strings.TrimSpace(st.CurrencyCode()))
	if d, ok := st.TransactionAmount.Decimal(); ok {
		out.amount = d.String()
		if minor, ok := money.MinorUnit(out.currency); ok {
			out.amount = d.StringFixed(minor)
		}
	}
	out.card = redact.Cards(st.CardNo())
	return &out, nil
}

// settled says why a sale check status answered for (status_code 100) is
// past completion, "" when its transaction_status does not say so.
func settled(status string) string {
	switch sale := (&gateway.CheckStatusResult{TransactionStatus: status}).Sale(); {
	case sale.Taken():
		return fmt.Sprintf("was already completed (transaction_status %q): nothing is charged twice", render.Escape(status))
	case sale.Voided():
		return fmt.Sprintf("was cancelled (transaction_status %q)", render.Escape(status))
	case sale.Failed():
		return fmt.Sprintf("failed (transaction_status %q): there is nothing to complete", render.Escape(status))
	}
	return ""
}

// Describe says what the completion or cancellation does, and builds its
// payment/complete request; the gateway client signs it (the complete
// layout merchant_key|invoice_id|order_id|status).
func (op operation) Describe(s *sale) (moneyop.Description, gateway.CompletePaymentRequest) {
	amount := render.Amount(s.amount, s.currency)
	if amount == "" {
		amount = "unknown"
	}
	card := render.CardOf(s.card)
	if card == "" {
		card = "unknown"
	}
	d := moneyop.Description{Amount: s.amount, Currency: s.currency, Card: s.card}
	if op.cancel {
		d.Title, d.Noun, d.NotDone = "3D payment cancellation", "cancellation", "nothing was cancelled"
		d.Prompt = fmt.Sprintf("Cancel the 3D payment of %s on %s (nothing is taken)?", amount, card)
	} else {
		d.Title, d.Noun = "3D payment completion", "completion"
		d.Prompt = fmt.Sprintf("Complete the 3D payment: charge %s to %s?", amount, card)
	}
	d.Rows = [][2]string{{"Amount", amount}, {"Card", card}, {"Invoice", s.Invoice}, {"Order", s.OrderID}}
	if s.undecided != "" {
		d.Rows = append(d.Rows, [2]string{"Status", s.undecided + "; whether it waits for the merchant, the gateway decides"})
	}
	return d, gateway.CompletePaymentRequest{InvoiceID: s.Invoice, OrderID: s.OrderID, Status: op.status()}
}

// Classify turns a payment/complete answer into an outcome. status_code
// 117 (already completed or cancelled) is a duplicate: this call took
// nothing. A success about another invoice or order, a completion that
// says it is not paid, or a status naming the other action or a failure,
// comes from the client as an *gateway.InconsistentError: unknown.
func (op operation) Classify(s *sale, ans *gateway.CompletePaymentResult, err error) moneyop.Outcome {
	if err != nil {
		o := moneyop.ClassifyError(gateway.EndpointCompletePayment, err)
		if o.Class == journal.Duplicate && s != nil {
			o.Say = fmt.Sprintf("the 3D payment of invoice %s was already completed or cancelled; this call charged nothing", redact.Invoice(s.Invoice))
		}
		if o.OrderNo == "" && ans != nil {
			o.OrderNo = ans.OrderNo
		}
		return o
	}
	if ans == nil {
		ans = &gateway.CompletePaymentResult{}
	}
	orderNo := ans.OrderNo
	if orderNo == "" {
		orderNo = ans.OrderID
	}
	return moneyop.Success(orderNo, ans.StatusDescription)
}

// Result is the answer's fields (never its hash_key), and the verdict a
// person reads on a terminal.
func (op operation) Result(s *sale, ans *gateway.CompletePaymentResult) ([]render.Field, string) {
	if ans == nil {
		ans = &gateway.CompletePaymentResult{}
	}
	fs := []render.Field{
		render.StringField("status_description", ans.StatusDescription),
		render.StringField("status", ans.Status),
		render.IntField("service_status", ans.ServiceStatus),
		render.StringField("order_no", ans.OrderNo),
		render.StringField("order_id", ans.OrderID),
		render.StringField("invoice_id", ans.InvoiceID),
		render.StringField("service_payment_method", ans.ServicePaymentMethod),
		render.StringField("credit_card_no", redact.Cards(ans.CreditCardNo)),
		render.StringField("transaction_type", ans.TransactionType),
		render.IntField("payment_status", ans.PaymentStatus),
		render.StringField("payment_method", ans.PaymentMethod),
		render.StringField("auth_code", ans.AuthCode),
		render.IntField("installment", ans.Installment),
		render.ValueField("amount", ans.Amount),
	}
	fs = append(fs, render.ExtraFields(ans.Extra)...)
	amount := render.Amount(s.amount, s.currency)
	verdict := fmt.Sprintf("Completed the 3D payment of %s, invoice %s, order %s", amount, redact.Invoice(s.Invoice), s.OrderID)
	if strings.EqualFold(strings.TrimSpace(ans.TransactionType), "PreAuth") {
		// Completing a pre-authorization takes nothing yet: the amount
		// stays held until it is captured or cancelled. The commands reach
		// the same gateway, and never name an invoice id that is a card
		// number (cmdutil.InvoiceCommandLine).
		capture, note := cmdutil.InvoiceCommandLine([]string{"preauth", "capture"}, s.Invoice, cmdutil.InvoiceAsGiven, op.flags)
		release, _ := cmdutil.InvoiceCommandLine([]string{"preauth", "cancel"}, s.Invoice, cmdutil.InvoiceAsGiven, op.flags)
		verdict = fmt.Sprintf("Completed the 3D pre-authorization of %s, invoice %s, order %s: the amount is held. "+
			"Capture it with: %s; or release it with: %s%s",
			amount, redact.Invoice(s.Invoice), s.OrderID, capture, release, note)
	}
	if op.cancel {
		verdict = fmt.Sprintf("Cancelled the 3D payment of %s, invoice %s: nothing was taken", amount, redact.Invoice(s.Invoice))
	}
	return fs, verdict
}
