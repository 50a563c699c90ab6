package gateway

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
)

// EndpointPaymentLink names the payment link call in errors.
const EndpointPaymentLink = "purchase/link"

// endpointPaymentLink makes a payment link. It moves no money itself (a
// buyer pays through the link later), but it is sent at most once: the
// gateway takes an invoice once, so a repeat of a link that was made would
// be refused (status_code 3) and read as "not made", and a failure after
// sending leaves the outcome unknown.
var endpointPaymentLink = endpoint{name: EndpointPaymentLink, path: "/purchase/link", auth: true, topLevel: true, once: true}

// PaymentLinkItem is one line of a payment link's invoice, as the
// official PHP SDK's PaymentLinkInvoiceItem sends it.
type PaymentLinkItem struct {
	Name        string
	Price       string
	Quantity    int
	Description string
}

// PaymentLinkRequest makes a payment link (POST /purchase/link), in the
// official PHP SDK's layout (CreatePaymentLinkRequest): merchant_key,
// currency_code, name, surname and invoice, a JSON object sent as a string
// holding invoice_id, invoice_description, total, items, max_installment,
// return_url, cancel_url, bill_email, bill_phone and the hash_key of the
// link layout total|currency_code|merchant_key|invoice_id.
type PaymentLinkRequest struct {
	InvoiceID          string
	InvoiceDescription string
	Total              string
	CurrencyCode       string
	Items              []PaymentLinkItem
	// MaxInstallment is the most installments the buyer may choose; 0
	// leaves it to the gateway (1).
	MaxInstallment int
	// ReturnURL and CancelURL are where the buyer's browser goes after
	// paying or giving up.
	ReturnURL, CancelURL string
	// Name and Surname are the customer's; BillEmail and BillPhone are
	// sent when set.
	Name, Surname        string
	BillEmail, BillPhone string
}

type paymentLinkItemWire struct {
	Name        string      `json:"name"`
	Price       json.Number `json:"price"`
	Quantity    int         `json:"quantity"`
	Description string      `json:"description,omitempty"`
}

type paymentLinkInvoiceWire struct {
	InvoiceID          string                `json:"invoice_id"`
	InvoiceDescription string                `json:"invoice_description,omitempty"`
	Total              json.Number           `json:"total"`
	Items              []paymentLinkItemWire `json:"items"`
	MaxInstallment     int                   `json:"max_installment,omitempty"`
	CancelURL          string                `json:"cancel_url"`
	ReturnURL          string                `json:"return_url"`
	BillPhone          string                `json:"bill_phone,omitempty"`
	BillEmail          string                `json:"bill_email,omitempty"`
	HashKey            string                `json:"hash_key"`
}

type paymentLinkWire struct {
	MerchantKey  string `json:"merchant_key"`
	Invoice      string `json:"invoice"`
	CurrencyCode string `json:"currency_code"`
	Name         string `json:"name"`
	Surname      string `json:"surname"`
}

func (r PaymentLinkRequest) encode(c *Client) (endpoint, []byte, error) {
	ep := endpointPaymentLink
	if err := required("invoice_id", r.InvoiceID, "currency_code", r.CurrencyCode, "name", r.Name, "surname", r.Surname,
		"return_url", r.ReturnURL, "cancel_url", r.CancelURL); err != nil {
		return encodeCall(ep, nil, err)
	}
	if len(r.Items) == 0 {
		return encodeCall(ep, nil, invalidRequest("a payment link needs at least one item"))
	}
	total, err := amountNumber("total", r.Total)
	if err != nil {
		return encodeCall(ep, nil, err)
	}
	inv := paymentLinkInvoiceWire{InvoiceID: r.InvoiceID, InvoiceDescription: r.InvoiceDescription, Total: total,
		MaxInstallment: r.MaxInstallment, CancelURL: r.CancelURL, ReturnURL: r.ReturnURL, BillPhone: r.BillPhone, BillEmail: r.BillEmail}
	for _, it := range r.Items {
		price, err := amountNumber("price", it.Price)
		if err != nil {
			return encodeCall(ep, nil, err)
		}
		if it.Quantity < 1 {
			return encodeCall(ep, nil, invalidRequest("item %s has quantity %d", shownValue(it.Name), it.Quantity))
		}
		inv.Items = append(inv.Items, paymentLinkItemWire{Name: it.Name, Price: price, Quantity: it.Quantity, Description: it.Description})
	}
	inv.HashKey, err = c.hashKey("link", map[string]string{"total": string(total), "currency_code": r.CurrencyCode, "invoice_id": r.InvoiceID})
	if err != nil {
		return encodeCall(ep, nil, err)
	}
	// The SDK sends the invoice as a string holding its JSON.
	invoice, err := json.Marshal(inv)
	if err != nil {
		return encodeCall(ep, nil, err)
	}
	return encodeCall(ep, paymentLinkWire{MerchantKey: c.creds.MerchantKey, Invoice: string(invoice),
		CurrencyCode: r.CurrencyCode, Name: r.Name, Surname: r.Surname}, nil)
}

// PaymentLinkResult is the answer to a made payment link: the fields the
// SDK's PaymentLinkMapper reads, at the top level.
type PaymentLinkResult struct {
	StatusCode        int
	StatusDescription string
	SuccessMessage    string
	// Link is the page the buyer pays through.
	Link    string
	OrderID string
	// Extra holds the other top-level fields, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type paymentLinkResultWire struct {
	StatusCode        flexInt    `json:"status_code"`
	StatusDescription flexString `json:"status_description"`
	SuccessMessage    flexString `json:"success_message"`
	Link              flexString `json:"link"`
	OrderID           flexString `json:"order_id"`
}

// UnmarshalJSON reads the top-level fields leniently (numbers or strings).
func (r *PaymentLinkResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[paymentLinkResultWire](data)
	if err != nil {
		return err
	}
	*r = PaymentLinkResult{StatusCode: int(w.StatusCode), StatusDescription: strings.TrimSpace(string(w.StatusDescription)),
		SuccessMessage: strings.TrimSpace(string(w.SuccessMessage)), Link: strings.TrimSpace(string(w.Link)),
		OrderID: string(w.OrderID), Extra: extra}
	return nil
}

// check is the success check of a link's answer: it must hold a link, an
// absolute http or https URL, or the link was made and cannot be shown.
func (r *PaymentLinkResult) check() error {
	c := checkSuccess(EndpointPaymentLink, r.StatusCode).KeepOrder(r.OrderID)
	u, err := url.Parse(r.Link)
	switch {
	case r.Link == "":
		c.add("it holds no link")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.add("its link %s is not an http or https URL", shownValue(r.Link))
	}
	return c.Err()
}

// CreatePaymentLink makes a payment link. It is sent at most once, never
// retried or repeated after HTTP 401 (endpoint once): status_code 3 (the
// invoice is taken) matches ErrDuplicateInvoice, a failure after sending
// matches ErrOutcomeUnknown, and so does a success answer without a usable
// link (an *InconsistentError, returned with the result).
func (c *Client) CreatePaymentLink(ctx context.Context, req PaymentLinkRequest) (*PaymentLinkResult, error) {
	var out PaymentLinkResult
	if _, err := c.sendCall(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, out.check()
}
