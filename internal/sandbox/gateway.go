// Package sandbox is a local emulator of the ccpayment card gateway's
// merchant API: an http.Handler serving the token, commission lookup,
// walletPay, 2D and 3D card payments, pre-authorization capture and cancel,
// 3D completion, refunds, check status, installment lookups, saved cards
// and payments by card token, and payment links, with the gateway's JSON
// shapes (and web pages of its own for the 3D challenge and the links),
// backed by a durable bbolt store in which every kind of payment is one
// Sale under its invoice id. It shares no Go types with internal/gateway on
// purpose: the two meet only over HTTP and the JSON fixtures under
// testdata/, so a bug in a shared type cannot hide on both sides.
//
// Deterministic triggers (docs/sandbox.md): an amount ending in .41 is
// declined (41), one ending in .69 stays pending (69) until a check status
// resolves it; published test cards approve, decline or require 3D; a
// refund ending in .01 waits for approval (101) until the next check
// status; anything else succeeds.
package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/redact"
)

// Base is the path prefix the gateway serves under; a sandbox base URL is
// "http://<addr>" + Base.
const Base = "/ccpayment"

// HealthPath answers GET with {"status":"ok"}; paycli probes it to find a
// running `paycli sandbox serve`. It is not part of the gateway's API.
const HealthPath = "/__sandbox/health"

// DefaultMaxBodyBytes bounds request bodies; larger ones get HTTP 413.
const DefaultMaxBodyBytes = 64 << 10

// Options configure a Gateway. Store and Now are required; the rest have
// defaults.
type Options struct {
	Store *Store
	// Schedule is the commission table; the embedded one when nil. It must
	// not change once New has it (answers are encoded once and kept).
	Schedule *Schedule
	// Now is the clock: the sandbox never reads the wall clock itself.
	Now func() time.Time
	// NewOrderID makes the identifier of a stored sale (NewOrderIDs when nil).
	NewOrderID func() string
	// NewTokenID makes bearer token ids (NewTokenID when nil).
	NewTokenID func() string
	// TokenTTL is the bearer token lifetime (DefaultTokenTTL when zero).
	TokenTTL time.Duration
	// PendingFor is how long a pending (.69) sale stays pending: the first
	// check status at least this long after the sale resolves it as
	// completed. Zero means the first check status resolves it.
	PendingFor time.Duration
	// Faults enables the X-Paycli-Fault request header (see faults.go).
	Faults bool
	// PickFault, when set with Faults, chooses a fault for a request that
	// carries no X-Paycli-Fault header: it returns a header value, or ""
	// to serve the request normally. `serve --fault-rate` sets it (see
	// RandomFaults) so that unmodified clients meet faults.
	PickFault func(r *http.Request) string
	// Credentials are the app's credentials the gateway accepts
	// (DefaultCredentials when zero). Tests that look for leaked secrets
	// set their own, recognisable ones.
	Credentials Credentials
	// MaxBodyBytes bounds request bodies (DefaultMaxBodyBytes when zero).
	MaxBodyBytes int64
	// NoPartialRefunds makes the merchant one that may only refund a sale
	// whole, at once (`serve --no-partial-refunds`): anything else is 110.
	NoPartialRefunds bool
	// Webhooks registers web hook keys and sets the delivery policy
	// (deliver.go); a Server runs the deliveries.
	Webhooks WebhookOptions
	// RequestLog, when set, gets an entry for every request answered but
	// the health probe (StartServer opens the state folder's).
	RequestLog *RequestLog
	// NewRequestID makes the X-Request-Id of an answer to a request that
	// sent none (NewRequestIDs(nil) when nil).
	NewRequestID func() string
	// SlowFor is how long the slow fault value waits (SlowFor when zero).
	SlowFor time.Duration
	// LogBodies keeps each request's and answer's body, masked, in the
	// request log (`paycli sandbox serve --bodies`).
	LogBodies bool
	// As is the gateway of the family the sandbox answers as, where its
	// answers' shapes differ (`serve --as`, AsNames): "" or "sipay" for
	// the sandbox's own, "qnbpay" for QNBpay's (family.go).
	As string
}

