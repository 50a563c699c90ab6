package sandboxcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

func TestBenchFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage bool
		check     func(*BenchOptions) string
	}{
		{nil, false, func(o *BenchOptions) string {
			if o.Endpoint != BenchWalletPay || o.Requests != 2000 || o.Concurrency != 32 || o.Duplicates != 0 ||
				o.BaseURL != "" || o.StateDir != "/home/.local/state/paycli/sandbox" {
				return fmt.Sprintf("defaults %+v", *o)
			}
			return ""
		}},
		{[]string{"-n", "10", "-c", "2", "--duplicates", "0.25", "--base-url", "http://127.0.0.1:1/ccpayment/", "--state", "s"}, false, func(o *BenchOptions) string {
			if o.Requests != 10 || o.Concurrency != 2 || o.Duplicates != 0.25 || o.BaseURL != "http://127.0.0.1:1/ccpayment" || o.StateDir != "s" {
				return fmt.Sprintf("parsed %+v", *o)
			}
			return ""
		}},
		{[]string{"--endpoint", "checkstatus"}, false, func(o *BenchOptions) string {
			if o.Endpoint != BenchCheckStatus {
				return o.Endpoint
			}
			return ""
		}},
		{[]string{"--endpoint", "refund"}, true, nil},
		{[]string{"--requests", "0"}, true, nil},
		{[]string{"--concurrency", "0"}, true, nil},
		{[]string{"--concurrency", "5000"}, true, nil},
		{[]string{"--duplicates", "1"}, true, nil},
		{[]string{"--duplicates", "-0.1"}, true, nil},
		{[]string{"--duplicates", "NaN"}, true, nil},
		{[]string{"--duplicates", "0.1", "--endpoint", "commissions"}, true, nil},
		{[]string{"--base-url", "127.0.0.1:8787/ccpayment"}, true, nil},
		{[]string{"extra"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _ := testFactory(t, map[string]string{"HOME": "/home"})
			var got *BenchOptions
			err := runCmd(NewCmdBench(f, func(_ context.Context, o *BenchOptions) error { got = o; return nil }), tt.args...)
			if tt.wantUsage {
				if !isUsage(err) || got != nil {
					t.Fatalf("err = %v (ran: %v), want a usage error before running", err, got != nil)
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("err = %v", err)
			}
			if msg := tt.check(got); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestBenchPrepareDuplicates pins the request mix: n requests, of which
// round(n × ratio) repeat the invoice of a request sent before them.
func TestBenchPrepareDuplicates(t *testing.T) {
	for _, tt := range []struct {
		n     int
		ratio float64
	}{{1, 0}, {10, 0}, {10, 0.1}, {40, 0.25}, {9, 0.5}, {8, 0.75}, {100, 0.99}} {
		t.Run(fmt.Sprint(tt.n, "x", tt.ratio), func(t *testing.T) {
			b := &bencher{opts: &BenchOptions{Endpoint: BenchWalletPay, Requests: tt.n, Duplicates: tt.ratio,
				Now: time.Now, NewRunID: func() string { return "run" }}}
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
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: stateDir, LockTimeout: time.Second})
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

func benchOpts(ios *iostreams.IOStreams, format render.Format, baseURL, endpoint string, n, c int, dups float64) *BenchOptions {
	return &BenchOptions{
		IO: ios, Format: func() (render.Format, error) { return format, nil }, BaseURL: baseURL,
		Endpoint: endpoint, Requests: n, Concurrency: c, Duplicates: dups,
		Now: time.Now, NewRunID: func() string { return "t1" },
		Probe: func(context.Context, string) bool { return false },
	}
}

// TestBenchRunWalletPay runs the benchmark against a real sandbox: every
// first request for an invoice is paid, every duplicate refused, and the
// store holds exactly one completed sale per invoice.
func TestBenchRunWalletPay(t *testing.T) {
	baseURL, stateDir, stop := startSandbox(t)
	ios, _, out, _ := iostreams.Test()
	if err := BenchRun(context.Background(), benchOpts(ios, render.JSON, baseURL, BenchWalletPay, 80, 8, 0.25)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep BenchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
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
		if s.State != sandbox.StateCompleted || !strings.HasPrefix(s.InvoiceID, "BENCH-t1-") || s.Amount != benchAmount {
			t.Errorf("sale %+v", s)
		}
	}
}

func TestBenchRunOtherEndpoints(t *testing.T) {
	baseURL, _, _ := startSandbox(t)
	for _, tt := range []struct {
		endpoint     string
		wantInvoices int
	}{{BenchCommissions, 0}, {BenchCheckStatus, 5}} {
		t.Run(tt.endpoint, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			if err := BenchRun(context.Background(), benchOpts(ios, render.TSV, baseURL, tt.endpoint, 5, 2, 0)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("TSV output:\n%s", out)
			}
			head, row := strings.Split(lines[0], "\t"), strings.Split(lines[1], "\t")
			got := map[string]string{}
			for i := range head {
				got[head[i]] = row[i]
			}
			wantVerified := map[bool]string{true: "true", false: "-"}[tt.wantInvoices > 0]
			if got["endpoint"] != tt.endpoint || got["errors"] != "0" || got["status_codes"] != "100=5" ||
				got["invoices"] != fmt.Sprint(tt.wantInvoices) || got["verified"] != wantVerified {
				t.Errorf("report %v", got)
			}
		})
	}
}

// TestBenchRunDetectsDoubleSales runs against a broken gateway that pays
// duplicates and whose check status names another order: bench reports
// the errors, fails verification and exits non-zero.
func TestBenchRunDetectsDoubleSales(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ccpayment/api/token", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status_code":100,"data":{"token":"tok"}}`)
	})
	mux.HandleFunc("POST /ccpayment/api/walletPay", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status_code":100,"data":{"order_id":"VP1"}}`)
	})
	mux.HandleFunc("POST /ccpayment/api/checkstatus", func(w http.ResponseWriter, r *http.Request) {
		var req map[string]string
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"status_code":100,"transaction_status":"Completed","invoice_id":%q,"order_id":"VP2"}`, req["invoice_id"])
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ios, _, out, _ := iostreams.Test()
	err := BenchRun(context.Background(), benchOpts(ios, render.JSON, srv.URL+"/ccpayment", BenchWalletPay, 10, 3, 0.5))
	if err == nil {
		t.Fatal("no error")
	}
	var rep BenchReport
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("%v\n%s", jerr, out)
	}
	if rep.Errors != 5 || rep.Verified || len(rep.Problems) != 5 || !strings.Contains(rep.Problems[0], `order "VP2"`) {
		t.Errorf("report %+v", rep)
	}
}

func TestBenchRunWithoutSandbox(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	opts := benchOpts(ios, render.Table, "", BenchWalletPay, 1, 1, 0)
	opts.StateDir = t.TempDir()
	err := BenchRun(context.Background(), opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || out.Len() != 0 {
		t.Fatalf("err = %v (kind %v), out %q", err, k, out)
	}
}

func TestBenchTableReport(t *testing.T) {
	var b strings.Builder
	rep := BenchReport{Endpoint: "walletpay", Requests: 4, Concurrency: 2, Duplicates: 0.5, ElapsedSeconds: 0.002,
		RequestsPerSecond: 2000, LatencyMS: BenchLatency{P50: 1, P90: 1.5, P99: 2, Max: 2.25},
		StatusCodes: map[string]int{"3": 2, "100": 2}, Invoices: 2, Verified: true}
	if err := writeBenchReport(&b, render.Table, rep); err != nil {
		t.Fatal(err)
	}
	want := `endpoint:       walletpay
requests:       4
concurrency:    2
duplicates:     0.5
elapsed_s:      0.002
requests_per_s: 2000.0
p50_ms:         1
p90_ms:         1.5
p99_ms:         2
max_ms:         2.25
errors:         0
status_codes:   100=2 3=2
invoices:       2
verified:       true
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
