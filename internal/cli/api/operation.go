package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// operation is a request to a path that moves money, on the money-moving
// pipeline. Its input is the request as built from the flags; paycli knows
// nothing of its shape beyond the fields every payment and refund of the
// protocol shares (invoice_id, total or amount, currency_code, a card
// number, a refund's refund_transaction_id), which go into the summary
// and the journal.
type operation struct {
	printer printer
	// call is what the request does with money (gateway.MoneyCallOf).
	call gateway.MoneyCall
}

// A request is sent with gateway.Client.Do and printed as it came.
var (
	_ moneyop.Operation[*request, gateway.Request, *gateway.Response] = operation{}
	_ moneyop.AnswerPrinter[*gateway.Response]                        = operation{}
)

// Call sends the request, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.Request) (*gateway.Response, error) {
	return client.Do(ctx, req)
}

// Kind is the journal kind of the call: the kind of the command that
// makes it when paycli has one (a refund, a capture…), which the client
// names the call by (gateway.MoneyCall), so that the same guards, the
// invoice's lock and reconcile see it whichever command sent it; api for
// a payment paycli has no command for.
func (op operation) Kind() string {
	if op.call == gateway.MoneyPayment {
		return KindAPI
	}
	return string(op.call)
}

// maxRefLen bounds a refund_transaction_id, as a refund batch's id is.
const maxRefLen = 64

// Check refuses an invoice_id, or a refund's refund_transaction_id, that
// no other command would send: the journal and the suggested command
// lines carry them.
func (op operation) Check(r *request) (*request, error) {
	inv, ok, err := r.body.Text("invoice_id")
	if err != nil {
		return nil, cmdutil.UsageErrorf("%v", err)
	}
	if ok {
		if err := invoiceid.Check(inv); err != nil {
			return nil, cmdutil.UsageErrorf("invalid invoice_id: %v", err)
		}
	}
	if op.call != gateway.MoneyRefund {
		return r, nil
	}
	ref, ok, err := r.body.Text(refundIDField)
	switch {
	case err != nil:
		return nil, cmdutil.UsageErrorf("%v", err)
	case ok && (invoiceid.Check(ref) != nil || len(ref) > maxRefLen || strings.ContainsFunc(ref, func(c rune) bool { return c > unicode.MaxASCII })):
		return nil, cmdutil.UsageErrorf("invalid %s: an id is up to %d ASCII characters, no '|', no control characters", refundIDField, maxRefLen)
	}
	return r, nil
}

// refundIDField is the refund's own id in its body: the gateway makes a
// refund with it at most once.
const refundIDField = "refund_transaction_id"

// ref is the request's refund_transaction_id, for a refund; "" otherwise.
func (op operation) ref(r *request) string {
	if op.call != gateway.MoneyRefund {
		return ""
	}
	ref, _, _ := r.body.Text(refundIDField)
	return ref
}

func (operation) Invoice(r *request) string {
	inv, _, _ := r.body.Text("invoice_id")
	return inv
}

// Describe says what the request is, with what its body names; the
// request goes as it was built.
func (op operation) Describe(r *request) (moneyop.Description, gateway.Request) {
	call := r.Method + " " + r.name
	d := moneyop.Description{
		Title: "API request that moves money",
		Noun:  "request",
		// A refused request moved nothing, whichever money path it took.
		NotDone: "nothing was processed",
		Rows:    [][2]string{{"Request", call}},
		Prompt:  fmt.Sprintf("Send %s? It may move money.", call),
	}
	if inv := op.Invoice(r); inv != "" {
		d.Rows = append(d.Rows, [2]string{"Invoice", inv})
	}
	amount, _, _ := r.body.Text("total")
	if amount == "" {
		amount, _, _ = r.body.Text("amount")
	}
	d.Currency, _, _ = r.body.Text("currency_code")
	if amount != "" {
		d.Amount = amount
		d.Rows = append(d.Rows, [2]string{"Amount", strings.TrimSpace(amount + " " + d.Currency)})
	}
	for _, m := range r.body {
		v, _, _ := r.body.Text(m.Key)
		switch {
		case v == "":
		case gateway.IsCardField(m.Key) && d.Card == "":
			d.Card = redact.CardField(v)
			d.Rows = append(d.Rows, [2]string{"Card", d.Card})
			d.Secrets = append(d.Secrets, v)
		case gateway.IsSecretField(m.Key):
			d.Secrets = append(d.Secrets, v)
		}
	}
	if d.Ref = op.ref(r); d.Ref != "" {
		d.Rows = append(d.Rows, [2]string{"Ref", d.Ref})
	}
	return d, r.Request
}

