package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
)

var (
	// endpointCheckStatusFull is check status as CheckStatusWithRefunds
	// makes it: a pending answer's fields are kept.
	endpointCheckStatusFull = endpoint{name: endpointCheckStatus.name, path: endpointCheckStatus.path, auth: true, topLevel: true, pendingData: true}
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
	body, err := req.wire(c.creds)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointRefund, err)
	}
	var out RefundResult
	if _, err := c.call(ctx, endpointRefund, body, &out); err != nil {
		return nil, err
	}
	return &out, out.Check(req)
}

// DryRunRefund returns the refund request the client would send for req,
// redacted, without sending anything.
func (c *Client) DryRunRefund(req RefundRequest) (RequestDump, error) {
	body, err := req.wire(c.creds)
	if err != nil {
		return RequestDump{}, fmt.Errorf("%s: %w", EndpointRefund, err)
	}
	return c.dryRun(endpointRefund, body)
}

// CheckStatusWithRefunds is CheckStatus asking for the sale's refunds too
// (show_refund_info "Y"): TotalRefundedAmount, TransactionAmount and
// Refunds, whose refund_info it checks. It is what refund,
// pre-authorization and 3D completion commands check before sending. A
// status_code 69 answer (the transaction waits for a step: a 3D challenge,
// the merchant's completion) returns its fields with the error, which
// matches ErrPending.
func (c *Client) CheckStatusWithRefunds(ctx context.Context, req CheckStatusRequest) (*CheckStatusResult, error) {
	body := struct {
		CheckStatusRequest
		ShowRefundInfo string `json:"show_refund_info"`
	}{req, "Y"}
	var out CheckStatusResult
	if _, err := c.call(ctx, endpointCheckStatusFull, body, &out); err != nil {
		if errors.Is(err, ErrPending) && out.StatusCode == 69 {
			return &out, err
		}
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
	body, err := req.wire()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointConfirmPayment, err)
	}
	var out ConfirmPaymentResult
	if _, err := c.call(ctx, endpointConfirmPayment, body, &out); err != nil {
		return nil, err
	}
	return &out, out.Check(req)
}

// DryRunConfirmPayment returns the confirmPayment request the client would
// send for req, redacted, without sending anything.
func (c *Client) DryRunConfirmPayment(req ConfirmPaymentRequest) (RequestDump, error) {
	body, err := req.wire()
	if err != nil {
		return RequestDump{}, fmt.Errorf("%s: %w", EndpointConfirmPayment, err)
	}
	return c.dryRun(endpointConfirmPayment, body)
}

// CompletePayment completes or cancels a 3D payment that waits for the
// merchant. It moves money: never retried or repeated, and its errors mean
// what Refund's do (an *InconsistentError comes with the result).
func (c *Client) CompletePayment(ctx context.Context, req CompletePaymentRequest) (*CompletePaymentResult, error) {
	if err := req.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", EndpointCompletePayment, err)
	}
	var out CompletePaymentResult
	env, err := c.call(ctx, endpointCompletePayment, req, &out)
	if err != nil {
		return nil, err
	}
	out.StatusDescription = env.description()
	return &out, out.Check(req)
}

// DryRunCompletePayment returns the payment/complete request the client
// would send for req, redacted, without sending anything.
func (c *Client) DryRunCompletePayment(req CompletePaymentRequest) (RequestDump, error) {
	if err := req.check(); err != nil {
		return RequestDump{}, fmt.Errorf("%s: %w", EndpointCompletePayment, err)
	}
	return c.dryRun(endpointCompletePayment, req)
}

// GetPOS looks up the installment options of a card (its first six digits)
// for an amount. It is a read, retried like a commission lookup.
func (c *Client) GetPOS(ctx context.Context, req GetPOSRequest) (*InstallmentOptions, error) {
	body, err := req.wire()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", endpointGetPOS.name, err)
	}
	var out InstallmentOptions
	env, err := c.call(ctx, endpointGetPOS, body, &out.Options)
	if err != nil {
		return nil, err
	}
	out.StatusDescription = env.description()
	return &out, nil
}

// Installments returns the installment counts the merchant has active. It
// is a read, retried like a commission lookup.
func (c *Client) Installments(ctx context.Context, merchantKey string) (*ActiveInstallments, error) {
	if merchantKey == "" {
		return nil, fmt.Errorf("%s: %w", endpointInstallments.name, invalidRequest("merchant_key is empty"))
	}
	body := struct {
		MerchantKey string `json:"merchant_key"`
	}{merchantKey}
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

	// ep is the call that got the answer, for Err.
	ep endpoint
}

// Err is what the answer means, read as the client reads the answers of
// its own calls (the same sentinels, the same exit codes in paycli): nil
// for a success (HTTP 2xx and status_code 100, or a status_code the call
// also answers for a known success, as refund's 101), else an *APIError —
// for a call that moves money, a 5xx or a 2xx body without a readable
// status_code matches ErrOutcomeUnknown. It never quotes the body.
func (r *Response) Err() error {
	ep := r.ep
	for _, known := range knownEndpoints {
		if normalPath(known.path) == normalPath(ep.path) {
			ep.alsoSuccess = known.alsoSuccess
		}
	}
	// checkResponse reads nothing of the client: an answer of Do is checked
	// without one.
	var c *Client
	var raw rawBody
	_, err := c.checkResponse(ep, &http.Response{StatusCode: r.StatusCode, Header: r.Header}, r.Body, &raw)
	return err
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
	if _, err := c.send(ctx, ep, r.Body, &out); err != nil {
		return nil, err
	}
	out.ep = ep
	if ep.movesMoney() && out.StatusCode >= 500 {
		return &out, &APIError{Endpoint: ep.name, HTTPStatus: out.StatusCode}
	}
	return &out, nil
}

// DryRunDo returns the request Do would send for r, redacted, without
// sending anything.
func (c *Client) DryRunDo(r Request) (RequestDump, error) {
	ep, err := rawEndpoint(r)
	if err != nil {
		return RequestDump{}, err
	}
	return c.dryRunPayload(ep, r.Body)
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
