package gateway

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/redact"
)

// Size limits for response bodies. A success body holds a commission table
// at most; an error body is only read for its status_code.
const (
	MaxResponseBytes = 4 << 20
	MaxErrorBytes    = 64 << 10
)

// Client talks to one gateway with one set of credentials. It is safe for
// concurrent use.
type Client struct {
	baseURL     *url.URL
	creds       Credentials
	hc          *http.Client
	logger      *slog.Logger
	now         func() time.Time
	sleep       func(context.Context, time.Duration) error
	userAgent   string
	retry       RetryPolicy
	backoff     Backoff
	maxAttempts int
	cache       TokenCache
	// gateway is the family member the client talks to (WithGateway);
	// dialect is how it reads that member's answers.
	gateway string
	dialect Dialect

	// random feeds the ivs and salts of the hash_keys the client makes;
	// randomMu serialises its use by concurrent calls.
	random   io.Reader
	randomMu sync.Mutex

	mu    sync.Mutex
	token *Token

	// streamIdle bounds the wait for each read of a streamed answer
	// (WithStreamIdleTimeout); 0 is hc's Timeout.
	streamIdle time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient uses a copy of hc (so later changes to hc do not reach the
// client). Without it the client uses NewHTTPClient's defaults.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			cp := *hc
			c.hc = &cp
		}
	}
}

// WithLogger logs every request and response at debug level, with secrets
// and card numbers redacted. nil (the default) logs nothing.
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.logger = l } }

// WithClock sets the clock used for token expiry, Retry-After dates and
// durations. It is required: the client never reads the wall clock itself.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// WithUserAgent sets the User-Agent header, e.g. "paycli/1.2.3".
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetryPolicy replaces DefaultRetryPolicy for the calls that may be
// retried. It cannot make walletPay or checkstatus retry.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) {
		if p != nil {
			c.retry = p
		}
	}
}

// WithBackoff replaces the default backoff (ExponentialBackoff(500ms, 5s,
// rand.Float64)).
func WithBackoff(b Backoff) Option {
	return func(c *Client) {
		if b != nil {
			c.backoff = b
		}
	}
}

// WithRandom sets the source of the ivs and salts of the hash_keys the
// client makes (crypto/rand by default); tests fix it.
func WithRandom(r io.Reader) Option {
	return func(c *Client) {
		if r != nil {
			c.random = r
		}
	}
}

// WithTokenCache shares tokens with other processes through cache.
func WithTokenCache(cache TokenCache) Option { return func(c *Client) { c.cache = cache } }

// WithGateway names the family member the client talks to (the profile's
// gateway, family.Names): its answers are read in that member's dialect
// (DialectOf). Without it, or with "", the gateway is one paycli cannot
// name and answers are read in any member's dialect. New refuses a name
// that is no member's.
func WithGateway(name string) Option { return func(c *Client) { c.gateway = name } }

// WithSleep replaces the wait between attempts and a listing's wait for
// the 2-second rule (pause.For by default): tests count the waits rather
// than sleep them.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// MaxAttempts is how many times a retryable call is tried in all.
const MaxAttempts = 3

// maxRetryAfter caps how long a Retry-After header can make the client wait.
const maxRetryAfter = 30 * time.Second

// RetryPolicy decides whether a retryable call is tried again after an
// attempt that got HTTP status (0 when no response arrived) or transport
// error err (nil when a response arrived).
type RetryPolicy func(status int, err error) bool

