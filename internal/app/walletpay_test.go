package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// walletToken is an unsigned wallet token for 150.00 TRY that expires in
// an hour: paycli decodes wallet tokens and never verifies them.
func walletToken() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"amount":"150.00","currency":"TRY","card":{"bin":"435508","last4":"4358"},"wallet":"001","exp":%d}`, time.Now().Add(time.Hour).Unix())
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + ".c2ln"
}

// walletPayPath is the walletPay call under the base URL /ccpayment.
const walletPayPath = "/ccpayment/api/walletPay"

// newAppGateway is the recorded-answer server (internal/testkit/replay)
// with the token call answered by the recorded token. paycli runs on the
// wall clock here, past that token's exp: each run fetches a token and
// none is reused, whatever the day.
func newAppGateway(t *testing.T) *replay.Server {
	t.Helper()
	g := replay.New(t)
	g.Answer(http.MethodPost, "/ccpayment/api/token", 200, replay.Recorded("token.json"))
	return g
}

// faultFront is a server in front of g, not a gateway double: a request
// to path meets fault, a transport fault (a dropped connection, a request
// held), which returns false to pass the request on to g; every other
// request passes. It counts the requests to path.
func faultFront(t *testing.T, g *replay.Server, path string, fault func(w http.ResponseWriter, r *http.Request) bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	target, err := url.Parse(g.URL)
	if err != nil {
		t.Fatal(err)
	}
	pass := httputil.NewSingleHostReverseProxy(target)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			hits.Add(1)
			if fault(w, r) {
				return
			}
		}
		pass.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// runAgainst runs paycli with a profile from the environment pointing at
// baseURL, in a fresh home.
func runAgainst(t *testing.T, ctx context.Context, baseURL string, args ...string) (code int, stderr, journalPath string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": baseURL, "PAYCLI_APP_ID": "app-id",
		"PAYCLI_APP_SECRET": "app-secret-0123456789", "PAYCLI_MERCHANT_KEY": "merchant-key-0123456789",
	}
	ios, _, _, errOut := iostreams.Test()
	code = Run(ctx, args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, errOut.String(), filepath.Join(home, "state", "paycli", journal.FileName)
}

func payArgs(invoice string) []string {
	return []string{"walletpay", "--invoice", invoice, "--token", walletToken(), "--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes"}
}

// checkUnknownRecorded: the journal holds exactly one attempt, its intent
// and an outcome line saying unknown.
func checkUnknownRecorded(t *testing.T, path, invoice string) {
	t.Helper()
	attempts, skipped, err := journal.Read(path)
	if err != nil || skipped != 0 || len(attempts) != 1 {
		t.Fatalf("journal: %d attempts, %d bad lines, %v", len(attempts), skipped, err)
	}
	a := attempts[0]
	if a.Intent.Invoice != invoice || !a.Recorded() || a.Class() != journal.Unknown {
		t.Errorf("attempt %+v, outcome %+v; want a recorded unknown outcome", a.Intent, a.Outcome)
	}
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{"ada@example.com", "eyJ", "app-secret-0123456789", "merchant-key-0123456789", "hash_key"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the journal holds %q", secret)
		}
	}
}

// TestWalletPayConnectionDroppedAfterSending: the gateway reads the whole
// request, then drops the connection. The outcome is unknown (exit 7),
// the payment was sent exactly once, and the journal has both lines.
func TestWalletPayConnectionDroppedAfterSending(t *testing.T) {
	srv, pays := faultFront(t, newAppGateway(t), walletPayPath, func(w http.ResponseWriter, r *http.Request) bool {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return true
		}
		_ = conn.Close()
		return true
	})
	code, stderr, path := runAgainst(t, context.Background(), srv.URL+"/ccpayment", payArgs("DROP-1")...)
	if code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7; stderr:\n%s", code, stderr)
	}
	if n := pays.Load(); n != 1 {
		t.Errorf("%d walletPay requests at the gateway, want exactly 1", n)
	}
	want := "error: outcome unknown for invoice DROP-1: the request was sent but no complete answer arrived; it was not retried\n" +
		"Find out what happened with: paycli status --invoice DROP-1\n"
	if !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr, want)
	}
	checkUnknownRecorded(t, path, "DROP-1")
}

// TestWalletPayInterruptedAfterSending: Ctrl-C while the gateway holds the
// payment exits 7 (not 130) and still records the outcome as unknown.
func TestWalletPayInterruptedAfterSending(t *testing.T) {
	received := make(chan struct{})
	srv, pays := faultFront(t, newAppGateway(t), walletPayPath, func(w http.ResponseWriter, r *http.Request) bool {
		_, _ = io.Copy(io.Discard, r.Body)
		close(received)
		<-r.Context().Done()
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-received; cancel() }()
	code, stderr, path := runAgainst(t, ctx, srv.URL+"/ccpayment", payArgs("INT-1")...)
	if code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "error: outcome unknown for invoice INT-1: interrupted after the request was sent; it was not retried\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if pays.Load() != 1 {
		t.Errorf("%d walletPay requests", pays.Load())
	}
	checkUnknownRecorded(t, path, "INT-1")
}

// TestBatchInterruptFinishesInFlight: Ctrl-C during a batch stops new
// lines, lets the payments in flight finish and record their outcome,
// reports the rest as not sent, and exits 130.
func TestBatchInterruptFinishesInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	var first atomic.Bool
	// One line at a time: B-0 is the payment in flight, held at the
	// gateway while Ctrl-C comes, then answered.
	g := newAppGateway(t)
	g.AnswerText(http.MethodPost, walletPayPath, 200, `{"status_code":100,"status_description":"ok","data":{"service_status":1,"order_no":"VP-B-0","invoice_id":"B-0"}}`)
	srv, pays := faultFront(t, g, walletPayPath, func(w http.ResponseWriter, r *http.Request) bool {
		if first.CompareAndSwap(false, true) {
			cancel() // Ctrl-C while this payment is at the gateway
			<-release
		}
		return false
	})
	go func() { <-ctx.Done(); time.Sleep(50 * time.Millisecond); close(release) }()

	dir := t.TempDir()
	var lines []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf(`{"invoice":"B-%d","token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, i, walletToken()))
	}
	batch := filepath.Join(dir, "batch.jsonl")
	if err := os.WriteFile(batch, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr, path := runAgainst(t, ctx, srv.URL+"/ccpayment", "walletpay", "--batch", batch, "--yes", "--parallel", "1")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr)
	}
	if pays.Load() != 1 {
		t.Errorf("%d payments sent after Ctrl-C, want only the one in flight", pays.Load())
	}
	attempts, _, err := journal.Read(path)
	if err != nil || len(attempts) != 1 || attempts[0].Class() != journal.Succeeded {
		t.Fatalf("journal %+v, %v; want the in-flight payment recorded as succeeded", attempts, err)
	}
	if !strings.Contains(stderr, "Batch done: 1 succeeded, 9 not sent.\n") || !strings.HasSuffix(stderr, "interrupted\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestWalletPayNeverResentAfter401: a gateway that answers the first
// walletPay with HTTP 401 and any later one with success sees exactly one
// walletPay; paycli exits 3 saying nothing was charged and to run the
// command again (a repeat could have charged twice, or been answered
// "already processed" and read as "charged nothing").
func TestWalletPayNeverResentAfter401(t *testing.T) {
	g := newAppGateway(t)
	g.AnswerTextOnce(http.MethodPost, walletPayPath, http.StatusUnauthorized, `{"message":"Unauthenticated."}`)
	g.AnswerText(http.MethodPost, walletPayPath, 200, `{"status_code":100,"status_description":"ok","data":{"sipay_status":1,"order_no":"VP1","order_id":"VP1","invoice_id":"AUTH-1","payment_status":1,"error_code":100}}`)
	code, stderr, path := runAgainst(t, context.Background(), g.URL+"/ccpayment", payArgs("AUTH-1")...)
	if code != ExitAuth {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
	if n := g.Count(walletPayPath); n != 1 {
		t.Errorf("%d walletPay requests at the gateway, want exactly 1", n)
	}
	for _, want := range []string{"processed nothing", "run the command again"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	attempts, _, err := journal.Read(path)
	if err != nil || len(attempts) != 1 || !attempts[0].Recorded() || attempts[0].Class() != journal.Rejected {
		t.Fatalf("journal: %+v, %v; want one attempt recorded as rejected (nothing taken)", attempts, err)
	}
}