// Classify reads the answer as the client reads its own calls'
// (gateway.Response.Err, with the one success check of every money
// answer): a success that names another invoice than the one sent, or
// whose own fields say the payment failed, is unknown, never a success.
func (op operation) Classify(r *request, res *gateway.Response, err error) moneyop.Outcome {
	if err == nil {
		err = res.Err()
	}
	var o moneyop.Outcome
	switch {
	case err != nil:
		o = moneyop.ClassifyError(r.name, err)
	case res.Page():
		// A 3D payment's answer is the page the buyer's browser shows:
		// the request did what it does, and the buyer decides the rest.
		o = moneyop.Outcome{Class: journal.Succeeded, Message: pageNote}
	default:
		a := readAnswer(res.Body)
		o = moneyop.Outcome{Class: journal.Succeeded, StatusCode: a.StatusCode, OrderNo: a.OrderNo, Message: a.Description}
	}
	if ref := op.ref(r); ref != "" && o.Class == journal.Unknown {
		// As a refund of paycli refund: its id makes it at most once.
		o.Hint = "Re-send the same refund (the gateway makes it at most once): " + cmdutil.RefundRetryCommandLine(ref, op.printer.opts.GatewayFlags)
	}
	if op.Invoice(r) == "" && (o.Class == journal.Unknown || o.Class == journal.Duplicate) {
		// No invoice to check the status of: the journal holds the attempt.
		o.Hint = "The attempt is recorded in the journal: paycli journal"
	}
	return o
}

// answer is what the pipeline needs of a money-moving answer: the fields
// sit at the top level or under data, depending on the call.
type answer struct {
	StatusCode  *int
	Description string
	OrderNo     string
}

func readAnswer(body []byte) answer {
	var top struct {
		StatusCode        *json.Number    `json:"status_code"`
		StatusDescription string          `json:"status_description"`
		Data              json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(body, &top)
	var a answer
	if top.StatusCode != nil {
		if n, err := top.StatusCode.Int64(); err == nil {
			code := int(n)
			a.StatusCode = &code
		}
	}
	a.Description = render.Escape(top.StatusDescription)
	for _, src := range [][]byte{top.Data, body} {
		o, err := gateway.ParseObject(src)
		if err != nil {
			continue
		}
		for _, name := range []string{"order_no", "order_id"} {
			if v, _, _ := o.Text(name); v != "" && a.OrderNo == "" {
				a.OrderNo = render.Escape(v)
			}
		}
	}
	return a
}

// Result gives no fields (PrintAnswer prints the answer) and the verdict
// on a stderr terminal.
// pageNote is what a 3D page answer means, for the journal and a person.
const pageNote = "the gateway answered with its 3D page; the payment is decided when the buyer answers it"

func (op operation) Result(r *request, res *gateway.Response) ([]render.Field, string) {
	if res.Page() {
		verdict := fmt.Sprintf("Sent %s %s: %s", r.Method, r.name, pageNote)
		if inv := op.Invoice(r); inv != "" {
			line, note := cmdutil.InvoiceCommandLine([]string{"status"}, inv, cmdutil.InvoiceAsGiven, op.printer.opts.GatewayFlags)
			verdict += "; see how it ends with: " + line + note
		}
		return nil, verdict
	}
	a := readAnswer(res.Body)
	verdict := fmt.Sprintf("Sent %s %s: status_code 100", r.Method, r.name)
	if a.StatusCode != nil {
		verdict = fmt.Sprintf("Sent %s %s: status_code %d", r.Method, r.name, *a.StatusCode)
	}
	if a.OrderNo != "" {
		verdict += ", order " + a.OrderNo
	}
	return nil, verdict
}

func (op operation) PrintAnswer(ctx context.Context, res *gateway.Response) error {
	if res == nil {
		return nil
	}
	return op.printer.print(ctx, res)
}
