package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/money"
)

// Secrets used by the tests; no output may contain them.
const (
	testAppID       = "app-id-0123456789"
	testAppSecret   = "app-secret-0123456789"
	testMerchantKey = "merchant-key-0123456789"
	testCard        = "4355084355084358"
)

var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// makeJWT returns an unsigned JWT with the given exp (none when zero); the
// client never verifies tokens, it only reads exp.
func makeJWT(exp time.Time, id string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := map[string]any{"sub": id}
	if !exp.IsZero() {
		claims["exp"] = exp.Unix()
	}
	c, _ := json.Marshal(claims)
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(c) + "." + enc([]byte("sig-"+id))
}

// recorded is a request as the fake gateway saw it.
type recorded struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
	// Raw is the body as sent; Query the raw query.
	Raw   string
	Query string
}

// fakeGateway is an httptest server speaking the protocol under
// /ccpayment, counting requests per endpoint. Handlers may be replaced per
// endpoint; the default token handler issues a fresh JWT that lives two
// hours, with expires_at in Türkiye time.
type fakeGateway struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	hits     map[string]int
	requests []recorded
	handlers map[string]http.HandlerFunc
	issued   int
}

func newFakeGateway(t *testing.T) *fakeGateway {
	t.Helper()
	g := &fakeGateway{t: t, hits: map[string]int{}, handlers: map[string]http.HandlerFunc{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/ccpayment/api/{name}", func(w http.ResponseWriter, r *http.Request) { g.serve(w, r, r.PathValue("name")) })
	mux.HandleFunc("/ccpayment/payment/complete", func(w http.ResponseWriter, r *http.Request) { g.serve(w, r, "payment/complete") })
	mux.HandleFunc("/ccpayment/purchase/link", func(w http.ResponseWriter, r *http.Request) { g.serve(w, r, "purchase/link") })
	g.Server = httptest.NewServer(mux)
	t.Cleanup(g.Close)
	g.handle("token", g.issueToken)
	return g
}

func (g *fakeGateway) handle(name string, h http.HandlerFunc) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.handlers[name] = h
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request, name string) {
	body, _ := io.ReadAll(r.Body)
	var fields map[string]any
	_ = json.Unmarshal(body, &fields)
	g.mu.Lock()
	g.hits[name]++
	g.requests = append(g.requests, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: fields, Raw: string(body), Query: r.URL.RawQuery})
	h := g.handlers[name]
	g.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (g *fakeGateway) count(name string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hits[name]
}

func (g *fakeGateway) last(name string) recorded {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := len(g.requests) - 1; i >= 0; i-- {
		if strings.HasSuffix(g.requests[i].Path, "/"+name) {
			return g.requests[i]
		}
	}
	g.t.Fatalf("no %s request", name)
	return recorded{}
}

// issueToken answers the token call; tokens are numbered tok-1, tok-2, ...
func (g *fakeGateway) issueToken(w http.ResponseWriter, r *http.Request) {
	rec := g.last("token")
	if rec.Body["app_id"] != testAppID || rec.Body["app_secret"] != testAppSecret {
		writeJSON(w, 200, `{"status_code":30,"status_description":"Invalid credentials"}`)
		return
	}
	g.mu.Lock()
	g.issued++
	n := g.issued
	g.mu.Unlock()
	exp := testNow.Add(2 * time.Hour)
	writeJSON(w, 200, fmt.Sprintf(`{"status_code":100,"status_description":"Successfully Generated Token","data":{"token":%q,"is_3d":1,"expires_at":%q}}`,
		makeJWT(exp, fmt.Sprintf("tok-%d", n)), exp.In(money.GatewayZone()).Format("2006-01-02 15:04:05")))
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func writeHTML(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "<html><body><h1>Bad gateway</h1><p>card "+testCard+" app_secret="+testAppSecret+"</p></body></html>")
}

func respond(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, status, body) }
}

// memCache is a TokenCache in memory.
type memCache struct {
	mu     sync.Mutex
	tokens map[CacheKey]*Token
}

func (m *memCache) Load(k CacheKey) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens[k], nil
}

func (m *memCache) Store(k CacheKey, t *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[CacheKey]*Token{}
	}
	m.tokens[k] = t
	return nil
}

// newTestClient returns a client for g's gateway that waits no time
// between retries.
func newTestClient(t testing.TB, baseURL string, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{
		WithClock(func() time.Time { return testNow }),
		WithUserAgent("paycli/test"),
		withSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }),
	}, opts...)
	c, err := New(baseURL, Credentials{AppID: testAppID, AppSecret: testAppSecret, MerchantKey: testMerchantKey}, all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	commissionsOK = `{"status_code":100,"status_description":"Success","data":{"1":[{"title":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5000","merchant_commission_fixed":"0.0000","user_commission_percentage":0.25,"user_commission_fixed":"x","currency_code":"TRY","installment":1,"pos_id":7,"getpos_card_program":"WORLD","issuer_name":"Bank"}]}}`
	walletPayOK   = `{"status_code":100,"status_description":"Payment process successful","data":{"sipay_status":1,"order_no":"VP1","order_id":"VP1","invoice_id":"INV-1","sipay_payment_method":"WALLET","credit_card_no":"435508****4358","transaction_type":"Auth","payment_status":1,"payment_method":"card","error_code":100,"error":"Success","auth_code":"A1","merchant_commission":1.5,"user_commission":0,"merchant_commission_percentage":1.5,"merchant_commission_fixed":0,"host_reference_id":"H1","payment_reason_code":"","payment_reason_code_detail":"","wallet":"001"}}`
	checkStatusOK = `{"status_code":100,"status_description":"Success","transaction_status":"Completed","order_id":"VP1","invoice_id":"INV-1","transaction_amount":"100.00","total_refunded_amount":0,"transaction_type":"Auth","payment_reason_code":"","merchant_commission":"1.50"}`
)

func walletPayReq() WalletPayRequest {
	return WalletPayRequest{
		InvoiceID: "INV-1", Total: "150.00", CurrencyCode: "TRY",
		WalletTransientToken: makeJWT(testNow.Add(time.Hour), "wallet-"+testCard), Name: "Ada", Surname: "Lovelace", BillEmail: "ada@example.com",
	}
}

// signed is a hash_key a request must hold, by the plaintext it decrypts
// to with testAppSecret.
type signed string

// total is how many requests the gateway has seen.
func (g *fakeGateway) total() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.requests)
}

// debugLogger logs everything at debug level to w.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
