package walletpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/paycli/paycli/internal/contact"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/strictjson"
	"github.com/paycli/paycli/internal/wallettoken"
)

// input is one payment as given: flags, or one line of a batch.
type input struct {
	Invoice string `json:"invoice"`
	Token   string `json:"token"`
	Name    string `json:"name"`
	Surname string `json:"surname"`
	Email   string `json:"email"`
}

// payment is an input that passed the checks made before anything exists;
// claims is the token's content, decoded but not yet checked for expiry.
type payment struct {
	input
	claims *wallettoken.Claims
}

// operation is walletPay: what the money-moving pipeline needs to know of
// it.
type operation struct {
	// now is the clock the token's expiry is checked against.
	now func() time.Time
}

var (
	_ moneyop.Operation[*payment, gateway.WalletPayRequest, *gateway.WalletPayResult] = operation{}
	_ moneyop.LineParser[*payment]                                                    = operation{}
	_ moneyop.Preparer[*payment]                                                      = operation{}
)

// Kind is the journal kind of a wallet payment's attempts.
func (operation) Kind() string { return KindWalletPay }

// Invoice is the payment's invoice.
func (operation) Invoice(pm *payment) string {
	if pm == nil {
		return ""
	}
	return pm.Invoice
}

// Call sends the walletPay, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.WalletPayRequest) (*gateway.WalletPayResult, error) {
	return client.WalletPay(ctx, req)
}

// ParseLine reads one batch line strictly (internal/strictjson): exact key
// names, each once, valid UTF-8; unknown keys are refused so that a
// misspelt key is not silently a missing field.
func (operation) ParseLine(text []byte) (*payment, error) {
	pm := &payment{}
	if err := strictjson.Unmarshal(text, &pm.input); err != nil {
		// The line is refused; a lenient read of its first value only
		// names the line's invoice in the batch result, when it has one.
		_ = json.NewDecoder(bytes.NewReader(text)).Decode(&pm.input)
		var se *strictjson.Error
		if errors.As(err, &se) && strings.HasPrefix(se.Reason, "unknown key ") {
			return pm, fmt.Errorf("%s; the keys are invoice, token, name, surname, email", se.Reason)
		}
		return pm, err
	}
	return pm, nil
}

func fieldErr(field, msg string) error {
	return &moneyop.FieldError{Field: field, Err: errors.New(msg)}
}

// Check validates an input in the order a person would fix it. The e-mail
// is never quoted: errors may end up in logs and batch output. The token
// is decoded here (a token that is not one is bad input); its expiry is
// checked in Prepare, once the journal has had its say.
func (operation) Check(pm *payment) (*payment, error) {
	in := pm.input
	// The invoice id is checked as it is, never trimmed: one rule for
	// every command (internal/invoiceid).
	if err := invoiceid.Check(in.Invoice); err != nil {
		return nil, &moneyop.FieldError{Field: "invoice", Err: err}
	}
	in.Name = strings.TrimSpace(in.Name)
	in.Surname = strings.TrimSpace(in.Surname)
	in.Email = strings.TrimSpace(in.Email)
	in.Token = strings.TrimSpace(in.Token)
	switch {
	case in.Name == "":
		return nil, fieldErr("name", "the payer's first name is empty")
	case in.Surname == "":
		return nil, fieldErr("surname", "the payer's last name is empty")
	case hasControl(in.Name) || hasControl(in.Surname):
		return nil, fieldErr("name", "the payer's name holds control characters")
	case in.Email == "":
		return nil, fieldErr("email", "the payer's e-mail is empty")
	}
	if err := contact.Email(in.Email); err != nil {
		return nil, &moneyop.FieldError{Field: "email", Err: err}
	}
	if in.Token == "" {
		return nil, fieldErr("token", "the wallet token is empty")
	}
	claims, err := wallettoken.Parse(in.Token)
	if err != nil {
		return nil, &moneyop.FieldError{Field: "token", Err: err}
	}
	return &payment{input: in, claims: claims}, nil
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// Prepare checks the token's expiry: it is what goes stale between the
// moment a batch was written and the moment a line is sent.
func (op operation) Prepare(_ context.Context, _ *moneyop.Env, pm *payment) (*payment, error) {
	if err := pm.claims.CheckExpiry(op.now()); err != nil {
		return nil, &moneyop.FieldError{Field: "token", Err: err}
	}
	return pm, nil
}

// Describe says what the payment does, and builds its walletPay request;
// the gateway client signs it with the token's amount and currency. The
// wallet type is never sent: the gateway learns it from the wallet
// provider.
func (operation) Describe(pm *payment) (moneyop.Description, gateway.WalletPayRequest) {
	c := pm.claims
	rows := [][2]string{
		{"Amount", render.Amount(c.Amount, c.Currency)},
		{"Card", render.Card(c.Card.BIN, c.Card.Last4)},
	}
	if c.Wallet != "" {
		rows = append(rows, [2]string{"Wallet", c.Wallet})
	}
	rows = append(rows,
		[2]string{"Invoice", pm.Invoice},
		[2]string{"Payer", pm.Name + " " + pm.Surname},
	)
	d := moneyop.Description{
		Title:    "Wallet payment",
		Rows:     rows,
		Prompt:   fmt.Sprintf("Charge %s to %s?", render.Amount(c.Amount, c.Currency), render.Card(c.Card.BIN, c.Card.Last4)),
		Amount:   c.Amount,
		Currency: c.Currency,
		Card:     c.Card.Masked(),
		Wallet:   c.Wallet,
		Secrets:  []string{pm.Token, pm.Email},
	}
	return d, gateway.WalletPayRequest{
		InvoiceID:            pm.Invoice,
		WalletTransientToken: pm.Token,
		Name:                 pm.Name,
		Surname:              pm.Surname,
		BillEmail:            pm.Email,
		Total:                c.Amount,
		CurrencyCode:         c.Currency,
	}
}

// Classify turns a walletPay's answer into an outcome. A success answer
// whose own data disagrees reaches it as the client's
// *gateway.InconsistentError: the card may or may not have been charged,
// and the outcome is unknown.
func (operation) Classify(_ *payment, data *gateway.WalletPayResult, err error) moneyop.Outcome {
	if err != nil {
		return moneyop.ClassifyError(gateway.EndpointWalletPay, err)
	}
	if data == nil {
		data = &gateway.WalletPayResult{}
	}
	orderNo := data.OrderNo
	if orderNo == "" {
		orderNo = data.OrderID
	}
	return moneyop.Success(orderNo, data.Error)
}

// Result is the payment's fields, and the verdict a person reads on a
// terminal: "Paid 150.00 TRY from 435508******4358, order VP…".
func (operation) Result(pm *payment, data *gateway.WalletPayResult) ([]render.Field, string) {
	if data == nil {
		data = &gateway.WalletPayResult{}
	}
	order := data.OrderNo
	if order == "" {
		order = data.OrderID
	}
	verdict := fmt.Sprintf("Paid %s from %s, order %s", render.Amount(pm.claims.Amount, pm.claims.Currency), render.Card(pm.claims.Card.BIN, pm.claims.Card.Last4), order)
	return ResultFields(data), verdict
}
