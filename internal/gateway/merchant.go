package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

var (
	endpointRefund          = endpoint{name: EndpointRefund, path: "/api/refund", auth: true, topLevel: true, alsoSuccess: StatusRefundQueued}
	endpointConfirmPayment  = endpoint{name: EndpointConfirmPayment, path: "/api/confirmPayment", auth: true, topLevel: true}
	endpointCompletePayment = endpoint{name: EndpointCompletePayment, path: "/payment/complete", auth: true}
	endpointGetPOS          = endpoint{name: "getpos", path: "/api/getpos", auth: true, retry: true}
	endpointInstallments    = endpoint{name: "installments", path: "/api/installments", auth: true, retry: true, topLevel: true}
)

// Refund refunds all or part of a sale. It is never retried or repeated;
// a status_code 101 answer is a result with Queued set, not an error. The
// errors: status_code 104 matches ErrRefundIDUsed, 31 ErrNotFound, 49 and
// 110 are plain rejections (APIError.StatusCode says which), a failure
// after sending matches ErrOutcomeUnknown, and so does a success answer
// about another invoice: an *InconsistentError, returned with the result
// so that the caller can record what came back.
func (c *Client) Refund(ctx context.Context, req RefundRequest) (*RefundResult, error) {
	var out RefundResult
	if _, err := c.sendCall(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, out.check(req)
}

// CheckStatus asks what happened to an invoice: the one look-up every
// command makes (status, journal reconcile, and the checks of refund,
// pre-authorization capture and cancel, and 3D completion before they
// send). It is signed with the client's merchant_key, includes pending
// transactions and asks for the sale's refunds (show_refund_info "Y":
// TotalRefundedAmount, TransactionAmount and Refunds, whose refund_info it
// checks). An unknown invoice (status_code 31) is an *APIError matching
// ErrNotFound. A status_code 69 answer (the transaction waits for a step:
// a 3D challenge, the merchant's completion) returns its fields with the
// error, which matches ErrPending. An answer about another invoice, or a
// success naming none, is refused with an *InconsistentError: nothing in it
// may decide what is sent next. (A pending answer naming none is kept: it
// only says that the sale waits.)
func (c *Client) CheckStatus(ctx context.Context, invoice string) (*CheckStatusResult, error) {
	req := checkStatusRequest{InvoiceID: invoice}
	var out CheckStatusResult
	if _, err := c.sendCall(ctx, req, &out); err != nil {
		if errors.Is(err, ErrPending) && out.StatusCode == 69 {
			if cerr := out.check(invoice); cerr != nil && out.InvoiceID != "" {
				return nil, cerr
			}
			return &out, err
		}
		return nil, err
	}
	if err := out.check(invoice); err != nil {
		return nil, err
	}
	if _, err := out.Refunds(); err != nil {
		return nil, &APIError{Endpoint: endpointCheckStatus.name, HTTPStatus: http.StatusOK,
			Problem: "the data does not match the protocol: " + cleanDescription(err.Error())}
	}
	return &out, nil
}

// ConfirmPayment captures (ConfirmCapture) or cancels (ConfirmCancel) a
// pre-authorization. It moves money: never retried or repeated, and its
// errors mean what Refund's do (an *InconsistentError comes with the
// result).
func (c *Client) ConfirmPayment(ctx context.Context, req ConfirmPaymentRequest) (*ConfirmPaymentResult, error) {
	var out ConfirmPaymentResult
	if _, err := c.sendCall(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, out.check(req)
}

// CompletePayment completes or cancels a 3D payment that waits for the
// merchant. It moves money: never retried or repeated, and its errors mean
// what Refund's do (an *InconsistentError comes with the result).
func (c *Client) CompletePayment(ctx context.Context, req CompletePaymentRequest) (*CompletePaymentResult, error) {
	var out CompletePaymentResult
	env, err := c.sendCall(ctx, req, &out)
	if err != nil {
		return nil, err
	}
	out.StatusDescription = env.description()
	return &out, out.check(req)
}

// GetPOS looks up the installment options of a card (its first six digits)
// for an amount. It is a read, retried like a commission lookup.
func (c *Client) GetPOS(ctx context.Context, req GetPOSRequest) (*InstallmentOptions, error) {
	if err := c.RequireMerchantKey(); err != nil {
		return nil, err
	}
	body, err := req.wire(c.creds.MerchantKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", endpointGetPOS.name, err)
	}
	var out InstallmentOptions
	env, err := c.call(ctx, endpointGetPOS, body, (*installmentOptionList)(&out.Options))
	if err != nil {
		return nil, err
	}
	out.StatusDescription = env.description()
	return &out, nil
}

// Installments returns the installment counts the merchant (the client's
// merchant_key) has active. It is a read, retried like a commission
// lookup.
func (c *Client) Installments(ctx context.Context) (*ActiveInstallments, error) {
	if err := c.RequireMerchantKey(); err != nil {
		return nil, err
	}
	body := struct {
		MerchantKey string `json:"merchant_key"`
	}{c.creds.MerchantKey}
	var out ActiveInstallments
	if _, err := c.call(ctx, endpointInstallments, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Request is a call for Client.Do: any path under the base URL.
type Request struct {
	// Method is GET, POST, PUT, PATCH or DELETE; empty means POST.
	Method string
	// Path is under the base URL ("/api/getpos", "api/getCardTokens?x=1");
	// it may not leave it (no scheme, host or ".." segment).
	Path string
	// Body is sent as it is.
	Body []byte
	// ContentType is the body's type; empty means application/json.
	ContentType string
	// Header holds more request headers (`paycli api -H`); one named as a
	// header the client sets replaces it, but for Authorization, which
	// the caller may not set.
	Header http.Header
}

// Response is an answer as Client.Do received it.
type Response struct {
	StatusCode int
	Header     http.Header
	// Body is exactly what the gateway sent, at most MaxResponseBytes
	// (MaxErrorBytes for a status outside 2xx). It may hold anything,
	// including control characters: escape it before showing it.
	Body []byte

	// ep is the call that got the answer, and sent the body it sent, for
	// Err.
	ep   endpoint
	sent []byte
	// gateway is the member that answered (WithGateway): Err reads the
	// body in its dialect, any member's when "".
	gateway string
}

// Err is what the answer means, read as the client reads the answers of
// its own calls (the same sentinels, the same exit codes in paycli): nil
// for a success (HTTP 2xx and status_code 100, or a status_code the call
// also answers for a known success, as refund's 101), else an *APIError —
// for a call that moves money, a 5xx or a 2xx body without a readable
// status_code matches ErrOutcomeUnknown. A success to a call that moves
// money goes through the same success check as the client's own calls
// (an *InconsistentError when its fields contradict it or the request).
// The challenge page a 3D payment answers with (Page) is a success; its
// refusal page (a form to the cancel_url, or a status_code other than 100)
// is an *APIError with the form's code and text. Err never quotes the body.
func (r *Response) Err() error {
	ep := r.ep
	_, name := callName(ep.path)
	for _, known := range knownEndpoints {
		if _, knownName := callName(known.path); knownName == name {
			ep.alsoSuccess = known.alsoSuccess
		}
	}
	if r.htmlPage() {
		return pageRefusal(ep.name, r.StatusCode, r.Body, r.sent)
	}
	// checkResponse reads only the client's dialect: an answer of Do is
	// checked without the client.
	c := &Client{}
	c.dialect, _ = DialectOf(r.gateway)
	var raw rawBody
	_, err := c.checkResponse(ep, &http.Response{StatusCode: r.StatusCode, Header: r.Header}, r.Body, &raw)
	if err != nil || !ep.movesMoney() {
		return err
	}
	return checkAnswer(ep, r.sent, r.Body)
}

// Page reports an answer that is the 3D challenge page a 3D payment
// answers with (paySmart3D, payByCardToken): HTTP 2xx, HTML, and not the
// refusal page (Err). It is the answer the call is meant to get, not a
// failure: the buyer's browser takes it from there, and check status
// tells how the payment ended.
func (r *Response) Page() bool {
	return r.htmlPage() && pageRefusal(r.ep.name, r.StatusCode, r.Body, r.sent) == nil
}

// htmlPage reports an HTML answer of a 3D payment, challenge or refusal.
func (r *Response) htmlPage() bool {
	// The calls the gateway answers with a web page rather than JSON: a 3D
	// payment's challenge (docs/protocol.md, 3D payment).
	if _, name := callName(r.ep.path); name != "paysmart3d" && name != "paybycardtoken" || r.StatusCode < 200 || r.StatusCode > 299 {
		return false
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct == "text/html" || ct == "application/xhtml+xml"
}

// checkAnswer is the success check of an answer to a call that moves money
// made through Do, whose shape the client does not know beforehand: the
// fields every money answer of the protocol may carry, at the top level or
// under data, against the body sent. An invoice_id, when the answer names
// one, must be the one sent; payment_status, when present, 1 (not for a
// cancellation, which takes nothing); error_code, when present, 100; and
// confirmPayment's transaction_status and payment/complete's status must
// be what the action leads to.
func checkAnswer(ep endpoint, sent, body []byte) error {
	ans, err := ParseObject(body)
	if err != nil {
		return nil
	}
	var data Object
	if i := ans.Index("data"); i >= 0 {
		data, _ = ParseObject(ans[i].Value)
	}
	field := func(k string) string {
		if v, _, _ := ans.Text(k); v != "" {
			return v
		}
		v, _, _ := data.Text(k)
		return v
	}
	number := func(k string) (int, bool) {
		var n flexInt
		if f := field(k); f == "" || json.Unmarshal([]byte(strconv.Quote(f)), &n) != nil {
			return 0, false
		}
		return int(n), true
	}
	// flag reads a flag as field finds it, a boolean too (flexFlag).
	flag := func(k string) (int, bool) {
		for _, o := range []Object{ans, data} {
			if i := o.Index(k); i >= 0 {
				if v := strings.TrimSpace(string(o[i].Value)); v != `""` && v != "null" {
					var n flexFlag
					err := json.Unmarshal(o[i].Value, &n)
					return int(n), err == nil
				}
			}
		}
		return 0, false
	}
	req, _ := ParseObject(sent)
	sentText := func(k string) string { v, _, _ := req.Text(k); return v }
	code, _ := number("status_code")
	call := MoneyCallOf(ep.path, sent)
	cancel := call == MoneyReleaseHold || call == MoneyCompleteCancel
	orderNo := field("order_no")
	if orderNo == "" {
		orderNo = field("order_id")
	}
	c := checkSuccess(ep.name, code).KeepOrder(orderNo).Invoice(field("invoice_id"), sentText("invoice_id"), false)
	if ps, ok := flag("payment_status"); ok && !cancel {
		c.PaymentStatus(ps, true, field("error"))
	}
	if ec, ok := number("error_code"); ok {
		c.ErrorCode(ec, field("error"))
	}
	switch call {
	case MoneyCapture:
		c.State("transaction_status", field("transaction_status"), SaleCompleted)
	case MoneyReleaseHold:
		c.State("transaction_status", field("transaction_status"), SaleCancelled)
	case MoneyComplete:
		c.State("status", field("status"), SaleCompleted, SalePreAuthorized)
	case MoneyCompleteCancel:
		c.State("status", field("status"), SaleCancelled)
	}
	return c.Err()
}

// CheckRequest reports why Do would refuse r before sending anything (an
// absolute URL, another host, a ".." segment, an unknown method), and
// otherwise returns the name its errors will carry: the cleaned path,
// "/api/refund".
func CheckRequest(r Request) (name string, err error) {
	ep, err := rawEndpoint(r)
	return ep.name, err
}

// Do sends an authenticated request to any path under the base URL and
// returns the answer as it came, whatever its status: it is for `paycli
// api`. It is never retried. A call whose path moves money (MovesMoney) is
// also never repeated after HTTP 401 (the error is a *TokenRefusedError);
// any other call is repeated once with a new token. For a call that moves
// money, an answer with a 5xx status comes back with an *APIError matching
// ErrOutcomeUnknown, and a request that got no complete answer after it may
// have been sent is a *RequestError matching ErrOutcomeUnknown.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	ep, err := rawEndpoint(r)
	if err != nil {
		return nil, err
	}
	var out Response
	if _, err := c.sendCall(ctx, r, &out); err != nil {
		return nil, err
	}
	out.ep, out.sent = ep, r.Body
	if ep.movesMoney() && serverFailed(out.StatusCode) {
		return &out, &APIError{Endpoint: ep.name, HTTPStatus: out.StatusCode}
	}
	return &out, nil
}

func (r Request) encode(*Client) (endpoint, []byte, error) {
	ep, err := rawEndpoint(r)
	return ep, r.Body, err
}

// rawEndpoint makes the endpoint of a Do call, refusing a path that would
// leave the base URL. Its name is the cleaned path, which is how errors
// name it and how isPayment recognizes it.
func rawEndpoint(r Request) (endpoint, error) {
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	switch method {
	case "":
		method = http.MethodPost
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return endpoint{}, invalidRequest("method %s is not one of GET, POST, PUT, PATCH, DELETE", shownValue(r.Method))
	}
	u, err := url.Parse(r.Path)
	switch {
	case err != nil:
		return endpoint{}, invalidRequest("path %s is not a URL path", shownValue(r.Path))
	case u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(r.Path, "//"):
		return endpoint{}, invalidRequest("path %s is not a path under the base URL", shownValue(r.Path))
	case strings.Trim(u.Path, "/") == "":
		return endpoint{}, invalidRequest("path is empty")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == ".." || seg == "." {
			return endpoint{}, invalidRequest("path %s has a %q segment", shownValue(r.Path), seg)
		}
	}
	p := path.Clean("/" + u.Path)
	if _, ok := r.Header[http.CanonicalHeaderKey("Authorization")]; ok {
		return endpoint{}, invalidRequest("the Authorization header is the profile's token; it cannot be set")
	}
	return endpoint{name: p, path: p, auth: true, method: method, contentType: r.ContentType, rawQuery: u.RawQuery, header: &r.Header}, nil
}