// DefaultRetryPolicy retries connection errors and HTTP 502, 503 and 504,
// never a cancelled or expired context or a certificate that failed
// verification.
func DefaultRetryPolicy(status int, err error) bool {
	if err != nil {
		// A certificate that fails verification will fail again.
		if _, badCert := describeCertificateError(err); badCert {
			return false
		}
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Backoff returns how long to wait before retry number n (1 for the wait
// after the first attempt).
type Backoff func(n int) time.Duration

// ExponentialBackoff doubles the wait from base up to max and takes a
// random point in its upper half ("equal jitter"), so that clients that
// failed together do not retry together. random returns a number in [0, 1).
func ExponentialBackoff(base, max time.Duration, random func() float64) Backoff {
	return func(n int) time.Duration {
		d := base
		for i := 1; i < n && d < max; i++ {
			d *= 2
		}
		d = min(d, max)
		return d/2 + time.Duration(random()*float64(d/2))
	}
}

// New returns a client for the gateway at baseURL (ending in /ccpayment).
// baseURL must be https, or http to a loopback host; otherwise New returns
// an error matching ErrInvalidBaseURL.
func New(baseURL string, creds Credentials, opts ...Option) (*Client, error) {
	u, err := CheckBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		baseURL:     u,
		creds:       creds,
		sleep:       pause.For,
		userAgent:   "paycli",
		retry:       DefaultRetryPolicy,
		backoff:     ExponentialBackoff(500*time.Millisecond, 5*time.Second, rand.Float64),
		maxAttempts: MaxAttempts,
		random:      crand.Reader,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.now == nil {
		return nil, errors.New("gateway: New needs a clock (WithClock)")
	}
	var known bool
	if c.dialect, known = DialectOf(c.gateway); !known {
		return nil, fmt.Errorf("gateway: %q is no member of the family", c.gateway)
	}
	if c.hc == nil {
		c.hc, _ = NewHTTPClient(TransportOptions{})
	}
	// Redirects are reported, never followed: Go would turn a redirected
	// POST into a GET, or send a payment's body to another address.
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if c.logger != nil {
		next := c.hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		c.hc.Transport = &loggingTransport{next: next, logger: c.logger, now: c.now, secrets: c.secretsSent}
	}
	return c, nil
}

// CheckBaseURL parses a base URL and refuses what the client must not send
// to: anything but https, except http to a loopback host (a local emulator).
func CheckBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(raw), "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrInvalidBaseURL, raw)
	}
	shown := u.Redacted()
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, fmt.Errorf("%w: %s uses plain http to a host that is not loopback; use https", ErrInvalidBaseURL, shown)
		}
	default:
		return nil, fmt.Errorf("%w: %s is not an http(s) URL", ErrInvalidBaseURL, shown)
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// BaseURL returns the gateway's base URL.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// endpoint describes one call of the protocol.
type endpoint struct {
	name string
	path string
	// auth: send the bearer token (every call but the token call).
	auth bool
	// retry: the call is safe to repeat on connection errors and 502/503/504.
	// A call that moves money is never repeated, whatever this says (see
	// endpoint.retries).
	retry bool
	// topLevel: the result fields sit beside status_code, not under data.
	topLevel bool
	// once: the call moves no money but is sent at most once, like one that
	// does (sentOnce): a payment link, which takes its invoice.
	once bool
	// alsoSuccess is a status_code other than 100 that this call answers
	// for a known, successful outcome (refund's 101, queued for approval);
	// 0 for none.
	alsoSuccess int
	// method, contentType and rawQuery are for Client.Do; empty means POST,
	// JSON and no query.
	method, contentType, rawQuery string
	// header holds a Client.Do call's own request headers (a pointer, so
	// that endpoints stay comparable).
	header *http.Header
	// onePass: a success body is decoded in one pass, its data straight
	// into the call's result (large answers: the commission table).
	onePass bool
	// pendingData: a status_code 69 answer is still an error (ErrPending),
	// but its top-level fields are decoded into the call's result too, so
	// that the caller can tell which step the transaction waits for.
	pendingData bool
}

var (
	endpointToken       = endpoint{name: "token", path: "/api/token", retry: true}
	endpointCommissions = endpoint{name: "commissions", path: "/api/commissions", auth: true, retry: true, onePass: true}
	endpointWalletPay   = endpoint{name: EndpointWalletPay, path: "/api/walletPay", auth: true}
	endpointCheckStatus = endpoint{name: "checkstatus", path: "/api/checkstatus", auth: true, topLevel: true, pendingData: true}
)

// knownEndpoints are the calls the client makes by name; errors name them
// (APIError.Endpoint), and isPayment looks them up here.
var knownEndpoints = []endpoint{
	endpointToken, endpointCommissions, endpointWalletPay, endpointCheckStatus,
	endpointRefund, endpointConfirmPayment, endpointCompletePayment, endpointGetPOS, endpointInstallments,
	endpointPaySmart2D, endpointPaySmart3D, endpointPaymentLink,
	endpointGetCardTokens, endpointSaveCard, endpointEditCard, endpointDeleteCard,
	endpointGetTransactions, endpointAllTransaction,
}

// Token asks the gateway for a new bearer token. It does not use or fill
// the cache; BearerToken does.
func (c *Client) Token(ctx context.Context) (*Token, error) {
	var data tokenData
	if _, err := c.call(ctx, endpointToken, tokenRequest{AppID: c.creds.AppID, AppSecret: c.creds.AppSecret}, &data); err != nil {
		return nil, err
	}
	if data.Token == "" {
		return nil, &APIError{Endpoint: endpointToken.name, HTTPStatus: http.StatusOK, Problem: "the response holds no token"}
	}
	return newToken(data, c.now()), nil
}

// Commissions looks up the commission table for a currency. A lookup that
// finds nothing (status_code 0) is an *APIError matching ErrNoData.
func (c *Client) Commissions(ctx context.Context, req CommissionsRequest) (*Commissions, error) {
	var out Commissions
	env, err := c.call(ctx, endpointCommissions, req, &out.Schedule)
	if err != nil {
		return nil, err
	}
	out.Description = env.description()
	return &out, nil
}

// CommissionsRaw is Commissions without decoding the data: it returns the
// response body exactly as the gateway sent it, after the same checks (a
// status_code other than 100, ErrNoData included, is still an *APIError).
// It is for callers that print the body (paycli commissions --raw) or
// read the data themselves.
func (c *Client) CommissionsRaw(ctx context.Context, req CommissionsRequest) ([]byte, error) {
	var body rawBody
	if _, err := c.call(ctx, endpointCommissions, req, &body); err != nil {
		return nil, err
	}
	return body, nil
}

// rawBody receives a whole success body instead of its decoded data.
type rawBody []byte

// WalletPay captures a wallet payment, signed with the client's
// merchant_key. It is never retried; see the package documentation for
// what its errors mean. A success answer whose own fields disagree
// (SuccessCheck) comes back with an *InconsistentError.
func (c *Client) WalletPay(ctx context.Context, req WalletPayRequest) (*WalletPayResult, error) {
	var out WalletPayResult
	if _, err := c.sendCall(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, out.check(req)
}

// call sends one call: with the bearer token when the endpoint needs one
// (fetching a new token and repeating once on HTTP 401), and with retries
// when the endpoint allows them.
func (c *Client) call(ctx context.Context, ep endpoint, body, v any) (*envelope, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the request: %w", ep.name, err)
	}
	return c.send(ctx, ep, payload, v)
}

// send is call with the body already encoded.
func (c *Client) send(ctx context.Context, ep endpoint, payload []byte, v any) (*envelope, error) {
	if !ep.auth {
		return c.attempts(ctx, ep, "", payload, v)
	}
	tok, _, err := c.BearerToken(ctx, false)
	if err != nil {
		return nil, err
	}
	env, err := c.attempts(ctx, ep, tok.Value, payload, v)
	refused, ok := unauthorized(err)
	if !ok {
		return env, err
	}
	// A 401 means the gateway processed nothing: the token was refused. A
	// read is repeated once with a new token; a call that moves money is
	// not (TokenRefusedError says why), but the token is still renewed so
	// that the next run works.
	newTok, _, rerr := c.refreshAfter(ctx, tok)
	if ep.sentOnce() {
		return nil, &TokenRefusedError{Err: refused, RenewErr: rerr}
	}
	if rerr != nil {
		return nil, rerr
	}
	return c.attempts(ctx, ep, newTok.Value, payload, v)
}

// unauthorized returns the answer of a call that got HTTP 401.
func unauthorized(err error) (*APIError, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatus == http.StatusUnauthorized {
		return apiErr, true
	}
	return nil, false
}

// attempts runs one call, retrying it when the endpoint and the policy
// allow.
func (c *Client) attempts(ctx context.Context, ep endpoint, token string, payload []byte, v any) (*envelope, error) {
	for n := 1; ; n++ {
		req, err := c.newRequest(ctx, ep, token, payload)
		if err != nil {
			return nil, err
		}
		env, status, retryAfter, err := c.do(req, ep, payload, v)
		if err == nil || !ep.retries() || n >= c.maxAttempts || !c.retry(status, transportCause(err)) {
			return env, err
		}
		wait := max(c.backoff(n), min(retryAfter, maxRetryAfter))
		// The context's deadline is read against the client's clock, which
		// is the wall clock everywhere but in tests.
		if deadline, ok := ctx.Deadline(); ok && deadline.Sub(c.now()) < wait {
			return nil, err // waiting would outlive the command
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, c.requestError(ctx, ep, false, serr)
		}
	}
}

// newRequest builds a request for ep with a JSON body.
func (c *Client) newRequest(ctx context.Context, ep endpoint, token string, payload []byte) (*http.Request, error) {
	u := c.baseURL.JoinPath(ep.path)
	u.RawQuery = ep.rawQuery
	method, contentType := cmp.Or(ep.method, http.MethodPost), cmp.Or(ep.contentType, "application/json")
	var body io.Reader
	if len(payload) > 0 || method != http.MethodGet {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.name, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", c.userAgent)
	if ep.header != nil {
		for name, values := range *ep.header {
			req.Header[http.CanonicalHeaderKey(name)] = values
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// do sends one request, whose body is payload, and reads its response
// into v (the data object, or the whole body for top-level endpoints),
// scrubbed of the secrets it sent. It returns the HTTP status (0 when none
// arrived) and any Retry-After.
func (c *Client) do(req *http.Request, ep endpoint, payload []byte, v any) (env *envelope, status int, retryAfter time.Duration, err error) {
	ctx := req.Context()
	var sent bool
	var sentMu sync.Mutex
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		sentMu.Lock()
		sent = true
		sentMu.Unlock()
	}}
	req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	wasSent := func() bool { sentMu.Lock(); defer sentMu.Unlock(); return sent }

	resp, err := c.roundTrip(req, v)
	if err != nil {
		return nil, 0, 0, c.requestError(ctx, ep, wasSent(), err)
	}
	defer resp.Body.Close()
	retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.now())

	var src io.Reader = resp.Body
	if rs, ok := v.(*rowStream); ok && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		env, prefix, err := c.streamRows(ctx, ep, resp, c.secretsSent(payload, req.Header.Get("Authorization")), rs)
		if prefix == nil {
			if apiErr, ok := err.(*APIError); ok {
				apiErr.RetryAfter = retryAfter
			}
			return env, resp.StatusCode, retryAfter, err
		}
		src = io.MultiReader(bytes.NewReader(prefix), resp.Body)
	}
	limit := int64(MaxResponseBytes)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		limit = MaxErrorBytes
	}
	body, err := io.ReadAll(io.LimitReader(src, limit+1))
	if err != nil {
		return nil, resp.StatusCode, retryAfter, c.requestError(ctx, ep, true, err)
	}
	if int64(len(body)) > limit {
		return nil, resp.StatusCode, retryAfter, c.badResponse(ep, resp, fmt.Sprintf("the body is larger than %s", byteSize(limit)))
	}
	// An answer that echoes the request never hands a secret on.
	body = scrub(body, c.secretsSent(payload, req.Header.Get("Authorization")))
	// Client.Do hands any complete answer back as it came, except a 401,
	// which the caller handles like any call's.
	if raw, ok := v.(*Response); ok && resp.StatusCode != http.StatusUnauthorized {
		*raw = Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone(), Body: body, gateway: c.gateway}
		return nil, resp.StatusCode, retryAfter, nil
	}
	env, err = c.checkResponse(ep, resp, body, v)
	if apiErr, ok := err.(*APIError); ok {
		apiErr.RetryAfter = retryAfter
	}
	return env, resp.StatusCode, retryAfter, err
}

