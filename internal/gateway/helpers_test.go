package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/replay"
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

// newGateway starts the recorded-answer server (internal/testkit/replay)
// with the token call answered by a recorded token; each test gives the
// answers of the calls it makes.
func newGateway(t *testing.T) *replay.Server {
	t.Helper()
	g := replay.New(t)
	g.Answer(http.MethodPost, replayToken, 200, replay.Recorded("token.json"))
	return g
}

// api is the path of the protocol's call name, as the client sends it
// under the base URL /ccpayment.
func api(name string) string {
	switch name {
	case "payment/complete", "purchase/link":
		return "/ccpayment/" + name
	}
	return "/ccpayment/api/" + name
}

// methodOf is the HTTP method of the call name: getCardTokens is the one
// read sent as a GET.
func methodOf(name string) string {
	if name == "getCardTokens" {
		return http.MethodGet
	}
	return http.MethodPost
}

// answerText makes g answer the call name with a body the test made up.
func answerText(g *replay.Server, name string, status int, body string) {
	g.AnswerText(methodOf(name), api(name), status, body)
}

// answerFile makes g answer the call name with a file that has its
// provenance.
func answerFile(g *replay.Server, name string, status int, file string) {
	g.Answer(methodOf(name), api(name), status, file)
}

// answerPage makes g answer the call name with a proxy's HTML error page
// that repeats a card number and the app_secret.
func answerPage(g *replay.Server, name string, status int) {
	answerFile(g, name, status, replay.Recorded("bad_gateway_secrets.html"))
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
		WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }),
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

// debugLogger logs everything at debug level to w.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// reply is an answer a table gives the call name.
type reply func(g *replay.Server, name string)

// textReply answers with a body the test made up.
func textReply(status int, body string) reply {
	return func(g *replay.Server, name string) { answerText(g, name, status, body) }
}

// pageReply answers with the proxy's error page (answerPage).
func pageReply(status int) reply {
	return func(g *replay.Server, name string) { answerPage(g, name, status) }
}

// faultServer misbehaves at the transport level on every request (cuts
// the body, hangs, streams without end, redirects): not a gateway double,
// for it never answers as a gateway does. It counts the requests per path.
type faultServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newFaultServer(t testing.TB, h http.HandlerFunc) *faultServer {
	t.Helper()
	f := &faultServer{hits: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.URL.Path]++
		f.mu.Unlock()
		// A body read to its end lets the server see the client hang up.
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// client is a test client for f holding a cached token, so that the
// calls it makes are the only requests f sees.
func (f *faultServer) client(t testing.TB, opts ...Option) *Client {
	t.Helper()
	cache := &memCache{}
	c := newTestClient(t, f.URL+"/ccpayment", append([]Option{WithTokenCache(cache)}, opts...)...)
	_ = cache.Store(c.cacheKey(), &Token{Value: makeJWT(testNow.Add(time.Hour), "cached"), ExpiresAt: testNow.Add(time.Hour)})
	return c
}

// count is how many requests f has seen, in all.
func (f *faultServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, h := range f.hits {
		n += h
	}
	return n
}

// countOf is how many requests to the call name f has seen.
func (f *faultServer) countOf(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[api(name)]
}
