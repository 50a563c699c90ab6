package link

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/contact"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Limits of what the gateway takes in a link (the sandbox keeps the same).
const (
	maxInstallments = 12
	maxDescription  = 255
	maxItems        = 100
)

// input is one link as given by the flags.
type input struct {
	Invoice, Amount, Currency string
	// Items are the --item values as given: NAME:PRICE[:QUANTITY].
	Items                []string
	Description          string
	Name, Surname        string
	Email, Phone         string
	MaxInstallments      int
	ReturnURL, CancelURL string
}

// request is an input that passed the checks: its amount and items read,
// the phone as the digits the gateway takes.
type request struct {
	input
	amount decimal.Decimal
	items  []gateway.PaymentLinkItem
	phone  string
}

// operation is purchase/link: what the pipeline needs to know of it.
type operation struct {
	// terminal: the result goes to a terminal, which gets a QR code too,
	// if it fits in width columns.
	terminal bool
	width    int
	// gatewayFlags are repeated in the suggested `paycli status` line.
	gatewayFlags []string
}

var (
	_ moneyop.Operation[*request, gateway.PaymentLinkRequest, *gateway.PaymentLinkResult] = operation{}
	_ moneyop.PlainPrinter[*request, *gateway.PaymentLinkResult]                          = operation{}
)

// KindLink is the journal kind of `paycli link create`: a payment link
// made for an invoice. It moves no money itself, but it takes the
// invoice: a buyer pays the invoice through the link later.
const KindLink = "link"

// Kind is KindLink.
func (operation) Kind() string { return KindLink }

// Kinds is everything the rest of paycli says about a link
// (journal.Kind): check status settles one of unknown outcome by its
// invoice (readLink); it is spoken of by its kind's name.
func Kinds() []journal.Kind { return []journal.Kind{{Name: KindLink, Read: readLink}} }

// readLink: a sale marked as a link's (link_status), paid or not, means
// the link was made; a sale that no link made means it was refused
// (Declined): the gateway takes an invoice once, so a link for an invoice
// another sale had taken was refused. No transaction with the invoice
// (31) is NotFound, which is never final (journal.Settle): the link may
// still be made.
// A sale still waiting for a step, with no answer to read, says nothing
// yet.
func readLink(_ journal.Attempt, c journal.Check) journal.Finding {
	switch {
	case errors.Is(c.Err, gateway.ErrNotFound):
		return journal.Finding{Outcome: journal.NotFound}
	case c.Res != nil && c.Res.LinkStatus() != "":
		return journal.Finding{Outcome: journal.Succeeded}
	case c.Res == nil:
		return journal.Finding{Message: "check status names no sale to read yet; ask again later"}
	}
	return journal.Finding{Outcome: journal.Declined,
		Message: "the invoice's sale was not made through a link (no link_status): the gateway had taken the invoice, so it refused the link"}
}

// Invoice is the link's invoice.
func (operation) Invoice(r *request) string {
	if r == nil {
		return ""
	}
	return r.Invoice
}

// Call sends purchase/link, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.PaymentLinkRequest) (*gateway.PaymentLinkResult, error) {
	return client.CreatePaymentLink(ctx, req)
}