// checkResponse turns a complete response into the call's result or a
// typed error, reading the body in the client's dialect.
func (c *Client) checkResponse(ep endpoint, resp *http.Response, body []byte, v any) (*envelope, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, httpError(ep, resp, c.dialect.unwrap(body))
	}
	body, shapeErr := c.dialect.read(body)
	if shapeErr != nil {
		e := c.badResponse(ep, resp, shapeErr.Problem)
		e.DataErr = shapeErr
		return nil, e
	}
	if env, ok := decodeSuccess(ep, resp, body, v); ok {
		return env, nil
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, c.badResponse(ep, resp, describeBadBody(resp, body, err))
	}
	// JSON is UTF-8 (RFC 8259). encoding/json would quietly turn bad bytes
	// into U+FFFD, handing on a token, an order id or an amount that is not
	// what the gateway meant.
	if !utf8.Valid(body) {
		return nil, c.badResponse(ep, resp, "the body is not valid UTF-8")
	}
	if env.StatusCode == nil {
		return nil, c.badResponse(ep, resp, "the body has no status_code")
	}
	if code := int(*env.StatusCode); code != StatusSuccess && (ep.alsoSuccess == 0 || code != ep.alsoSuccess) {
		return nil, refusal(ep, resp, body, env, v)
	}
	if err := c.decodeData(ep, resp, body, env, v); err != nil {
		return nil, err
	}
	return &env, nil
}

