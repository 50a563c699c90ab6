package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/shopspring/decimal"
)

// testClock is a settable clock safe for concurrent use.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a Gateway over a store in a temporary folder, with a fixed
// clock and sequential order ids.
type fixture struct {
	t     *testing.T
	dir   string
	clock *testClock
	store *Store
	gw    *Gateway
	seq   atomic.Int64
	// tokens numbers the wallet tokens issued, for their single-use jti.
	tokens atomic.Int64
}

var testStart = time.Date(2026, 11, 22, 9, 4, 5, 0, time.UTC)

func newFixture(t *testing.T, mod ...func(*Options)) *fixture {
	t.Helper()
	fx := &fixture{t: t, dir: t.TempDir(), clock: &testClock{now: testStart}}
	fx.open(mod...)
	return fx
}

// open (re)opens the store and builds a gateway over it.
func (fx *fixture) open(mod ...func(*Options)) {
	fx.t.Helper()
	store, err := OpenStore(fx.dir, time.Second, fx.clock.Now())
	if err != nil {
		fx.t.Fatal(err)
	}
	fx.t.Cleanup(func() { store.Close() })
	opts := Options{
		Store:      store,
		Now:        fx.clock.Now,
		NewOrderID: func() string { return fmt.Sprintf("VP%017d", fx.seq.Add(1)) },
		NewTokenID: func() string { return "jti-test" },
	}
	for _, m := range mod {
		m(&opts)
	}
	gw, err := New(opts)
	if err != nil {
		fx.t.Fatal(err)
	}
	fx.store, fx.gw = store, gw
}

// response is a decoded answer.
type response struct {
	Code int
	Body map[string]any
	Raw  []byte
}

// status is the answer's status_code: the JSON member, or the hidden
// field of the refusal page a 3D payment answers with, HTML whatever the
// client asks (issue 34).
func (r response) status() int {
	if v, ok := r.Body["status_code"].(float64); ok {
		return int(v)
	}
	n, _ := strconv.Atoi(pageField(r.Raw, "status_code"))
	return n
}

func (r response) desc() string {
	if s, ok := r.Body["status_description"].(string); ok {
		return s
	}
	return pageField(r.Raw, "status_description")
}

// pageField is the value of a hidden input of a page the sandbox wrote.
func pageField(page []byte, name string) string {
	m := regexp.MustCompile(`<input type="hidden" name="` + regexp.QuoteMeta(name) + `" value="([^"]*)">`).FindSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(string(m[1]))
}

func (r response) data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

// call sends a request through the handler. body is JSON-encoded unless it
// is a string, sent as is.
func (fx *fixture) call(method, path string, body any, header map[string]string) response {
	fx.t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			fx.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	res := response{Code: rec.Code, Raw: rec.Body.Bytes()}
	if err := json.Unmarshal(rec.Body.Bytes(), &res.Body); err != nil {
		fx.t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, rec.Body.String())
	}
	return res
}

// bearer returns a valid bearer token.
func (fx *fixture) bearer() string {
	fx.t.Helper()
	res := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, nil)
	if res.status() != 100 {
		fx.t.Fatalf("token: %s", res.Raw)
	}
	return res.data()["token"].(string)
}

// authed sends an authorized request.
func (fx *fixture) authed(path string, body any) response {
	fx.t.Helper()
	return fx.call("POST", Base+path, body, map[string]string{"Authorization": "Bearer " + fx.bearer()})
}

// walletToken issues a wallet token valid for 10 minutes at the fixture's clock.
func (fx *fixture) walletToken(amount, currency string) string {
	fx.t.Helper()
	return fx.walletTokenWith(WalletRequest{Amount: decimal.RequireFromString(amount), Currency: currency,
		CardNumber: DefaultWalletCard, Wallet: WalletDeviceVendor, TTL: 10 * time.Minute})
}

func (fx *fixture) walletTokenWith(req WalletRequest) string {
	fx.t.Helper()
	tok, err := IssueWalletToken(req, fx.clock.Now(), fmt.Sprintf("wt-%d", fx.tokens.Add(1)))
	if err != nil {
		fx.t.Fatal(err)
	}
	return tok
}

// payBody is a valid walletPay request for a token of amount and currency.
func payBody(t testing.TB, invoice, walletToken, amount, currency string) map[string]string {
	t.Helper()
	hk, err := hashkey.Generate(AppSecret, strings.Join([]string{amount, "1", currency, MerchantKey, invoice}, "|"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"merchant_key":           MerchantKey,
		"hash_key":               hk,
		"invoice_id":             invoice,
		"wallet_transient_token": walletToken,
		"name":                   "Ayşe",
		"surname":                "Yılmaz",
		"bill_email":             "ayse@example.com",
	}
}

// statusBodyFor is a valid checkstatus request.
func statusBodyFor(t testing.TB, invoice string) map[string]string {
	t.Helper()
	hk, err := hashkey.Generate(AppSecret, invoice+"|"+MerchantKey)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"merchant_key": MerchantKey, "invoice_id": invoice, "include_pending_status": "true", "hash_key": hk}
}

// pay makes a walletPay for amount and currency under invoice.
func (fx *fixture) pay(invoice, amount, currency string) response {
	fx.t.Helper()
	return fx.authed("/api/walletPay", payBody(fx.t, invoice, fx.walletToken(amount, currency), amount, currency))
}

var _ http.Handler = (*Gateway)(nil)

func decimalOf(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// callRaw sends a request through the handler and returns the body as text
// (for answers that are not JSON, such as the 3D pages).
func (fx *fixture) callRaw(method, path, body string, header map[string]string) string {
	fx.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	return rec.Body.String()
}
