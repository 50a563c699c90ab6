package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/devtools/loadgen"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/sandboxmode"
	"github.com/spf13/cobra"
)

// Endpoints paycli-bench can load.
const (
	BenchWalletPay   = loadgen.WalletPay
	BenchCommissions = loadgen.Commissions
	BenchCheckStatus = loadgen.CheckStatus
)

// BenchOptions are the inputs of paycli-bench.
type BenchOptions struct {
	IO     *iostreams.IOStreams
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
	// BaseURL is the sandbox to load; when empty, the running `paycli
	// sandbox serve` recorded in StateDir.
	BaseURL  string
	StateDir string
	// Endpoint is one of walletpay, commissions, checkstatus.
	Endpoint    string
	Requests    int
	Concurrency int
	// Duplicates is the share of walletPay requests that reuse the invoice
	// of another request (0 to 1).
	Duplicates float64
	Now        func() time.Time
	// NewRunID names the run; invoices are "BENCH-<run id>-<n>".
	NewRunID func() string
	// Probe reports whether a sandbox answers at a base URL.
	Probe func(ctx context.Context, baseURL string) bool
}

// BenchReport is the result of a run, and the JSON printed by
// `paycli-bench -o json`.
type BenchReport = loadgen.Report

// NewCmdBench builds paycli-bench.
func NewCmdBench(f *cmdutil.Factory, runF func(context.Context, *BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: f.IOStreams, Now: f.Now, NewRunID: sandbox.NewTokenID, Probe: sandbox.Probe}
	var state, output string
	cmd := &cobra.Command{
		Use:   "paycli-bench [flags]",
		Short: "Load a running sandbox and report its throughput and latency",
		Long: `paycli-bench is a developer tool; it is not part of paycli's release.

Send requests to a running 'paycli sandbox serve' from --concurrency
keep-alive connections and report requests per second, latency percentiles
(p50, p90, p99, max) and errors. Use it to size a test suite that runs
against the sandbox.

Before the timed run, bench gets one bearer token and prepares every request
(wallet tokens signed with the sandbox's wallet key, hash_keys). Each
walletPay pays a new invoice of 150.00 TRY; with --duplicates, that share of
the requests reuses the invoice of another request and must be refused with
status_code 3. Afterwards bench checks the status of every invoice and
verifies that each has exactly one completed sale, the one its single
status_code 100 answer named. Errors or a failed verification make bench
exit non-zero.

checkstatus looks up a few sales made beforehand; commissions looks up the
TRY table.`,
		Example: `  go run ./cmd/paycli-bench
  go run ./cmd/paycli-bench --requests 20000 --concurrency 32 --duplicates 0.1
  go run ./cmd/paycli-bench --endpoint commissions -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.OneOf("endpoint", opts.Endpoint, BenchWalletPay, BenchCommissions, BenchCheckStatus); err != nil {
				return err
			}
			if opts.Requests < 1 {
				return cmdutil.UsageErrorf("invalid --requests %d: must be at least 1", opts.Requests)
			}
			if opts.Concurrency < 1 || opts.Concurrency > 1024 {
				return cmdutil.UsageErrorf("invalid --concurrency %d: must be between 1 and 1024", opts.Concurrency)
			}
			if math.IsNaN(opts.Duplicates) || opts.Duplicates < 0 || opts.Duplicates >= 1 {
				return cmdutil.UsageErrorf("invalid --duplicates %v: must be a ratio from 0 up to (not including) 1, e.g. 0.1", opts.Duplicates)
			}
			if opts.Duplicates > 0 && opts.Endpoint != BenchWalletPay {
				return cmdutil.UsageErrorf("--duplicates applies only to --endpoint %s", BenchWalletPay)
			}
			if opts.BaseURL != "" {
				if !strings.HasPrefix(opts.BaseURL, "http://") && !strings.HasPrefix(opts.BaseURL, "https://") {
					return cmdutil.UsageErrorf("invalid --base-url %q: want e.g. http://127.0.0.1:8787%s", opts.BaseURL, sandbox.Base)
				}
				opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
			}
			if _, err := render.ParseFormat(output); err != nil {
				return cmdutil.UsageErrorf("invalid --output: %v", err)
			}
			opts.StateDir = state
			if state == "" {
				dir, err := sandboxmode.DefaultStateDir(f.LookupEnv)
				if err != nil {
					return err
				}
				opts.StateDir = dir
			}
			return cmdutil.Run(cmd, opts, runF, benchRun)
		},
	}
	cmd.Flags().StringVar(&opts.Endpoint, "endpoint", BenchWalletPay, "what to load: walletpay, commissions or checkstatus")
	cmd.Flags().IntVarP(&opts.Requests, "requests", "n", 2000, "number of timed requests")
	cmd.Flags().IntVarP(&opts.Concurrency, "concurrency", "c", 32, "requests in flight at once (one keep-alive connection each)")
	cmd.Flags().Float64Var(&opts.Duplicates, "duplicates", 0, "share of walletPay requests that reuse another request's invoice, e.g. 0.1")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "sandbox base URL (default: the running 'paycli sandbox serve')")
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to find (default <state dir>/paycli/sandbox)")
	cmd.Flags().StringVarP(&output, "output", "o", string(render.Table), "output format: table, json, csv or tsv")
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(func() (render.Format, error) { return render.ParseFormat(output) })
	return cmd
}

// benchRun runs the load generator (internal/loadgen) and prints its
// report. It fails (after printing the report) when a request went wrong
// or verification failed.
func benchRun(ctx context.Context, opts *BenchOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = sandbox.ReadAddress(opts.StateDir)
		if baseURL == "" || !opts.Probe(ctx, baseURL) {
			return cmdutil.WithKind(cmdutil.KindUnavailable,
				fmt.Errorf("no running sandbox found for state folder %s", opts.StateDir),
				"Start one with 'paycli sandbox serve' (in another terminal), or pass --base-url.")
		}
	}
	rep, err := loadgen.Run(ctx, loadgen.Config{
		BaseURL: baseURL, Endpoint: opts.Endpoint, Requests: opts.Requests,
		Concurrency: opts.Concurrency, Duplicates: opts.Duplicates,
		Now: opts.Now, RunID: opts.NewRunID(),
		Progress: func(format string, args ...any) {
			if opts.IO.IsStderrTTY() {
				fmt.Fprintf(opts.IO.ErrOut, format+"\n", args...)
			}
		},
	})
	if errors.Is(err, loadgen.ErrUnreachable) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, err, "Is 'paycli sandbox serve' running there?")
	}
	if err != nil {
		return err
	}
	if err := writeBenchReport(ctx, opts.IO.Out, opts.JSON, format, *rep); err != nil {
		return err
	}
	return rep.Failure()
}

// writeBenchReport prints rep: name/value lines for a table, one record
// for CSV/TSV, the BenchReport object for JSON.
func writeBenchReport(ctx context.Context, w io.Writer, jf *cmdutil.JSONFlags, format render.Format, rep BenchReport) error {
	if format == render.JSON {
		return jf.Write(ctx, w, rep)
	}
	codes := make([]string, 0, len(rep.StatusCodes))
	for _, k := range slices.Sorted(maps.Keys(rep.StatusCodes)) {
		codes = append(codes, fmt.Sprintf("%s=%d", k, rep.StatusCodes[k]))
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	verified := "-"
	if rep.Invoices > 0 {
		verified = strconv.FormatBool(rep.Verified)
	}
	header := []string{"endpoint", "requests", "concurrency", "duplicates", "elapsed_s", "requests_per_s",
		"p50_ms", "p90_ms", "p99_ms", "max_ms", "errors", "status_codes", "invoices", "verified"}
	row := []string{rep.Endpoint, strconv.Itoa(rep.Requests), strconv.Itoa(rep.Concurrency), f(rep.Duplicates),
		f(rep.ElapsedSeconds), strconv.FormatFloat(rep.RequestsPerSecond, 'f', 1, 64),
		f(rep.LatencyMS.P50), f(rep.LatencyMS.P90), f(rep.LatencyMS.P99), f(rep.LatencyMS.Max),
		strconv.Itoa(rep.Errors), strings.Join(codes, " "), strconv.Itoa(rep.Invoices), verified}
	if format == render.CSV || format == render.TSV {
		return render.WriteRecords(w, format, header, [][]string{row})
	}
	for i, name := range header {
		if _, err := fmt.Fprintf(w, "%-15s %s\n", name+":", row[i]); err != nil {
			return err
		}
	}
	for _, p := range rep.Problems {
		if _, err := fmt.Fprintf(w, "%-15s %s\n", "problem:", p); err != nil {
			return err
		}
	}
	return nil
}