// Gateway is the emulator's http.Handler.
type Gateway struct {
	opts Options
	mux  *routeMux
	// dialect writes the answers whose shapes differ by member (Options.As).
	dialect dialect
	// commissionBodies maps a commissionsKey to its encoded answer.
	commissionBodies sync.Map
	// knownBearers maps a bearer token that verified to its expiry
	// (bearerValid); knownBearerCount roughly counts its entries.
	knownBearers     sync.Map
	knownBearerCount atomic.Int64
	// inFlight holds the invoice ids of walletPay requests between their
	// duplicate check and their commit, so that a second request for an
	// invoice in flight is refused before the provider step, as the
	// gateway does, rather than only when it loses the commit.
	inFlight sync.Map
	// deliveries sends the webhook outbox while a Server runs.
	deliveries *deliverer
	// repeats refuses a ledger request repeated within 2 s (ratelimit.go).
	repeats repeatGuard
}

// New builds a Gateway.
func New(opts Options) (*Gateway, error) {
	if opts.Store == nil {
		return nil, errors.New("sandbox: Options.Store is required")
	}
	if opts.Schedule == nil {
		s, err := DefaultSchedule()
		if err != nil {
			return nil, err
		}
		opts.Schedule = s
	}
	if opts.Now == nil {
		return nil, errors.New("sandbox: Options.Now is required")
	}
	dialect, ok := dialectOf(opts.As)
	if !ok {
		return nil, fmt.Errorf("sandbox: cannot answer as %q: use one of %s", opts.As, strings.Join(AsNames(), ", "))
	}
	if opts.NewOrderID == nil {
		opts.NewOrderID = dialect.newOrderIDs(opts.Now)
	}
	if opts.SlowFor <= 0 {
		opts.SlowFor = SlowFor
	}
	if opts.NewRequestID == nil {
		opts.NewRequestID = NewRequestIDs(nil)
	}
	if opts.NewTokenID == nil {
		opts.NewTokenID = NewTokenID
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = DefaultTokenTTL
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Credentials == (Credentials{}) {
		opts.Credentials = DefaultCredentials()
	}
	g := &Gateway{opts: opts, mux: newRouteMux(), dialect: dialect}
	g.deliveries = newDeliverer(opts.Store, opts.Webhooks, opts.Credentials.AppSecret, opts.Now)
	opts.Store.SetWebhooks(opts.Webhooks.Endpoints, g.deliveries.kick)
	g.routeWebhooks()
	g.routeOpenAPI()
	g.mux.HandleFunc("POST "+Base+"/api/token", g.token)
	for _, r := range g.bearerRoutes() {
		g.mux.Handle(r.method+" "+Base+r.path, g.authorized(r.serve))
	}
	// A browser posts the 3D form without a bearer token; the hash_key
	// authenticates it.
	g.mux.HandleFunc("POST "+Base+"/api/paySmart3D", g.paySmart3D)
	g.mux.HandleFunc("POST "+Base+ChallengePath, g.challenge)
	// The buyer's browser opens a payment link's page and posts its form
	// without any credentials: the link's random id is the capability.
	g.mux.HandleFunc("GET "+Base+LinkPath+"{id}", g.linkPage)
	g.mux.HandleFunc("POST "+Base+LinkPath+"{id}", g.payLink)
	g.mux.HandleFunc("GET "+HealthPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	g.mux.HandleFunc("/", g.notFound)
	return g, nil
}

// bearerRoute is one of the gateway's API paths under Base that answer
// only a valid bearer token (authorized).
type bearerRoute struct {
	method, path string
	serve        http.HandlerFunc
}

// bearerRoutes are the paths an API client calls with its token.
func (g *Gateway) bearerRoutes() []bearerRoute {
	return []bearerRoute{
		{"POST", "/api/commissions", g.commissions},
		{"GET", "/api/commissions", g.commissions},
		{"POST", "/api/walletPay", g.walletPay},
		{"POST", "/api/checkstatus", g.checkStatus},
		{"POST", "/api/refund", g.refund},
		{"POST", "/api/paySmart2D", g.paySmart2D},
		{"POST", "/api/confirmPayment", g.confirmPayment},
		{"POST", "/payment/complete", g.completePayment},
		{"POST", "/api/getpos", g.getpos},
		{"POST", "/api/installments", g.installments},
		{"POST", "/api/saveCard", g.saveCard},
		{"POST", "/api/editCard", g.editCard},
		{"POST", "/api/deleteCard", g.deleteCard},
		{"GET", "/api/getCardTokens", g.getCardTokens},
		{"POST", "/api/getCardTokens", g.getCardTokens},
		{"POST", "/api/payByCardToken", g.payByCardToken},
		{"POST", "/purchase/link", g.purchaseLink},
		{"POST", "/api/getTransactions", g.getTransactions},
		{"POST", "/api/alltransaction", g.allTransaction},
	}
}

// ServeHTTP serves one request, applying the fault header when enabled,
// and logs it.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := g.requestID(w, r)
	if g.opts.RequestLog == nil || r.URL.Path == HealthPath {
		g.serve(w, r)
		return
	}
	start := g.opts.Now()
	lw := &logWriter{ResponseWriter: w}
	lw.rec.requestID = id
	g.captureBodies(lw, r)
	g.serve(lw, r)
	// Before net/http sends the (buffered) answer: a request answered is
	// a request logged, even if the process is killed right after.
	_ = g.opts.RequestLog.Append(entryOf(r, lw, start, g.opts.Now()))
}

// serve serves one request, applying the fault header when enabled.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	if g.opts.Faults && r.Header.Get(FaultHeader) == "" && g.opts.PickFault != nil {
		if v := g.opts.PickFault(r); v != "" {
			r.Header.Set(FaultHeader, v)
		}
	}
	if g.opts.Faults && r.Header.Get(FaultHeader) != "" {
		serveWithFault(g.mux, w, r)
		return
	}
	if g.serveMagic(g.mux, w, r) {
		return
	}
	g.mux.ServeHTTP(w, r)
}