// httpError is the error of an answer with an HTTP error status: the
// gateway's words when the body is the protocol, else what is wrong with
// it, or where a redirect leads.
func httpError(ep endpoint, resp *http.Response, body []byte) *APIError {
	e := &APIError{Endpoint: ep.name, HTTPStatus: resp.StatusCode}
	var env envelope
	if jsonErr := json.Unmarshal(body, &env); jsonErr == nil {
		e.Description = cleanDescription(env.description())
		if env.StatusCode != nil {
			e.StatusCode, e.HasStatusCode = int(*env.StatusCode), true
		}
	} else if len(bytes.TrimSpace(body)) > 0 {
		e.Problem = describeBadBody(resp, body, jsonErr)
	}
	if loc, err := resp.Location(); err == nil && resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		loc.RawQuery, loc.Fragment, loc.User = "", "", nil
		e.Problem = "the gateway redirects to " + redact.Cards(loc.String()) + "; check base_url"
	}
	return e
}

// refusal is the error of a 2xx answer whose status_code is not a
// success: the gateway's code and words, and the reasons a refusal
// carries beside them.
func refusal(ep endpoint, resp *http.Response, body []byte, env envelope, v any) *APIError {
	code := int(*env.StatusCode)
	e := &APIError{
		Endpoint: ep.name, HTTPStatus: resp.StatusCode,
		StatusCode: code, HasStatusCode: true,
		Description: cleanDescription(env.description()),
	}
	if ep.pendingData && ep.topLevel && code == 69 {
		// Best effort: a body that does not decode leaves the result
		// empty, and the error says pending either way.
		_ = json.Unmarshal(body, v)
	}
	if isPayment(ep.name) {
		declineReason(e, env.Data)
	}
	bankReason(e, env.Data, body)
	return e
}