func fieldErr(field string, format string, args ...any) error {
	return &moneyop.FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Check validates a link in the order a person would fix it. The e-mail
// and phone are never quoted: errors may end up in logs.
func (operation) Check(r *request) (*request, error) {
	in := r.input
	if err := invoiceid.Check(in.Invoice); err != nil {
		return nil, &moneyop.FieldError{Field: "invoice", Err: err}
	}
	cur, err := money.CheckCode(in.Currency)
	if err != nil {
		return nil, &moneyop.FieldError{Field: "currency", Err: err}
	}
	in.Currency = cur.Code
	amount, err := money.ParseAmount(in.Amount)
	if err != nil {
		return nil, &moneyop.FieldError{Field: "amount", Err: err}
	}
	if money.CheckDecimals(amount, cur) != nil {
		return nil, fieldErr("amount", "%s amounts have %d decimals", cur.Code, cur.MinorUnit)
	}
	in.Name, in.Surname = strings.TrimSpace(in.Name), strings.TrimSpace(in.Surname)
	in.Description = strings.TrimSpace(in.Description)
	switch {
	case in.Name == "":
		return nil, fieldErr("name", "the customer's first name is empty")
	case in.Surname == "":
		return nil, fieldErr("surname", "the customer's last name is empty")
	case hasControl(in.Name) || hasControl(in.Surname):
		return nil, fieldErr("name", "the customer's name holds control characters")
	case hasControl(in.Description):
		return nil, fieldErr("description", "the description holds control characters")
	case utf8.RuneCountInString(in.Description) > maxDescription:
		return nil, fieldErr("description", "longer than %d characters", maxDescription)
	case in.MaxInstallments < 1 || in.MaxInstallments > maxInstallments:
		return nil, fieldErr("max-installments", "%d: give 1 to %d", in.MaxInstallments, maxInstallments)
	}
	out := &request{amount: amount}
	if in.Email = strings.TrimSpace(in.Email); in.Email != "" {
		if err := contact.Email(in.Email); err != nil {
			return nil, &moneyop.FieldError{Field: "email", Err: err}
		}
	}
	if in.Phone = strings.TrimSpace(in.Phone); in.Phone != "" {
		if out.phone, err = contact.Phone(in.Phone); err != nil {
			return nil, &moneyop.FieldError{Field: "phone", Err: err}
		}
	}
	if in.CancelURL == "" {
		in.CancelURL = in.ReturnURL
	}
	for _, f := range []struct{ name, value string }{{"return-url", in.ReturnURL}, {"cancel-url", in.CancelURL}} {
		if err := checkURL(f.value); err != nil {
			return nil, &moneyop.FieldError{Field: f.name, Err: err}
		}
	}
	if out.items, err = readItems(in, amount, cur); err != nil {
		return nil, err
	}
	out.input = in
	return out, nil
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// checkURL requires an absolute http or https URL, as the gateway does.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || hasControl(s) {
		return errors.New("not an http or https URL like https://shop.example/thanks")
	}
	return nil
}

// readItems reads the --item lines, whose prices times quantities must
// add up to the amount; without any, the link has one line for it.
func readItems(in input, amount decimal.Decimal, cur money.Currency) ([]gateway.PaymentLinkItem, error) {
	if len(in.Items) == 0 {
		name := in.Description
		if name == "" {
			name = "Invoice " + in.Invoice
		}
		return []gateway.PaymentLinkItem{{Name: name, Price: amount.StringFixed(cur.MinorUnit), Quantity: 1}}, nil
	}
	if len(in.Items) > maxItems {
		return nil, fieldErr("item", "more than %d lines", maxItems)
	}
	items := make([]gateway.PaymentLinkItem, 0, len(in.Items))
	sum := decimal.Zero
	for _, text := range in.Items {
		it, price, err := ParseItem(text)
		if err != nil {
			return nil, &moneyop.FieldError{Field: "item", Err: err}
		}
		if money.CheckDecimals(price, cur) != nil {
			return nil, fieldErr("item", "the price of %q has more decimals than %s has (%d)", it.Name, cur.Code, cur.MinorUnit)
		}
		it.Price = price.StringFixed(cur.MinorUnit)
		sum = sum.Add(price.Mul(decimal.NewFromInt(int64(it.Quantity))))
		items = append(items, it)
	}
	if !sum.Equal(amount) {
		return nil, fieldErr("item", "the lines add up to %s, not the --amount %s", sum.StringFixed(cur.MinorUnit), amount.StringFixed(cur.MinorUnit))
	}
	return items, nil
}

// maxQuantity bounds an item's quantity.
const maxQuantity = 1_000_000

// ParseItem reads an --item value, NAME:PRICE or NAME:PRICE:QUANTITY
// (quantity 1 when left out): the price and quantity are taken from the
// end, so that a name may hold a colon when the quantity is given
// ("Tea: green:50.00:1").
func ParseItem(s string) (gateway.PaymentLinkItem, decimal.Decimal, error) {
	var it gateway.PaymentLinkItem
	parts := strings.Split(s, ":")
	if len(parts) < 2 {
		return it, decimal.Zero, errors.New("write NAME:PRICE or NAME:PRICE:QUANTITY, e.g. Lamp:150.00:2")
	}
	it.Quantity = 1
	if len(parts) >= 3 {
		q, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil || q < 1 || q > maxQuantity {
			return it, decimal.Zero, fmt.Errorf("the quantity of a line is a whole number from 1 to %d", maxQuantity)
		}
		it.Quantity = q
		parts = parts[:len(parts)-1]
	}
	price, err := money.ParseAmount(parts[len(parts)-1])
	if err != nil {
		return it, decimal.Zero, fmt.Errorf("the price %w", err)
	}
	it.Name = strings.TrimSpace(strings.Join(parts[:len(parts)-1], ":"))
	switch {
	case it.Name == "":
		return it, decimal.Zero, errors.New("a line's name is empty")
	case !utf8.ValidString(it.Name) || hasControl(it.Name):
		return it, decimal.Zero, errors.New("a line's name holds control characters or is not UTF-8")
	case utf8.RuneCountInString(it.Name) > maxDescription:
		return it, decimal.Zero, fmt.Errorf("a line's name is longer than %d characters", maxDescription)
	}
	return it, price, nil
}