// NewOrderIDs returns a generator of sale identifiers: "VP" and 17 digits,
// the Unix time in seconds and a 7-digit sequence that starts at a random
// point, so ids never repeat within a process and are unlikely to repeat
// across restarts in the same second.
func NewOrderIDs(now func() time.Time) func() string {
	start, err := rand.Int(rand.Reader, big.NewInt(10_000_000))
	if err != nil {
		start = big.NewInt(now().UnixNano() % 10_000_000)
	}
	var seq atomic.Int64
	seq.Store(start.Int64())
	return func() string {
		n := seq.Add(1) % 10_000_000
		return fmt.Sprintf("VP%010d%07d", now().Unix()%10_000_000_000, n)
	}
}

// statusBody is the envelope of every application answer.
type statusBody struct {
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description"`
	Data              any    `json:"data,omitempty"`
}

func writeJSON(w http.ResponseWriter, httpStatus int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		httpStatus = http.StatusInternalServerError
		body = []byte(`{"status_code":99,"status_description":"internal error"}`)
	}
	writeJSONBody(w, httpStatus, body)
}

// writeJSONBody answers an encoded JSON body.
func writeJSONBody(w http.ResponseWriter, httpStatus int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	_, _ = w.Write(body)
}

// writeStatus answers an application result with HTTP 200, as the gateway does.
func writeStatus(w http.ResponseWriter, code int, desc string) {
	noteStatus(w, code, desc)
	writeJSON(w, http.StatusOK, statusBody{StatusCode: code, StatusDescription: desc})
}

// writeInternal answers a failure of the sandbox itself (its store).
func writeInternal(w http.ResponseWriter, err error) {
	explain(w, explanation{why: "the sandbox itself failed (its store or state folder), not the request: " + err.Error()})
	writeJSON(w, http.StatusInternalServerError, statusBody{StatusCode: 99, StatusDescription: "sandbox internal error: " + err.Error()})
}

