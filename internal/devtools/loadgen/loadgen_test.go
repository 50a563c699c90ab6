package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/ports"
)

// TestPrepareDuplicates pins the request mix: n requests, of which
// round(n × ratio) repeat the invoice of a request sent before them.
func TestPrepareDuplicates(t *testing.T) {
	for _, tt := range []struct {
		n     int
		ratio float64
	}{{1, 0}, {10, 0}, {10, 0.1}, {40, 0.25}, {9, 0.5}, {8, 0.75}, {100, 0.99}} {
		t.Run(fmt.Sprint(tt.n, "x", tt.ratio), func(t *testing.T) {
			b := &bencher{cfg: Config{Endpoint: WalletPay, Requests: tt.n, Duplicates: tt.ratio,
				Now: time.Now, RunID: "run"}}
			jobs, invoices, err := b.prepare(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			wantDups := int(math.Round(float64(tt.n) * tt.ratio))
			if len(jobs) != tt.n || len(invoices) != tt.n-wantDups {
				t.Fatalf("%d jobs, %d invoices; want %d and %d", len(jobs), len(invoices), tt.n, tt.n-wantDups)
			}
			sent := map[string]bool{}
			dups := 0
			for i, j := range jobs {
				if j.wantDuplicate {
					dups++
					if !sent[j.invoice] {
						t.Errorf("job %d repeats invoice %s before it was sent", i, j.invoice)
					}
				} else if sent[j.invoice] {
					t.Errorf("job %d: invoice %s is not new", i, j.invoice)
				}
				sent[j.invoice] = true
			}
			if dups != wantDups || len(sent) != len(invoices) {
				t.Errorf("%d duplicates over %d invoices, want %d over %d", dups, len(sent), wantDups, len(invoices))
			}
		})
	}
}

// startSandbox serves a sandbox over a fresh state folder on loopback.
func startSandbox(t *testing.T) (baseURL, stateDir string, stop func()) {
	t.Helper()
	stateDir = t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{Gateway: sandbox.Options{Now: time.Now}, StateDir: stateDir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var stopped atomic.Bool
	stop = func() {
		if stopped.CompareAndSwap(false, true) {
			_ = srv.Shutdown(context.Background())
		}
	}
	t.Cleanup(stop)
	return srv.BaseURL, stateDir, stop
}

func config(baseURL, endpoint string, n, c int, dups float64) Config {
	return Config{BaseURL: baseURL, Endpoint: endpoint, Requests: n, Concurrency: c, Duplicates: dups, Now: time.Now, RunID: "t1"}
}

// TestRunWalletPay runs the benchmark against a real sandbox: every
// first request for an invoice is paid, every duplicate refused, and the
// store holds exactly one completed sale per invoice.
func TestRunWalletPay(t *testing.T) {
	baseURL, stateDir, stop := startSandbox(t)
	rep, err := Run(context.Background(), config(baseURL, WalletPay, 80, 8, 0.25))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Failure(); err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || !rep.Verified || rep.Invoices != 60 || rep.StatusCodes["100"] != 60 || rep.StatusCodes["3"] != 20 || len(rep.StatusCodes) != 2 {
		t.Errorf("report %+v", rep)
	}
	if rep.RequestsPerSecond <= 0 || rep.LatencyMS.P50 <= 0 || rep.LatencyMS.P50 > rep.LatencyMS.P90 ||
		rep.LatencyMS.P90 > rep.LatencyMS.P99 || rep.LatencyMS.P99 > rep.LatencyMS.Max {
		t.Errorf("figures %+v %v", rep.LatencyMS, rep.RequestsPerSecond)
	}

	stop()
	store, err := sandbox.OpenStore(stateDir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sales, err := store.Sales()
	if err != nil {
		t.Fatal(err)
	}
	if len(sales) != 60 {
		t.Fatalf("%d sales stored, want 60", len(sales))
	}
	for _, s := range sales {
		if s.State != sandbox.StateCompleted || !strings.HasPrefix(s.InvoiceID, "BENCH-t1-") || s.Amount != Amount {
			t.Errorf("sale %+v", s)
		}
	}
}

func TestRunOtherEndpoints(t *testing.T) {
	baseURL, _, _ := startSandbox(t)
	for _, tt := range []struct {
		endpoint     string
		wantInvoices int
	}{{Commissions, 0}, {CheckStatus, 5}} {
		t.Run(tt.endpoint, func(t *testing.T) {
			rep, err := Run(context.Background(), config(baseURL, tt.endpoint, 5, 2, 0))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Endpoint != tt.endpoint || rep.Errors != 0 || rep.StatusCodes["100"] != 5 || len(rep.StatusCodes) != 1 ||
				rep.Invoices != tt.wantInvoices || rep.Verified != (tt.wantInvoices > 0) || rep.Failure() != nil {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

func TestRunUnreachable(t *testing.T) {
	addr := ports.Addr(t) // nothing listens there, and no one else's meanwhile
	_, err := Run(context.Background(), config("http://"+addr+"/ccpayment", WalletPay, 1, 1, 0))
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
}
