package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
)

// walletToken is an unsigned wallet token for 150.00 TRY that expires in
// an hour: paycli decodes wallet tokens and never verifies them.
func walletToken() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"amount":"150.00","currency":"TRY","card":{"bin":"435508","last4":"4358"},"wallet":"001","exp":%d}`, time.Now().Add(time.Hour).Unix())
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + ".c2ln"
}

// droppingGateway issues bearer tokens and handles walletPay with onPay,
// counting walletPay requests.
func droppingGateway(t *testing.T, onPay http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var pays atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ccpayment/api/token":
			enc := base64.RawURLEncoding.EncodeToString
			tok := enc([]byte(`{"alg":"HS256"}`)) + "." + enc(fmt.Appendf(nil, `{"exp":%d}`, time.Now().Add(2*time.Hour).Unix())) + ".c2ln"
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status_code":100,"status_description":"ok","data":{"token":%q,"is_3d":1,"expires_at":""}}`, tok)
		case "/ccpayment/api/walletPay":
			pays.Add(1)
			onPay(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &pays
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
	srv, pays := droppingGateway(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_ = conn.Close()
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
	srv, pays := droppingGateway(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		close(received)
		<-r.Context().Done()
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
	srv, pays := droppingGateway(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		if first.CompareAndSwap(false, true) {
			cancel() // Ctrl-C while this payment is at the gateway
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status_code":100,"status_description":"ok","data":{"service_status":1,"order_no":"VP-%s","invoice_id":%q}}`, body["invoice_id"], body["invoice_id"])
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
	var answered atomic.Int32
	srv, pays := droppingGateway(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if answered.Add(1) == 1 {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"message":"Unauthenticated."}`)
			return
		}
		fmt.Fprint(w, `{"status_code":100,"status_description":"ok","data":{"sipay_status":1,"order_no":"VP1","order_id":"VP1","invoice_id":"AUTH-1","payment_status":1,"error_code":100}}`)
	})
	code, stderr, path := runAgainst(t, context.Background(), srv.URL+"/ccpayment", payArgs("AUTH-1")...)
	if code != ExitAuth {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
	if n := pays.Load(); n != 1 {
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
