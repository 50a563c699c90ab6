package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/devtools/loadgen"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// testFactory is a factory over test streams and a fixed environment.
func testFactory(t *testing.T, env map[string]string) (*cmdutil.Factory, *iostreams.IOStreams) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{
		IOStreams: ios,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Now:       func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) },
	}, ios
}

func runCmd(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func isUsage(err error) bool { k, _ := cmdutil.KindOf(err); return k == cmdutil.KindUsage }

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
		{[]string{"-o", "xml"}, true, nil},
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

func benchOpts(ios *iostreams.IOStreams, format render.Format, baseURL, endpoint string, n, c int, dups float64) *BenchOptions {
	return &BenchOptions{
		IO: ios, Format: func() (render.Format, error) { return format, nil }, BaseURL: baseURL,
		Endpoint: endpoint, Requests: n, Concurrency: c, Duplicates: dups,
		Now: time.Now, NewRunID: func() string { return "t1" },
		Probe: func(context.Context, string) bool { return false },
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
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"status_code":100,"transaction_status":"Completed","invoice_id":%q,"order_id":"VP2"}`, req["invoice_id"])
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ios, _, out, _ := iostreams.Test()
	err := benchRun(context.Background(), benchOpts(ios, render.JSON, srv.URL+"/ccpayment", BenchWalletPay, 10, 3, 0.5))
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
	err := benchRun(context.Background(), opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || out.Len() != 0 {
		t.Fatalf("err = %v (kind %v), out %q", err, k, out)
	}
}

func TestBenchTableReport(t *testing.T) {
	var b strings.Builder
	rep := BenchReport{Endpoint: "walletpay", Requests: 4, Concurrency: 2, Duplicates: 0.5, ElapsedSeconds: 0.002,
		RequestsPerSecond: 2000, LatencyMS: loadgen.Latency{P50: 1, P90: 1.5, P99: 2, Max: 2.25},
		StatusCodes: map[string]int{"3": 2, "100": 2}, Invoices: 2, Verified: true}
	if err := writeBenchReport(context.Background(), &b, nil, render.Table, rep); err != nil {
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