// declineReason sets a payment refusal's order number and reason from its
// data object, when there is one.
func declineReason(e *APIError, data json.RawMessage) {
	var d struct {
		OrderNo                 flexString `json:"order_no"`
		PaymentReasonCode       flexString `json:"payment_reason_code"`
		PaymentReasonCodeDetail flexString `json:"payment_reason_code_detail"`
	}
	if json.Unmarshal(data, &d) == nil {
		// An order number is digits that can look like a card
		// number; it is an identifier, so it is kept whole.
		e.OrderNo = cleanIdentifier(string(d.OrderNo))
		e.PaymentReasonCode = cleanDescription(string(d.PaymentReasonCode))
		e.PaymentReasonCodeDetail = cleanDescription(string(d.PaymentReasonCodeDetail))
	}
}

// bankReason sets the bank's own reason for a refusal of any call, from
// the data object or the top level: the journal keeps it with the outcome.
func bankReason(e *APIError, data json.RawMessage, body []byte) {
	for _, raw := range [][]byte{data, body} {
		var b struct {
			Code flexString `json:"original_bank_error_code"`
			Text flexString `json:"original_bank_error_description"`
		}
		if len(raw) > 0 && json.Unmarshal(raw, &b) == nil && (b.Code != "" || b.Text != "") {
			e.OriginalBankErrorCode = cleanDescription(string(b.Code))
			e.OriginalBankErrorDescription = cleanDescription(string(b.Text))
			return
		}
	}
}