// authorized requires a valid bearer token. The gateway's PHP SDK sends the
// token without the "Bearer " prefix, so both forms are accepted.
func (g *Gateway) authorized(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := strings.TrimSpace(r.Header.Get("Authorization"))
		if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
			token = strings.TrimSpace(token[7:])
		}
		now := g.opts.Now()
		if token == "" || !g.bearerValid(token, now) {
			explain(w, explanation{field: "Authorization", why: g.bearerProblem(token, now)})
			writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Unauthenticated."})
			return
		}
		next(w, r)
	})
}

// maxKnownBearers bounds the bearer tokens a Gateway remembers; past it,
// it forgets them all and starts again.
const maxKnownBearers = 1024

// bearerValid reports whether token is a valid bearer token at now. A
// client sends the same token with every request, so a token whose
// signature checked once is remembered with its expiry, and later requests
// only compare times. (The claims of a signed token cannot change, and a
// time at which its issued-at had passed stays past.)
func (g *Gateway) bearerValid(token string, now time.Time) bool {
	if exp, ok := g.knownBearers.Load(token); ok {
		return now.Before(exp.(time.Time))
	}
	exp, err := bearerExpiry(token, g.opts.Credentials.AppID, now)
	if err != nil {
		return false
	}
	if g.knownBearerCount.Add(1) > maxKnownBearers {
		g.knownBearers.Clear()
		g.knownBearerCount.Store(1)
	}
	g.knownBearers.Store(token, exp)
	return true
}

// bearerProblem says why a bearer token was refused, for the request log:
// missing, malformed, signed with another key, another app's, or expired
// (and when).
func (g *Gateway) bearerProblem(token string, now time.Time) string {
	const get = "; get one with POST /api/token (paycli token --sandbox)"
	if token == "" {
		return "no bearer token: send Authorization: Bearer <token>" + get
	}
	_, err := bearerExpiry(token, g.opts.Credentials.AppID, now)
	var claims bearerClaims
	_, _, _ = jwt.NewParser().ParseUnverified(token, &claims)
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "the bearer token is malformed: not a JWT (three base64url parts)" + get
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return "the bearer token's signature is not this sandbox's: it was issued by another gateway (a real one?)" + get
	case errors.Is(err, jwt.ErrTokenInvalidSubject):
		return fmt.Sprintf("the bearer token was issued to another app (app_id %s), not this sandbox's (%s)%s",
			quoteValue(redact.Secret(claims.Subject)), redact.Secret(g.opts.Credentials.AppID), get)
	case errors.Is(err, jwt.ErrTokenExpired), err == nil && claims.ExpiresAt != nil:
		return fmt.Sprintf("the bearer token expired at %s (gateway time; it lives %s)%s", gatewayTime(claims.ExpiresAt.Time), g.opts.TokenTTL, get)
	case err != nil:
		return fmt.Sprintf("the bearer token is not valid (%v)%s", err, get)
	}
	return "the bearer token is not valid" + get
}

// fields are a request's parameters as text: JSON bodies (numbers and
// booleans turned into their text), form bodies, or the query and body of
// a GET.
type fields map[string]string

// get returns a field's value, trimmed.
func (f fields) get(name string) string { return strings.TrimSpace(f[name]) }

// requireFields answers status_code 1 naming the first missing field, the
// way the gateway's validator words it.
func (f fields) requireFields(w http.ResponseWriter, names ...string) bool {
	for _, name := range names {
		if f.get(name) == "" {
			why := fmt.Sprintf("missing field %s: the request has no %s", name, name)
			if _, sent := f[name]; sent {
				why = fmt.Sprintf("missing field %s: the request's %s is empty", name, name)
			}
			explain(w, explanation{field: name, why: why})
			writeStatus(w, 1, fmt.Sprintf("The %s field is required.", strings.ReplaceAll(name, "_", " ")))
			return false
		}
	}
	return true
}

