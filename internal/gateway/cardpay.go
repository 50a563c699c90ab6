package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Card payments: paySmart2D, and paySmart3D with the answer to its
// challenge page (docs/protocol.md, card payments). They move money: never
// retried or repeated, and a failure once sent is an unknown outcome.
var (
	endpointPaySmart2D = endpoint{name: EndpointPaySmart2D, path: "/api/paySmart2D", auth: true}
	// A browser posts the 3D form, without a bearer token (the hash_key
	// authenticates it), and takes a page: a refusal is then the form the
	// gateway posts to the cancel_url, as a buyer's browser gets it.
	endpointPaySmart3D = endpoint{name: EndpointPaySmart3D, path: "/api/paySmart3D", contentType: formType, header: &browserAccept}
)

var browserAccept = http.Header{"Accept": {"text/html,application/xhtml+xml"}}

// The Endpoint of the errors of the card payment calls.
const (
	EndpointPaySmart2D = "paySmart2D"
	EndpointPaySmart3D = "paySmart3D"
	// EndpointChallenge names the answer to a 3D challenge page.
	EndpointChallenge = "3d challenge"
)

const formType = "application/x-www-form-urlencoded"

// CardPaymentRequest is a card payment: Auth (a sale) or PreAuth (a
// pre-authorization to capture or cancel later). The client adds its
// merchant_key and the payment's hash_key when it sends it.
type CardPaymentRequest struct {
	InvoiceID          string
	InvoiceDescription string
	// Total is the amount as sent, e.g. "150.00".
	Total           string
	CurrencyCode    string
	Installments    int
	TransactionType string
	CardHolderName  string
	// CardNumber goes to the gateway only; logs and errors mask it.
	CardNumber              string
	ExpiryMonth, ExpiryYear string
	CVV                     string
	Name, Surname           string
	BillEmail               string
	SaleWebHookKey          string
	Items                   []CardPaymentItem
	// ThreeD is for paySmart3D only: who completes the payment (app or
	// merchant) and where the buyer's browser goes after the challenge.
	ThreeD *ThreeDOptions
}

// CardPaymentItem is a line of a card payment's items.
type CardPaymentItem struct {
	Name     string `json:"name"`
	Price    string `json:"price"`
	Quantity int    `json:"quantity"`
}

// ThreeDOptions are the fields only paySmart3D carries.
type ThreeDOptions struct {
	CompletedBy          string
	ReturnURL, CancelURL string
}

// signedFields is the request's body, signed by the client: its fields,
// then merchant_key and the "payment" layout's hash_key.
func (r CardPaymentRequest) signedFields(c *Client) (Object, error) {
	items, err := json.Marshal(r.Items)
	if err != nil {
		return nil, err
	}
	var fields Object
	for _, kv := range [][2]string{
		{"invoice_id", r.InvoiceID}, {"invoice_description", r.InvoiceDescription},
		{"total", r.Total}, {"currency_code", r.CurrencyCode}, {"installments_number", strconv.Itoa(r.Installments)}, {"transaction_type", r.TransactionType},
		{"cc_holder_name", r.CardHolderName}, {"cc_no", r.CardNumber}, {"expiry_month", r.ExpiryMonth}, {"expiry_year", r.ExpiryYear}, {"cvv", r.CVV},
		{"name", r.Name}, {"surname", r.Surname}, {"bill_email", r.BillEmail}, {"sale_web_hook_key", r.SaleWebHookKey},
		{"items", string(items)},
	} {
		raw, err := json.Marshal(kv[1])
		if err != nil {
			return nil, err
		}
		fields = append(fields, Member{Key: kv[0], Value: raw})
	}
	return c.SignObject(fields, Sign{MerchantKey: true, Layout: "payment"})
}

// card2D is the paySmart2D call of a request.
type card2D CardPaymentRequest

func (r card2D) encode(c *Client) (endpoint, []byte, error) {
	signed, err := CardPaymentRequest(r).signedFields(c)
	if err != nil {
		return encodeCall(endpointPaySmart2D, nil, err)
	}
	return encodeCall(endpointPaySmart2D, signed, nil)
}

// card3D is the paySmart3D call of a request: the same fields as a form.
type card3D CardPaymentRequest