// decodeData reads a success's result into v: the data object, or the
// whole body for a top-level endpoint or a raw one.
func (c *Client) decodeData(ep endpoint, resp *http.Response, body []byte, env envelope, v any) error {
	if raw, ok := v.(*rawBody); ok {
		*raw = bytes.Clone(body)
		return nil
	}
	data := []byte(env.Data)
	if ep.topLevel {
		data = body
	}
	if len(data) == 0 {
		data = []byte("null")
	}
	if err := json.Unmarshal(data, v); err != nil {
		e := c.badResponse(ep, resp, "the data does not match the protocol: "+cleanDescription(dataProblem(err)))
		e.DataErr = err
		return e
	}
	return nil
}

// dataProblem says why an answer's data could not be read, in JSON's
// words: encoding/json names the Go type it wanted ("cannot unmarshal
// object into Go value of type []gateway.InstallmentOption"), which means
// nothing to the desk.
func dataProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return err.Error()
	}
	var want string
	switch typeErr.Type.Kind() {
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		want = "a number"
	default:
		want = "another value"
	}
	where := "the data"
	if typeErr.Field != "" {
		where = typeErr.Field
	}
	return fmt.Sprintf("%s is a JSON %s where %s was expected", where, typeErr.Value, want)
}

// decodeSuccess is the one-pass path of checkResponse: for an endpoint
// that takes it, a 2xx body is decoded once, the envelope's fields and the
// data (straight into v) together. It reports false for anything but a
// well-formed success, which checkResponse then reads the usual way
// (and so explains).
func decodeSuccess(ep endpoint, resp *http.Response, body []byte, v any) (*envelope, bool) {
	if _, raw := v.(*rawBody); !ep.onePass || ep.topLevel || raw || resp.StatusCode < 200 || resp.StatusCode > 299 || !utf8.Valid(body) {
		return nil, false
	}
	// encoding/json decodes into what the interface's pointer points to.
	var typed struct {
		StatusCode        *flexInt   `json:"status_code"`
		StatusDescription flexString `json:"status_description"`
		Message           flexString `json:"message"`
		Data              any        `json:"data"`
	}
	typed.Data = v
	if err := json.Unmarshal(body, &typed); err != nil || typed.StatusCode == nil || int(*typed.StatusCode) != StatusSuccess {
		return nil, false
	}
	return &envelope{StatusCode: typed.StatusCode, StatusDescription: typed.StatusDescription, Message: typed.Message}, true
}

// badResponse is a response that could not be read as the protocol: for a
// payment that may have gone through it is an unknown outcome (APIError.Kind).
func (c *Client) badResponse(ep endpoint, resp *http.Response, problem string) *APIError {
	return &APIError{Endpoint: ep.name, HTTPStatus: resp.StatusCode, Problem: problem}
}

// requestError classifies a call that got no complete response.
func (c *Client) requestError(ctx context.Context, ep endpoint, sent bool, err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err = ctxErr
	}
	return &RequestError{Endpoint: ep.name, Sent: sent, Err: err}
}

// transportCause returns the cause of a *RequestError, nil for other errors
// (which are responses).
func transportCause(err error) error {
	var re *RequestError
	if errors.As(err, &re) {
		return re.Err
	}
	return nil
}

// describeBadBody says, without quoting it, why a body is not the
// protocol's JSON.
func describeBadBody(resp *http.Response, body []byte, jsonErr error) string {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(body)
	var syntaxErr *json.SyntaxError
	switch {
	case len(trimmed) == 0:
		return "the body is empty"
	case ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json"):
		return fmt.Sprintf("the body is not JSON (%s)", ct)
	case trimmed[0] != '{' && trimmed[0] != '[':
		return "the body is not JSON"
	case errors.Is(jsonErr, io.ErrUnexpectedEOF) || strings.Contains(jsonErr.Error(), "unexpected end of JSON input"):
		return "the body is truncated JSON"
	case errors.As(jsonErr, &syntaxErr):
		return fmt.Sprintf("the body is not valid JSON (offset %d)", syntaxErr.Offset)
	}
	return "the body does not match the protocol"
}

// parseRetryAfter reads seconds or an HTTP date; 0 when absent or invalid.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
