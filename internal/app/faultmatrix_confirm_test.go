package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

// faultSandboxAt is faultSandbox for any path: fault goes to every request
// whose path ends in suffix ("/api/confirmPayment", "/payment/complete"),
// counted in hits.
func faultSandboxAt(t *testing.T, suffix, fault string) (baseURL string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Gateway: sandbox.Options{Now: time.Now,
		Faults: true,
		PickFault: func(r *http.Request) string {
			if strings.HasSuffix(r.URL.Path, suffix) {
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
	return srv.BaseURL, hits
}

// sandboxSale makes a sale at the sandbox at baseURL (as `paycli sandbox
// pay` does) and returns its order id.
func sandboxSale(t *testing.T, baseURL string, opts sandboxcmd.PayOptions) string {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	opts.IO = ios
	opts.Format = func() (render.Format, error) { return render.JSON, nil }
	opts.BaseURL = func(context.Context) (string, error) { return baseURL, nil }
	opts.Now = time.Now
	opts.Card, opts.Currency, opts.Installments = sandbox.DefaultWalletCard, "TRY", 1
	if opts.CompletedBy == "" {
		opts.CompletedBy = sandbox.CompletedByApp
	}
	if err := sandboxcmd.PayRun(context.Background(), &opts); err != nil {
		t.Fatalf("sandbox pay: %v\n%s", err, errOut)
	}
	var res sandboxcmd.PayResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.OrderID == "" {
		t.Fatalf("sandbox pay printed %s (%v)", out, err)
	}
	return res.OrderID
}

// TestFaultMatrixConfirmComplete runs every fault of the sandbox's fault
// header against preauth capture, preauth cancel and complete, the fault
// hitting their own call (confirmPayment, payment/complete; the check
// status before it is left alone). Each moves money, so each must reach
// the gateway exactly once, exit 7 with the `paycli status` line, and
// leave an unknown outcome in the journal — except HTTP 401, which is
// exit 3, also sent once.
func TestFaultMatrixConfirmComplete(t *testing.T) {
	faults := []string{"delay=20s", "status=500,body=html", "status=502,body=html", "status=503,body=html",
		"status=504,body=html", "status=503", "reset=before", "reset=after", "truncate=0", "truncate=20", "status=401"}
	commands := []struct {
		name, suffix, kind string
		sale               sandboxcmd.PayOptions
		args               func(invoice, order string) []string
	}{
		{"capture", "/api/confirmPayment", "preauth-capture", sandboxcmd.PayOptions{PreAuth: true},
			func(invoice, _ string) []string {
				return []string{"preauth", "capture", "--invoice", invoice, "--amount", "10.00", "--yes"}
			}},
		{"cancel", "/api/confirmPayment", "preauth-cancel", sandboxcmd.PayOptions{PreAuth: true},
			func(invoice, _ string) []string { return []string{"preauth", "cancel", "--invoice", invoice, "--yes"} }},
		{"complete", "/payment/complete", "complete", sandboxcmd.PayOptions{ThreeD: true, CompletedBy: sandbox.CompletedByMerchant},
			func(invoice, order string) []string {
				return []string{"complete", "--invoice", invoice, "--order-id", order, "--yes"}
			}},
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 10)
	for _, c := range commands {
		for _, fault := range faults {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				t.Run(c.name+"/"+fault, func(t *testing.T) {
					base, hits := faultSandboxAt(t, c.suffix, fault)
					invoice := "FM-" + strings.NewReplacer("=", "-", ",", "-").Replace(fault)
					sale := c.sale
					sale.Invoice, sale.Amount = invoice, decimal.RequireFromString("50.00")
					order := sandboxSale(t, base, sale)
					timeout := "3s"
					if strings.HasPrefix(fault, "delay=") {
						timeout = "4s"
					}
					code, stderr, journalPath := runSandboxed(t, base, append(c.args(invoice, order), "--timeout", timeout)...)
					if fault == "status=401" {
						// Refused credentials: nothing was processed, and
						// the call is not repeated with a new token.
						if code != ExitAuth || hits.Load() != 1 || !strings.Contains(stderr, "run the command again") {
							t.Errorf("401: exit %d (want %d), %d calls (want 1); stderr:\n%s", code, ExitAuth, hits.Load(), stderr)
						}
						return
					}
					if code != ExitOutcomeUnknown {
						t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitOutcomeUnknown, stderr)
					}
					if n := hits.Load(); n != 1 {
						t.Errorf("%s reached the gateway %d times, want once", c.suffix, n)
					}
					attempts, skipped, err := journal.Read(journalPath)
					if err != nil || skipped != 0 || len(attempts) != 1 {
						t.Fatalf("journal: %d attempts, %d bad lines, %v", len(attempts), skipped, err)
					}
					if a := attempts[0]; !a.Recorded() || a.Class() != journal.Unknown || a.Intent.OpKind() != c.kind {
						t.Errorf("journal: kind %q outcome %q, want %q %q", a.Intent.OpKind(), a.Class(), c.kind, journal.Unknown)
					}
					lines := strings.Split(strings.TrimSpace(stderr), "\n")
					if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], "error: outcome unknown") ||
						!strings.Contains(lines[len(lines)-1], "paycli status --invoice "+invoice) {
						t.Errorf("stderr does not end with the unknown outcome and the status line:\n%s", stderr)
					}
					if bytes.Contains([]byte(stderr), []byte(sandbox.AppSecret)) {
						t.Errorf("stderr holds the app secret")
					}
				})
			})
		}
	}
	wg.Wait()
}
