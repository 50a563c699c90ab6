package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
)

// The profile hostileGateway's commands run with: its secrets are long and
// distinct, so that a test can look for them anywhere paycli writes.
const (
	hostileAppID       = "hostile-app-id-0123456789"
	hostileAppSecret   = "hostile-app-secret-0123456789"
	hostileMerchantKey = "hostile-merchant-key-0123456789"
)

// hostileGateway is an independent fake gateway for issue 23's defects: it
// issues bearer tokens and answers every other path with the handler the
// test gives for it (by the path after /ccpayment), recording each
// request's body. A path without a handler is 404.
type hostileGateway struct {
	*httptest.Server
	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	bodies   map[string][]map[string]any
}

func newHostileGateway(t *testing.T, handlers map[string]http.HandlerFunc) *hostileGateway {
	t.Helper()
	g := &hostileGateway{handlers: handlers, bodies: map[string][]map[string]any{}}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.Close)
	return g
}

func (g *hostileGateway) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/ccpayment")
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	_ = dec.Decode(&body)
	r.Body = io.NopCloser(strings.NewReader(string(raw)))
	g.mu.Lock()
	g.bodies[path] = append(g.bodies[path], body)
	h := g.handlers[path]
	g.mu.Unlock()
	if path == "/api/token" {
		enc := base64.RawURLEncoding.EncodeToString
		tok := enc([]byte(`{"alg":"HS256"}`)) + "." + enc(fmt.Appendf(nil, `{"exp":%d}`, time.Now().Add(2*time.Hour).Unix())) + ".c2ln"
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status_code":100,"status_description":"ok","data":{"token":%q,"is_3d":1,"expires_at":""}}`, tok)
		return
	}
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// calls is how many requests path got.
func (g *hostileGateway) calls(path string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.bodies[path])
}

// sent is the body of request n (from 0) to path.
func (g *hostileGateway) sent(t *testing.T, path string, n int) map[string]any {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if n >= len(g.bodies[path]) {
		t.Fatalf("%s got %d requests, not %d", path, len(g.bodies[path]), n+1)
	}
	return g.bodies[path][n]
}

// answer is a handler writing body as JSON.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

// hostileRun is one run of paycli against the hostile gateway, in home
// (kept between runs of one test).
type hostileRun struct {
	code           int
	stdout, stderr string
	journal        string
}

func runHostile(t *testing.T, g *hostileGateway, home string, args ...string) hostileRun {
	t.Helper()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": g.URL + "/ccpayment", "PAYCLI_APP_ID": hostileAppID,
		"PAYCLI_APP_SECRET": hostileAppSecret, "PAYCLI_MERCHANT_KEY": hostileMerchantKey,
	}
	ios, _, out, errOut := iostreams.Test()
	code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return hostileRun{code: code, stdout: out.String(), stderr: errOut.String(), journal: filepath.Join(home, "state", "paycli", journal.FileName)}
}

// checkStatusOf is a check-status answer for invoice: a completed TRY sale
// of amount, with fields set or (with a nil value) removed by change.
func checkStatusOf(invoice, amount string, change map[string]any) string {
	m := map[string]any{
		"status_code": 100, "status_description": "ok", "transaction_status": "Completed", "order_id": "ORD-1",
		"invoice_id": invoice, "transaction_amount": amount, "total_refunded_amount": "0.00", "transaction_type": "Auth",
		"payment_status": 1, "currency_code": "TRY", "cc_no": "435508****4358", "refund_info": nil,
	}
	for k, v := range change {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// refundAnswer answers a refund request for what it asked: status_code 100
// naming the invoice sent.
func refundAnswer(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"status_code":100,"status_description":"Refund successful.","order_no":"RO-1","invoice_id":%q,"ref_no":"R1"}`, body["invoice_id"])
}

// TestRefundAmountWithTrailingZeros (issue 23, defect 10): 50.000 TRY is
// the amount 50: trailing zeros change nothing. It is refunded, sent as
// 50.00 (the text its hash_key holds too).
func TestRefundAmountWithTrailingZeros(t *testing.T) {
	g := newHostileGateway(t, map[string]http.HandlerFunc{
		"/api/checkstatus": answer(checkStatusOf("INV-Z", "150.00", nil)),
		"/api/refund":      refundAnswer,
	})
	r := runHostile(t, g, t.TempDir(), "refund", "--invoice", "INV-Z", "--amount", "50.000", "--yes")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if got := g.sent(t, "/api/refund", 0)["amount"]; fmt.Sprint(got) != "50.00" {
		t.Errorf("refund amount sent %v, want 50.00", got)
	}
	if !strings.Contains(r.stdout, "50.00") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// TestFullRefundNeverRoundsUp (issue 23): what remains of a sale of
// 150.005 TRY is refunded as 150.00, never 150.01: paycli never rounds a
// refund up past what was sold.
func TestFullRefundNeverRoundsUp(t *testing.T) {
	g := newHostileGateway(t, map[string]http.HandlerFunc{
		"/api/checkstatus": answer(checkStatusOf("INV-R", "150.005", nil)),
		"/api/refund":      refundAnswer,
	})
	r := runHostile(t, g, t.TempDir(), "refund", "--invoice", "INV-R", "--full", "--yes", "-o", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	var out struct {
		Amount json.Number `json:"amount"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Amount != "150.00" {
		t.Errorf("refunded %q (%v), want 150.00; stdout:\n%s", out.Amount, err, r.stdout)
	}
}
