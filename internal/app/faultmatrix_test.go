package app

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// faultSandbox is an in-process sandbox with faults on whose PickFault
// gives fault to every request for endpoint (the last path element, e.g.
// "walletPay") and none to the others; it counts the walletPay requests
// that reached it, faulted or not.
func faultSandbox(t *testing.T, endpoint, fault string) (baseURL string, pays, hits *atomic.Int32) {
	t.Helper()
	pays, hits = new(atomic.Int32), new(atomic.Int32)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Gateway: sandbox.Options{Now: time.Now,
		Faults: true,
		PickFault: func(r *http.Request) string {
			if strings.HasSuffix(r.URL.Path, "/api/walletPay") {
				pays.Add(1)
			}
			if strings.HasSuffix(r.URL.Path, "/api/"+endpoint) {
				hits.Add(1)
				return fault
			}
			return ""
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv.BaseURL, pays, hits
}

// runSandboxed runs paycli in a fresh home against baseURL with the
// sandbox's credentials and returns the exit code, stderr and the path of
// the journal.
func runSandboxed(t *testing.T, baseURL string, args ...string) (code int, stderr, journalPath string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": baseURL, "PAYCLI_APP_ID": sandbox.AppID,
		"PAYCLI_APP_SECRET": sandbox.AppSecret, "PAYCLI_MERCHANT_KEY": sandbox.MerchantKey,
	}
	ios, _, _, errOut := iostreams.Test()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = Run(ctx, args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, errOut.String(), filepath.Join(home, "state", "paycli", journal.FileName)
}

func sandboxWalletToken(t *testing.T, amount string) string {
	t.Helper()
	tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString(amount), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, time.Now(), sandbox.NewTokenID()) // a wallet token pays once
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestFaultMatrix runs every fault of the sandbox's fault header against
// every gateway command, the fault hitting that command's own endpoint
// (the token call before it, if any, is left alone). Each must end with
// the documented exit code (docs/exit-codes.md: a safe call that cannot get an
// answer is 8, after its retries where it has them; a walletPay that may
// have left is 7), walletPay must reach the gateway at most once, and the
// last line of stderr must say what to do next.
func TestFaultMatrix(t *testing.T) {
	faults := []struct {
		header string
		// retried: a token or commission lookup tries again after it.
		retried bool
	}{
		{"delay=20s", false}, // beyond --timeout 4s
		{"status=500,body=html", false},
		{"status=502,body=html", true},
		{"status=503,body=html", true},
		{"status=504,body=html", true},
		{"status=503", true}, // with the sandbox's JSON message
		{"reset=before", true},
		{"reset=after", true},
		{"truncate=0", true},
		{"truncate=20", true},
	}
	commands := []struct {
		name     string
		endpoint string
		args     func(t *testing.T, invoice string) []string
		// retries: the call is one paycli retries (docs/protocol.md,
		// Common rules).
		retries  bool
		wantExit int
		wantHint func(invoice string) []string
		// wantJournal is the outcome the journal records ("" for commands
		// that do not journal, or that stop before the journal).
		wantJournal string
		// setup, when set, prepares the sandbox for the command (the sale a
		// refund is taken from).
		setup func(t *testing.T, baseURL, invoice string)
	}{
		{"token", "token", func(*testing.T, string) []string { return []string{"token"} },
			true, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, "", nil},
		{"commissions", "commissions", func(*testing.T, string) []string { return []string{"commissions", "--currency", "TRY"} },
			true, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, "", nil},
		{"walletpay", "walletPay", func(t *testing.T, invoice string) []string {
			return []string{"walletpay", "--invoice", invoice, "--token", sandboxWalletToken(t, "150.00"),
				"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes"}
		}, false, ExitOutcomeUnknown, func(invoice string) []string { return []string{"paycli status --invoice " + invoice} }, journal.Unknown, nil},
		// The token call before a walletPay fails: nothing was sent.
		{"walletpay-token", "token", func(t *testing.T, invoice string) []string {
			return []string{"walletpay", "--invoice", invoice, "--token", sandboxWalletToken(t, "150.00"),
				"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes"}
		}, true, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, journal.NotSent, nil},
		{"status", "checkstatus", func(_ *testing.T, invoice string) []string { return []string{"status", "--invoice", invoice} },
			false, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, "", nil},
		// A refund that may have left is unknown (7), resolved by --retry.
		{"refund", "refund", func(_ *testing.T, invoice string) []string {
			return []string{"refund", "--invoice", invoice, "--amount", "50.00", "--yes"}
		}, false, ExitOutcomeUnknown, func(string) []string { return []string{"paycli refund --retry RF"} }, journal.Unknown, paySale},
		// The check before a refund fails: nothing was sent or journaled.
		{"refund-checkstatus", "checkstatus", func(_ *testing.T, invoice string) []string {
			return []string{"refund", "--invoice", invoice, "--full", "--yes"}
		}, false, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, "", paySale},
		// paycli api: a read is never retried (Client.Do) and cannot get an
		// answer (8); a card payment may have left (7), journaled unknown.
		{"api-read", "commissions", func(*testing.T, string) []string {
			return []string{"api", "POST", "/api/commissions", "-f", "currency_code=TRY"}
		}, false, ExitUnavailable, func(string) []string { return []string{"--timeout", "--debug"} }, "", nil},
		{"api-pay", "paySmart2D", func(_ *testing.T, invoice string) []string {
			return []string{"api", "POST", "/api/paySmart2D", "--merchant-key", "--hash", "payment", "--yes",
				"-f", "invoice_id=" + invoice, "-f", "total=10.00", "-F", "installments_number=1", "-f", "currency_code=TRY",
				"-f", "cc_holder_name=Ada Lovelace", "-f", "cc_no=4355084355084358", "-f", "expiry_month=12", "-f", "expiry_year=2099",
				"-f", "cvv=000", "-f", "name=Ada", "-f", "surname=Lovelace", "-f", `items=[{"name":"Book","price":"10.00","quantity":1}]`}
		}, false, ExitOutcomeUnknown, func(invoice string) []string { return []string{"paycli status --invoice " + invoice} }, journal.Unknown, nil},
	}
	// The cells mostly wait (backoff, time limits), so they run 10 at a
	// time whatever -parallel says: subtests started from goroutines run
	// concurrently, each still reported on its own.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 10)
	for _, c := range commands {
		for _, fault := range faults {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				t.Run(c.name+"/"+fault.header, func(t *testing.T) {
					base, pays, hits := faultSandbox(t, c.endpoint, fault.header)
					invoice := "FM-" + strings.NewReplacer("=", "-", ",", "-").Replace(fault.header)
					// Time enough for the retries; the delay fault outlasts it, with
					// 4 s for the token call and the command to reach the endpoint
					// on a loaded machine (1 s was lost at load 20).
					timeout := "3s"
					if strings.HasPrefix(fault.header, "delay=") {
						timeout = "4s"
					}
					if c.setup != nil {
						c.setup(t, base, invoice)
					}
					code, stderr, journalPath := runSandboxed(t, base, append(c.args(t, invoice), "--timeout", timeout)...)
					if code != c.wantExit {
						t.Errorf("exit %d, want %d; stderr:\n%s", code, c.wantExit, stderr)
					}
					wantPays := int32(0)
					if c.endpoint == "walletPay" || c.setup != nil {
						wantPays = 1 // the sale's, for a refund
					}
					if n := pays.Load(); n != wantPays {
						t.Errorf("walletPay reached the gateway %d times, want %d", n, wantPays)
					}
					switch n := hits.Load(); {
					case c.retries && fault.retried && n < 2:
						t.Errorf("%s was called %d times, want it retried", c.endpoint, n)
					case !(c.retries && fault.retried) && n != 1:
						t.Errorf("%s was called %d times, want once", c.endpoint, n)
					}
					if c.wantJournal != "" {
						attempts, skipped, err := journal.Read(journalPath)
						if err != nil || skipped != 0 || len(attempts) != 1 {
							t.Fatalf("journal: %d attempts, %d bad lines, %v", len(attempts), skipped, err)
						}
						if a := attempts[0]; !a.Recorded() || a.Class() != c.wantJournal {
							t.Errorf("journal outcome %q, want %q", a.Class(), c.wantJournal)
						} else if c.wantJournal == journal.NotSent && a.Outcome.StatusCode != nil {
							t.Errorf("a walletPay never sent has status_code %d in the journal", *a.Outcome.StatusCode)
						}
					}
					lines := strings.Split(strings.TrimSpace(stderr), "\n")
					if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], "error: ") {
						t.Fatalf("stderr does not end with an error line and a hint:\n%s", stderr)
					}
					for _, want := range c.wantHint(invoice) {
						if hint := lines[len(lines)-1]; !strings.Contains(hint, want) {
							t.Errorf("hint %q does not mention %q", hint, want)
						}
					}
				})
			})
		}
	}
	wg.Wait()
}

// paySale makes a 150.00 TRY sale of invoice at the sandbox, for a refund.
func paySale(t *testing.T, baseURL, invoice string) {
	t.Helper()
	code, stderr, _ := runSandboxed(t, baseURL, "walletpay", "--invoice", invoice, "--token", sandboxWalletToken(t, "150.00"),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes")
	if code != ExitOK {
		t.Fatalf("the sale before the refund: exit %d\n%s", code, stderr)
	}
}