// Describe says what the link does, and builds its request.
func (operation) Describe(r *request) (moneyop.Description, gateway.PaymentLinkRequest) {
	amount := r.amount.StringFixed(mustMinor(r.Currency))
	rows := [][2]string{
		{"Invoice", redact.Invoice(r.Invoice)},
		{"Amount", render.Amount(amount, r.Currency)},
		{"Customer", r.Name + " " + r.Surname},
	}
	if r.Email != "" {
		rows = append(rows, [2]string{"E-mail", r.Email})
	}
	if r.phone != "" {
		rows = append(rows, [2]string{"Phone", "+" + r.phone})
	}
	for _, it := range r.items {
		rows = append(rows, [2]string{"Item", fmt.Sprintf("%s, %d × %s", it.Name, it.Quantity, it.Price)})
	}
	rows = append(rows, [2]string{"Installments", fmt.Sprintf("up to %d", r.MaxInstallments)})
	d := moneyop.Description{
		Title:    "Payment link (no money moves until the customer pays)",
		Noun:     "link",
		NotDone:  "no link was made",
		Rows:     rows,
		Prompt:   fmt.Sprintf("Make a payment link of %s for invoice %s, to %s %s?", render.Amount(amount, r.Currency), redact.Invoice(r.Invoice), r.Name, r.Surname),
		Amount:   amount,
		Currency: r.Currency,
		// The e-mail and phone never reach the journal; the customer's
		// name does: the link was sent to them.
		Secrets: []string{r.Email, r.Phone, r.phone},
	}
	return d, gateway.PaymentLinkRequest{
		InvoiceID: r.Invoice, InvoiceDescription: r.Description, Total: amount, CurrencyCode: r.Currency,
		Items: r.items, MaxInstallment: r.MaxInstallments, ReturnURL: r.ReturnURL, CancelURL: r.CancelURL,
		Name: r.Name, Surname: r.Surname, BillEmail: r.Email, BillPhone: r.phone,
	}
}

// mustMinor is a checked currency's decimals.
func mustMinor(code string) int32 {
	minor, _ := money.MinorUnit(code)
	return minor
}

// Classify turns the answer into an outcome: a link made is Succeeded
// (no money moved: the journal's kind says so).
// Its journal message says which link went to whom ("link https://… for
// Ayşe Yılmaz"): the journal line already says who sent it (its profile,
// and the operator in a desk's shared journal).
func (operation) Classify(r *request, res *gateway.PaymentLinkResult, err error) moneyop.Outcome {
	if err != nil {
		return moneyop.ClassifyError(gateway.EndpointPaymentLink, err)
	}
	if res == nil {
		res = &gateway.PaymentLinkResult{}
	}
	return moneyop.Success(res.OrderID, fmt.Sprintf("link %s for %s %s", res.Link, r.Name, r.Surname))
}

// Result is the link's fields, and the verdict a person reads on a
// terminal, which says how to follow the link up.
func (op operation) Result(r *request, res *gateway.PaymentLinkResult) ([]render.Field, string) {
	if res == nil {
		res = &gateway.PaymentLinkResult{}
	}
	fs := []render.Field{
		render.StringField("link", res.Link),
		render.StringField("invoice_id", r.Invoice),
		render.StringField("order_id", res.OrderID),
		render.StringField("amount", r.amount.StringFixed(mustMinor(r.Currency))),
		render.StringField("currency", r.Currency),
		render.StringField("status_description", res.StatusDescription),
	}
	verdict := fmt.Sprintf("Payment link made for invoice %s (%s); no money moves until the customer pays.",
		redact.Invoice(r.Invoice), render.Amount(r.amount.StringFixed(mustMinor(r.Currency)), r.Currency))
	if !op.terminal {
		// On a terminal stdout says it, under the QR code.
		verdict += "\n" + op.followUp(r)
	}
	return fs, verdict
}

// followUp is the line that says how to see whether the link was paid.
func (op operation) followUp(r *request) string {
	return "Follow it up: " + cmdutil.StatusCommandLine(r.Invoice, op.gatewayFlags)
}

// PrintPlain prints the link alone, for a pipeline, and on a terminal a
// QR code of it and how to follow it up.
func (op operation) PrintPlain(w io.Writer, r *request, res *gateway.PaymentLinkResult) error {
	if _, err := fmt.Fprintln(w, res.Link); err != nil {
		return err
	}
	if !op.terminal {
		return nil
	}
	if err := WriteQR(w, res.Link, op.width); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, op.followUp(r))
	return err
}