// readFields reads the request's parameters, answering the error itself
// (413 for a body over the limit, status_code 1 for a malformed one) when
// ok is false.
func (g *Gateway) readFields(w http.ResponseWriter, r *http.Request) (f fields, ok bool) {
	return g.readFieldsNested(w, r)
}

// readFieldsNested is readFields for a request some of whose fields may be
// JSON arrays or objects (a payment's items): those are kept as their
// JSON text.
func (g *Gateway) readFieldsNested(w http.ResponseWriter, r *http.Request, nested ...string) (f fields, ok bool) {
	f = fields{}
	if r.Method == http.MethodGet {
		// A GET carries its fields in the query, or in a JSON body as the
		// gateway's PHP SDK sends getCardTokens'; body fields win.
		for k, v := range r.URL.Query() {
			f[k] = v[0]
		}
	}
	body, err := readBody(w, r, g.opts.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			explain(w, explanation{why: fmt.Sprintf("the request body is over the sandbox's limit of %d bytes", g.opts.MaxBodyBytes)})
			writeJSON(w, http.StatusRequestEntityTooLarge, statusBody{StatusCode: 1,
				StatusDescription: fmt.Sprintf("The request body is larger than %d bytes.", g.opts.MaxBodyBytes)})
			return nil, false
		}
		explain(w, explanation{why: fmt.Sprintf("the request body could not be read whole (%v)", err)})
		writeStatus(w, 1, "The request body could not be read.")
		return nil, false
	}
	defer func() {
		if ok {
			noteInvoice(w, f.get("invoice_id"))
		}
	}()
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	trimmed := strings.TrimSpace(string(body))
	// curl -d labels JSON as a form: be lenient and read a body that is a
	// JSON object as JSON whatever its label.
	if mt == "application/x-www-form-urlencoded" && !strings.HasPrefix(trimmed, "{") {
		q, err := url.ParseQuery(string(body))
		if err != nil {
			explain(w, explanation{why: fmt.Sprintf("the body is labelled %s but is not form data (%v)", mt, err)})
			writeStatus(w, 1, "The request body is not valid form data.")
			return nil, false
		}
		for k, v := range q {
			f[k] = v[0]
		}
		return f, true
	}
	if trimmed == "" {
		return f, true // every required field will be reported missing
	}
	obj, msg := objectFields(trimmed, nested...)
	if msg != "" {
		why := "the body is not one JSON object (nor form data): " + msg
		if problem := jsonProblem(trimmed); problem != "" {
			why = "the body is not one JSON object (nor form data): " + problem
		}
		if mt != "" && mt != "application/json" {
			why += fmt.Sprintf(" (its Content-Type is %s)", mt)
		}
		explain(w, explanation{why: why})
		writeStatus(w, 1, msg)
		return nil, false
	}
	lenientTypeNote(w, mt)
	if len(f) == 0 {
		return obj, true // no query fields to merge with: no copy
	}
	maps.Copy(f, obj)
	return f, true
}

// readBody reads a request's body, at most max bytes (http.MaxBytesError
// beyond), into a buffer of the size the request announces when it does.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if pb, ok := r.Body.(*peekedBody); ok && int64(len(pb.data)) <= max {
		// Read whole already (the fault values are looked for first).
		if body, ok := pb.take(); ok {
			return body, nil
		}
	}
	rd := http.MaxBytesReader(w, r.Body, max)
	if n := r.ContentLength; n > 0 && n <= max {
		buf := bytes.NewBuffer(make([]byte, 0, n+1)) // +1: EOF is read without growing
		_, err := buf.ReadFrom(rd)
		return buf.Bytes(), err
	}
	return io.ReadAll(rd)
}