func (r card3D) encode(c *Client) (endpoint, []byte, error) {
	signed, err := CardPaymentRequest(r).signedFields(c)
	if err != nil {
		return endpointPaySmart3D, nil, fmt.Errorf("%s: %w", endpointPaySmart3D.name, err)
	}
	form := url.Values{}
	for _, m := range signed {
		v, _, err := signed.Text(m.Key)
		if err != nil {
			return endpointPaySmart3D, nil, fmt.Errorf("%s: %w", endpointPaySmart3D.name, err)
		}
		form.Set(m.Key, v)
	}
	if t := r.ThreeD; t != nil {
		form.Set("payment_completed_by", t.CompletedBy)
		form.Set("return_url", t.ReturnURL)
		form.Set("cancel_url", t.CancelURL)
	}
	return endpointPaySmart3D, []byte(form.Encode()), nil
}

// CardPaymentResult is the data of a card payment's answer, and of the
// answer to a 3D challenge (whose fields sit at the top level).
type CardPaymentResult struct {
	StatusCode        int
	StatusDescription string
	OrderNo           string
	OrderID           string
	InvoiceID         string
	TransactionType   string
}

func (r *CardPaymentResult) UnmarshalJSON(b []byte) error {
	var w struct {
		OrderNo         flexString `json:"order_no"`
		OrderID         flexString `json:"order_id"`
		InvoiceID       flexString `json:"invoice_id"`
		TransactionType flexString `json:"transaction_type"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	// Order numbers are digits that can look like card numbers; they are
	// identifiers, kept whole.
	r.OrderNo, r.OrderID = cleanIdentifier(string(w.OrderNo)), cleanIdentifier(string(w.OrderID))
	r.InvoiceID, r.TransactionType = cleanIdentifier(string(w.InvoiceID)), cleanDescription(string(w.TransactionType))
	return nil
}

// Order is the answer's order id (order_id, or order_no when it has none).
func (r *CardPaymentResult) Order() string {
	if r.OrderID != "" {
		return r.OrderID
	}
	return r.OrderNo
}

// PaySmart2D makes a card payment without 3D Secure. A payment the gateway
// does not take (declined 41, pending 69, an invoice used 3 …) is an
// *APIError with its status_code and order number; a failure after
// sending matches ErrOutcomeUnknown.
func (c *Client) PaySmart2D(ctx context.Context, req CardPaymentRequest) (*CardPaymentResult, error) {
	out := CardPaymentResult{}
	env, err := c.sendCall(ctx, card2D(req), &out)
	if err != nil {
		return nil, err
	}
	out.StatusCode, out.StatusDescription = StatusSuccess, env.description()
	return &out, nil
}

// ThreeDChallenge is the challenge page a 3D payment is answered with: the
// form the buyer's browser shows (the card issuer's, the sandbox's stand-in).
type ThreeDChallenge struct {
	OrderID string
	// Action is where the page posts the buyer's decision.
	Action *url.URL
}

// PaySmart3D starts a card payment with 3D Secure and returns its
// challenge page. A payment refused before the challenge (a JSON answer,
// or the form the gateway posts to the cancel_url) is an *APIError with its
// status_code; a 5xx or a failure after sending matches ErrOutcomeUnknown.
func (c *Client) PaySmart3D(ctx context.Context, req CardPaymentRequest) (*ThreeDChallenge, error) {
	var out Response
	if _, err := c.sendCall(ctx, card3D(req), &out); err != nil {
		return nil, err
	}
	ep := endpointPaySmart3D
	if out.StatusCode >= 500 {
		return nil, &APIError{Endpoint: ep.name, HTTPStatus: out.StatusCode}
	}
	resp := &http.Response{StatusCode: out.StatusCode, Header: out.Header}
	if ct, _, _ := mime.ParseMediaType(out.Header.Get("Content-Type")); ct != "text/html" || out.StatusCode < 200 || out.StatusCode > 299 {
		// A refusal is JSON, as for any call.
		if _, err := c.checkResponse(ep, resp, out.Body, &rawBody{}); err != nil {
			return nil, err
		}
		return nil, c.badResponse(ep, resp, "a success answer that is not the challenge page")
	}
	page := string(out.Body)
	if code, refused := hiddenValue(page, "error_code"); refused {
		// Refused once the cancel_url is known: the form posted there.
		n, err := strconv.Atoi(code)
		if err != nil {
			return nil, c.badResponse(ep, resp, fmt.Sprintf("the refusal page's error_code %s is not a number", strconv.Quote(cleanDescription(code))))
		}
		desc, _ := hiddenValue(page, "status_description")
		order, _ := hiddenValue(page, "order_no")
		return nil, &APIError{Endpoint: ep.name, HTTPStatus: out.StatusCode, StatusCode: n, HasStatusCode: true,
			Description: cleanDescription(desc), OrderNo: cleanIdentifier(order)}
	}
	orderID, ok := hiddenValue(page, "order_id")
	if !ok {
		return nil, c.badResponse(ep, resp, "the challenge page names no order_id")
	}
	action, err := c.formAction(page)
	if err != nil {
		return nil, c.badResponse(ep, resp, err.Error())
	}
	return &ThreeDChallenge{OrderID: orderID, Action: action}, nil
}

// formAction is where the page's form posts, resolved as a browser does
// against the paySmart3D address; it must be under the base URL, since the
// client sends only there.
func (c *Client) formAction(page string) (*url.URL, error) {
	forms := readPageForms([]byte(page))
	if len(forms) == 0 || forms[0].action == "" {
		return nil, fmt.Errorf("the challenge page has no form action")
	}
	ref, err := url.Parse(forms[0].action)
	if err != nil {
		return nil, fmt.Errorf("the challenge page's form action is not a URL")
	}
	u := c.baseURL.JoinPath(endpointPaySmart3D.path).ResolveReference(ref)
	if u.Scheme != c.baseURL.Scheme || u.Host != c.baseURL.Host {
		return nil, fmt.Errorf("the challenge page posts to another host")
	}
	return u, nil
}

// AnswerChallenge answers a 3D challenge as its page's buttons do: approve
// runs the payment, decline fails it. The answer's fields come back with
// any error: a payment not taken is an *APIError with its status_code
// (41 declined); a 5xx or a failure after sending matches
// ErrOutcomeUnknown.
func (c *Client) AnswerChallenge(ctx context.Context, ch *ThreeDChallenge, approve bool) (*CardPaymentResult, error) {
	base := strings.TrimSuffix(c.baseURL.Path, "/")
	if ch == nil || ch.Action == nil || ch.Action.Host != c.baseURL.Host || !strings.HasPrefix(ch.Action.Path, base+"/") {
		return nil, fmt.Errorf("%w: the challenge is not answered under the base URL", ErrInvalidRequest)
	}
	ep := endpoint{name: EndpointChallenge, path: strings.TrimPrefix(ch.Action.Path, base), contentType: formType, topLevel: true}
	decision := "decline"
	if approve {
		decision = "approve"
	}
	payload := []byte(url.Values{"order_id": {ch.OrderID}, "decision": {decision}}.Encode())
	var raw Response
	if _, err := c.attempts(ctx, ep, "", payload, &raw); err != nil {
		return nil, err
	}
	if raw.StatusCode >= 500 {
		return nil, &APIError{Endpoint: ep.name, HTTPStatus: raw.StatusCode}
	}
	resp := &http.Response{StatusCode: raw.StatusCode, Header: raw.Header}
	var out CardPaymentResult
	var env struct {
		StatusCode        *flexInt   `json:"status_code"`
		StatusDescription flexString `json:"status_description"`
	}
	if raw.StatusCode >= 200 && raw.StatusCode <= 299 && json.Unmarshal(raw.Body, &env) == nil && env.StatusCode != nil && json.Unmarshal(raw.Body, &out) == nil {
		out.StatusCode, out.StatusDescription = int(*env.StatusCode), cleanDescription(string(env.StatusDescription))
		if out.StatusCode == StatusSuccess {
			return &out, nil
		}
		return &out, &APIError{Endpoint: ep.name, HTTPStatus: raw.StatusCode, StatusCode: out.StatusCode, HasStatusCode: true,
			Description: out.StatusDescription, OrderNo: out.Order()}
	}
	_, err := c.checkResponse(ep, resp, raw.Body, &rawBody{})
	if err == nil {
		err = c.badResponse(ep, resp, "the answer holds no status_code")
	}
	return nil, err
}

// hiddenValue finds the value of an input named name in a page's first
// form (readPageForms).
func hiddenValue(page, name string) (string, bool) {
	forms := readPageForms([]byte(page))
	if len(forms) == 0 {
		return "", false
	}
	v, ok := forms[0].fields[name]
	return v, ok
}
