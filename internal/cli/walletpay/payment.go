package walletpay

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/journal"
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

// payment is an input that passed every check made before sending.
type payment struct {
	input
	claims *wallettoken.Claims
}

// fieldError is a problem with one field of the input; field is the flag
// name without dashes (the batch key is the same word).
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return fmt.Sprintf("invalid %s: %v", e.field, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

// check validates an input at now, in the order a person would fix it. The
// e-mail is never quoted: errors may end up in logs and batch output.
func check(in input, now time.Time) (*payment, error) {
	in.Invoice = strings.TrimSpace(in.Invoice)
	in.Name = strings.TrimSpace(in.Name)
	in.Surname = strings.TrimSpace(in.Surname)
	in.Email = strings.TrimSpace(in.Email)
	in.Token = strings.TrimSpace(in.Token)
	switch {
	case in.Invoice == "":
		return nil, &fieldError{"invoice", errors.New("the invoice id is empty")}
	case strings.Contains(in.Invoice, "|"):
		return nil, &fieldError{"invoice", errors.New("an invoice id may not contain '|' (it separates the hash_key's fields)")}
	case hasControl(in.Invoice):
		return nil, &fieldError{"invoice", errors.New("the invoice id holds control characters")}
	case in.Name == "":
		return nil, &fieldError{"name", errors.New("the payer's first name is empty")}
	case in.Surname == "":
		return nil, &fieldError{"surname", errors.New("the payer's last name is empty")}
	case hasControl(in.Name) || hasControl(in.Surname):
		return nil, &fieldError{"name", errors.New("the payer's name holds control characters")}
	case in.Email == "":
		return nil, &fieldError{"email", errors.New("the payer's e-mail is empty")}
	}
	if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email || !strings.Contains(addr.Address[strings.LastIndex(addr.Address, "@"):], ".") {
		return nil, &fieldError{"email", errors.New("not an e-mail address like name@example.com")}
	}
	if in.Token == "" {
		return nil, &fieldError{"token", errors.New("the wallet token is empty")}
	}
	claims, err := wallettoken.Parse(in.Token)
	if err != nil {
		return nil, &fieldError{"token", err}
	}
	if err := claims.CheckExpiry(now); err != nil {
		return nil, &fieldError{"token", err}
	}
	return &payment{input: in, claims: claims}, nil
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// payer holds what every payment of a run shares.
type payer struct {
	cfg     *config.Config
	client  *gateway.Client
	journal *journal.Journal
	now     func() time.Time
	newID   func() string
	hashKey func(plaintext string) (string, error)
}

// request builds the walletPay request, hash_key included. The wallet type
// is never sent: the gateway learns it from the wallet provider.
func (p *payer) request(pm *payment) (gateway.WalletPayRequest, error) {
	layout, _ := hashkey.LookupLayout("walletpay")
	plain, err := layout.Plaintext(map[string]string{
		"total":         pm.claims.Amount,
		"installment":   "1",
		"currency_code": pm.claims.Currency,
		"merchant_key":  p.cfg.MerchantKey,
		"invoice_id":    pm.Invoice,
	})
	if err != nil {
		return gateway.WalletPayRequest{}, err
	}
	hk, err := p.hashKey(plain)
	if err != nil {
		return gateway.WalletPayRequest{}, err
	}
	return gateway.WalletPayRequest{
		MerchantKey:          p.cfg.MerchantKey,
		HashKey:              hk,
		InvoiceID:            pm.Invoice,
		WalletTransientToken: pm.Token,
		Name:                 pm.Name,
		Surname:              pm.Surname,
		BillEmail:            pm.Email,
	}, nil
}

// attemptResult is what one attempt came to.
type attemptResult struct {
	class      string
	statusCode *int
	orderNo    string
	data       *gateway.WalletPayResult
	// err is the gateway's error (nil on success).
	err error
	// journalErr is set when the outcome line could not be written.
	journalErr error
}

// errJournal marks a failure to write the intent: nothing was sent.
var errJournal = errors.New("cannot record the attempt in the payment journal; nothing was sent")

// pay makes one attempt: intent line, the request, outcome line. The
// request runs under ctx; the journal writes do not, so that an attempt cut
// off by Ctrl-C or the time limit still records its (unknown) outcome.
func (p *payer) pay(ctx context.Context, pm *payment) (attemptResult, error) {
	req, err := p.request(pm)
	if err != nil {
		return attemptResult{}, err
	}
	entry := journal.Entry{
		Type:     journal.TypeIntent,
		Attempt:  p.newID(),
		Time:     p.now().UTC(),
		Profile:  p.cfg.Profile,
		BaseURL:  p.client.BaseURL(),
		Invoice:  pm.Invoice,
		Amount:   pm.claims.Amount,
		Currency: pm.claims.Currency,
		Card:     pm.claims.Card.Masked(),
		Wallet:   pm.claims.Wallet,
	}
	if err := p.journal.Append(entry); err != nil {
		return attemptResult{}, fmt.Errorf("%w: %v", errJournal, err)
	}
	data, err := p.client.WalletPay(ctx, req)
	res := classify(data, err)
	entry.Type = journal.TypeOutcome
	entry.Time = p.now().UTC()
	entry.Outcome, entry.StatusCode, entry.OrderNo = res.class, res.statusCode, res.orderNo
	if err != nil {
		entry.Message = scrub(err.Error(), pm)
	} else if data != nil {
		entry.Message = scrub(data.Error, pm)
	}
	res.journalErr = p.journal.Append(entry)
	return res, nil
}

// classify turns a walletPay's answer into an outcome class.
func classify(data *gateway.WalletPayResult, err error) attemptResult {
	if err == nil {
		code := gateway.StatusSuccess
		r := attemptResult{class: journal.Succeeded, statusCode: &code, data: data}
		if data != nil {
			r.orderNo = data.OrderNo
			if r.orderNo == "" {
				r.orderNo = data.OrderID
			}
		}
		return r
	}
	r := attemptResult{err: err}
	var apiErr *gateway.APIError
	if errors.As(err, &apiErr) && apiErr.Endpoint != gateway.EndpointWalletPay && errors.Is(err, gateway.ErrUnavailable) {
		// The token call before walletPay was answered, but with a 5xx
		// page or an unreadable body: walletPay was never sent, for want
		// of a gateway (exit 8), as when the token call cannot connect.
		r.class = journal.NotSent
		return r
	}
	if apiErr != nil {
		if apiErr.HasStatusCode {
			code := apiErr.StatusCode
			r.statusCode = &code
		}
		r.orderNo = apiErr.OrderNo
	}
	switch {
	case errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, gateway.ErrPending):
		r.class = journal.Unknown
	case errors.Is(err, gateway.ErrDuplicateInvoice):
		r.class = journal.Duplicate
	case errors.Is(err, gateway.ErrDeclined):
		r.class = journal.Declined
	case apiErr != nil:
		r.class = journal.Rejected
	default:
		r.class = journal.NotSent
	}
	return r
}

// scrub removes what the journal and batch output must never hold from a
// message: the token and the e-mail, should a gateway text echo them.
func scrub(msg string, pm *payment) string {
	for _, secret := range []string{pm.Token, pm.Email} {
		if secret != "" {
			msg = strings.ReplaceAll(msg, secret, "•••")
		}
	}
	return msg
}