// objectFields reads a JSON object's members as fields: strings as they
// are, numbers and booleans as their text, null as absent, and the nested
// members named (arrays or objects) as their JSON text. msg says what is
// wrong with anything else.
func objectFields(text string, nested ...string) (f fields, msg string) {
	var raw map[string]fieldValue
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, "The request body is not a valid JSON object."
	}
	f = make(fields, len(raw))
	var bad []string
	for k, v := range raw {
		switch {
		case v.null:
		case v.nested && !slices.Contains(nested, k):
			bad = append(bad, k)
		default:
			f[k] = v.text
		}
	}
	if len(bad) > 0 {
		// The first in name order, so that the same body always names
		// the same field.
		return nil, fmt.Sprintf("The %s must be a string.", strings.ReplaceAll(slices.Min(bad), "_", " "))
	}
	return f, ""
}

// fieldValue is a member of a request body as text: a string's value, a
// number's or boolean's literal, an array's or object's compact JSON
// (nested); null is absent.
type fieldValue struct {
	text         string
	null, nested bool
}

func (v *fieldValue) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		// Most values hold no escape: the text between the quotes is the
		// value (the decoder has checked the JSON).
		if inner := b[1 : len(b)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			v.text = string(inner)
			return nil
		}
		return json.Unmarshal(b, &v.text)
	case 'n':
		v.null = true
	case '{', '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		v.text, v.nested = buf.String(), true
	default:
		v.text = string(b)
	}
	return nil
}

// token serves POST /api/token.
func (g *Gateway) token(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opToken.required...) {
		return
	}
	if f.get("app_id") != g.opts.Credentials.AppID || f.get("app_secret") != g.opts.Credentials.AppSecret {
		field := "app_secret"
		if f.get("app_id") != g.opts.Credentials.AppID {
			field = "app_id"
		}
		explain(w, explanation{field: field, got: shownValue(field, f.get(field)),
			why: fmt.Sprintf("the %s is not this sandbox's (paycli sandbox credentials shows the sandbox's app_id and app_secret)", field)})
		writeJSON(w, http.StatusUnauthorized, statusBody{StatusCode: 30, StatusDescription: "Invalid credentials"})
		return
	}
	token, expires, err := issueBearer(g.opts.Credentials.AppID, g.opts.Now(), g.opts.TokenTTL, g.opts.NewTokenID())
	if err != nil {
		writeInternal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: 100, StatusDescription: "Successfully generated token", Data: map[string]any{
		"token":      token,
		"is_3d":      1,
		"expires_at": gatewayTime(expires),
	}})
}

// commissions serves the commission lookup (POST body or GET query).
func (g *Gateway) commissions(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opCommissions.required...) {
		return
	}
	currency := strings.ToUpper(f.get("currency_code"))
	if !isUpperAlpha(currency, 3) {
		writeStatus(w, 1, "The currency code must be 3 letters.")
		return
	}
	by := strings.ToLower(f.get("commission_by"))
	if !fieldSpecs()["commission_by"].allows(by) {
		writeStatus(w, 1, "The selected commission by is invalid.")
		return
	}
	lang := "en" // textsFor knows Turkish and English, and English is the default
	if strings.EqualFold(f.get("app_lang"), "tr") {
		lang = "tr"
	}
	key := commissionsKey{currency: currency, byUser: by == "user", lang: lang}
	if body, ok := g.commissionBodies.Load(key); ok {
		writeJSONBody(w, http.StatusOK, body.([]byte))
		return
	}
	data, found := g.opts.Schedule.Lookup(currency, key.byUser, lang)
	if !found {
		writeStatus(w, 0, " No Data Found")
		return
	}
	body, err := json.Marshal(statusBody{StatusCode: 100, StatusDescription: textsFor(lang).ok, Data: data})
	if err != nil {
		writeInternal(w, err)
		return
	}
	g.commissionBodies.Store(key, body)
	writeJSONBody(w, http.StatusOK, body)
}

// commissionsKey names one commission lookup answer: the schedule does not
// change, so each is encoded once (encoding the raw JSON values of a
// 40-program table is most of a lookup's cost) and kept for the life of
// the Gateway. Only currencies in the schedule are kept, so the cache is
// bounded by the schedule's size.
type commissionsKey struct {
	currency string
	byUser   bool
	lang     string
}
