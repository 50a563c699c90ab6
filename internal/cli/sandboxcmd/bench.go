package sandboxcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
)

// Endpoints `paycli sandbox bench` can load.
const (
	BenchWalletPay   = "walletpay"
	BenchCommissions = "commissions"
	BenchCheckStatus = "checkstatus"
)

// benchAmount and benchCurrency are what every benchmark payment charges:
// an amount whose cents (.00) make the sandbox approve it (status_code 100).
const (
	benchAmount   = "150.00"
	benchCurrency = "TRY"
)

// benchCheckStatusInvoices is how many sales the checkstatus benchmark
// makes beforehand (at most one per request) and then looks up in turn.
const benchCheckStatusInvoices = 64

// benchRequestTimeout bounds one request: a sandbox that stops answering
// ends the run with errors instead of hanging it.
const benchRequestTimeout = 30 * time.Second

// BenchOptions are the inputs of `paycli sandbox bench`.
type BenchOptions struct {
	IO     *iostreams.IOStreams
	Format func() (render.Format, error)
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
// `paycli sandbox bench -o json`.
type BenchReport struct {
	Endpoint    string  `json:"endpoint"`
	BaseURL     string  `json:"base_url"`
	Requests    int     `json:"requests"`
	Concurrency int     `json:"concurrency"`
	Duplicates  float64 `json:"duplicates"`
	// ElapsedSeconds is the wall time of the timed requests only (not the
	// preparation or the verification).
	ElapsedSeconds    float64 `json:"elapsed_seconds"`
	RequestsPerSecond float64 `json:"requests_per_second"`
	// Latency percentiles of every request, errors included, in ms.
	LatencyMS BenchLatency `json:"latency_ms"`
	// Errors counts requests with an unexpected answer: a transport error,
	// an HTTP status other than 200, or a status_code the request should
	// not get (for walletPay: anything but 100 for the first request of an
	// invoice and 3 for a duplicate).
	Errors int `json:"errors"`
	// StatusCodes counts the answers' status_code values ("http_<code>"
	// for a non-200 answer, "transport" for no answer).
	StatusCodes map[string]int `json:"status_codes"`
	// Invoices is how many invoices the run paid (walletpay, checkstatus).
	Invoices int `json:"invoices"`
	// Verified reports that check status found exactly one completed sale
	// for every invoice, with the order id of its one 100 answer.
	Verified bool `json:"verified"`
	// Problems lists the first few verification failures.
	Problems []string `json:"problems,omitempty"`
}

// BenchLatency are latency percentiles in milliseconds.
type BenchLatency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// NewCmdBench builds `paycli sandbox bench`.
func NewCmdBench(f *cmdutil.Factory, runF func(context.Context, *BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: f.IOStreams, Format: f.OutputFormat, Now: f.Now, NewRunID: sandbox.NewTokenID, Probe: sandbox.Probe}
	var state string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load a running sandbox and report its throughput and latency",
		Long: `Send requests to a running 'paycli sandbox serve' from --concurrency
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
		Example: `  paycli sandbox bench
  paycli sandbox bench --requests 20000 --concurrency 32 --duplicates 0.1
  paycli sandbox bench --endpoint commissions -o json`,
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
					return cmdutil.UsageErrorf("invalid --base-url %q: want e.g. http://%s%s", opts.BaseURL, DefaultAddr, sandbox.Base)
				}
				opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
			}
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return BenchRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Endpoint, "endpoint", BenchWalletPay, "what to load: walletpay, commissions or checkstatus")
	cmd.Flags().IntVarP(&opts.Requests, "requests", "n", 2000, "number of timed requests")
	cmd.Flags().IntVarP(&opts.Concurrency, "concurrency", "c", 32, "requests in flight at once (one keep-alive connection each)")
	cmd.Flags().Float64Var(&opts.Duplicates, "duplicates", 0, "share of walletPay requests that reuse another request's invoice, e.g. 0.1")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "sandbox base URL (default: the running 'paycli sandbox serve')")
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to find (default <state dir>/paycli/sandbox)")
	return cmd
}

// benchJob is one prepared request.
type benchJob struct {
	body    []byte
	invoice string // walletpay: the invoice paid
	// wantDuplicate: walletpay requests after the first for an invoice
	// (in the order the jobs are sent, which is not the order they are
	// answered; see tally).
	wantDuplicate bool
}

// benchResult is the answer to one job.
type benchResult struct {
	latency time.Duration
	status  string // status_code, "http_<code>" or "transport"
	orderID string
}

// BenchRun runs the benchmark and prints its report. It fails (after
// printing the report) when a request went wrong or verification failed.
func BenchRun(ctx context.Context, opts *BenchOptions) error {
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
	// One keep-alive connection per worker; never a proxy (the sandbox is
	// local, and a proxy would be what is measured).
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        opts.Concurrency,
		MaxIdleConnsPerHost: opts.Concurrency,
		MaxConnsPerHost:     opts.Concurrency,
		IdleConnTimeout:     90 * time.Second,
	}
	defer transport.CloseIdleConnections()
	b := &bencher{opts: opts, baseURL: baseURL, client: &http.Client{Transport: transport, Timeout: benchRequestTimeout}}

	progress := func(format string, args ...any) {
		if opts.IO.IsStderrTTY() {
			fmt.Fprintf(opts.IO.ErrOut, format+"\n", args...)
		}
	}
	progress("preparing %d %s requests against %s", opts.Requests, opts.Endpoint, baseURL)
	if err := b.getToken(ctx); err != nil {
		return err
	}
	jobs, invoices, err := b.prepare(ctx)
	if err != nil {
		return err
	}

	progress("sending them from %d connections", opts.Concurrency)
	results, elapsed := b.fire(ctx, jobs)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	rep := BenchReport{
		Endpoint: opts.Endpoint, BaseURL: baseURL, Requests: opts.Requests,
		Concurrency: opts.Concurrency, Duplicates: opts.Duplicates,
		ElapsedSeconds:    round3(elapsed.Seconds()),
		RequestsPerSecond: round3(float64(len(jobs)) / elapsed.Seconds()),
		LatencyMS:         latencies(results),
		StatusCodes:       map[string]int{},
		Invoices:          len(invoices),
	}
	paid := b.tally(&rep, jobs, results)
	if len(invoices) > 0 {
		progress("verifying %d invoices", len(invoices))
		rep.Problems = b.verify(ctx, invoices, paid)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rep.Verified = len(rep.Problems) == 0
		if len(rep.Problems) > 5 {
			rep.Problems = append(rep.Problems[:5], fmt.Sprintf("and %d more", len(rep.Problems)-5))
		}
	}
	if err := writeBenchReport(opts.IO.Out, format, rep); err != nil {
		return err
	}
	switch {
	case rep.Errors > 0:
		return fmt.Errorf("%d of %d requests got an unexpected answer (see status_codes)", rep.Errors, rep.Requests)
	case len(invoices) > 0 && !rep.Verified:
		return fmt.Errorf("verification failed: %s", rep.Problems[0])
	}
	return nil
}

// bencher holds what a run shares.
type bencher struct {
	opts    *BenchOptions
	baseURL string
	client  *http.Client
	bearer  string
}

// getToken gets the bearer token every request carries.
func (b *bencher) getToken(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret})
	var ans struct {
		StatusCode int `json:"status_code"`
		Data       struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	code, err := b.post(ctx, "/api/token", body, &ans)
	if err != nil {
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("sandbox at %s: %w", b.baseURL, err),
			"Is 'paycli sandbox serve' running there?")
	}
	if code != http.StatusOK || ans.StatusCode != 100 || ans.Data.Token == "" {
		return fmt.Errorf("sandbox at %s refused its own credentials (HTTP %d, status_code %d): is it a paycli sandbox?", b.baseURL, code, ans.StatusCode)
	}
	b.bearer = ans.Data.Token
	return nil
}

// prepare builds the timed requests and returns the invoices the run will
// verify.
func (b *bencher) prepare(ctx context.Context) ([]benchJob, []string, error) {
	n := b.opts.Requests
	runID := b.opts.NewRunID()
	invoice := func(i int) string { return fmt.Sprintf("BENCH-%s-%d", runID, i) }
	jobs := make([]benchJob, n)
	switch b.opts.Endpoint {
	case BenchCommissions:
		body, _ := json.Marshal(map[string]string{"currency_code": benchCurrency, "commission_by": "merchant", "app_lang": "en"})
		for i := range jobs {
			jobs[i].body = body
		}
		return jobs, nil, nil

	case BenchCheckStatus:
		count := min(n, benchCheckStatusInvoices)
		invoices := make([]string, count)
		for i := range invoices {
			invoices[i] = invoice(i)
			body, err := b.payBody(invoices[i])
			if err != nil {
				return nil, nil, err
			}
			var ans struct {
				StatusCode int `json:"status_code"`
			}
			code, err := b.post(ctx, "/api/walletPay", body, &ans)
			if err != nil || code != http.StatusOK || ans.StatusCode != 100 {
				return nil, nil, fmt.Errorf("paying invoice %s before the run: HTTP %d, status_code %d, %v", invoices[i], code, ans.StatusCode, err)
			}
		}
		for i := range jobs {
			body, err := b.statusBody(invoices[i%count])
			if err != nil {
				return nil, nil, err
			}
			jobs[i].body = body
		}
		return jobs, invoices, nil
	}

	// walletpay: round(n × ratio) duplicates, each reusing one of the
	// unique invoices in turn.
	dups := int(math.Round(float64(n) * b.opts.Duplicates))
	unique := n - dups
	invoices := make([]string, unique)
	bodies := make([][]byte, unique)
	for i := range invoices {
		invoices[i] = invoice(i)
		body, err := b.payBody(invoices[i])
		if err != nil {
			return nil, nil, err
		}
		bodies[i] = body
	}
	// Spread the duplicates evenly through the run, each soon after the
	// request it copies, so that duplicates race their originals.
	jobs = jobs[:0]
	d := 0
	for i := range unique {
		jobs = append(jobs, benchJob{body: bodies[i], invoice: invoices[i]})
		for d < dups && d*unique <= i*dups {
			j := d % (i + 1) // an invoice already sent
			jobs = append(jobs, benchJob{body: bodies[j], invoice: invoices[j], wantDuplicate: true})
			d++
		}
	}
	for ; d < dups; d++ {
		j := d % unique
		jobs = append(jobs, benchJob{body: bodies[j], invoice: invoices[j], wantDuplicate: true})
	}
	return jobs, invoices, nil
}

// payBody is a walletPay request for invoice with a fresh wallet token.
func (b *bencher) payBody(invoice string) ([]byte, error) {
	now := b.opts.Now()
	wt, err := sandbox.IssueWalletToken(sandbox.WalletRequest{
		Amount: decimal.RequireFromString(benchAmount), Currency: benchCurrency,
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour,
	}, now, "bench-"+invoice)
	if err != nil {
		return nil, err
	}
	layout, _ := hashkey.LookupLayout("walletpay")
	plain, err := layout.Plaintext(map[string]string{
		"total": benchAmount, "installment": "1", "currency_code": benchCurrency,
		"merchant_key": sandbox.MerchantKey, "invoice_id": invoice,
	})
	if err != nil {
		return nil, err
	}
	hk, err := hashkey.Generate(sandbox.AppSecret, plain)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{
		"merchant_key": sandbox.MerchantKey, "invoice_id": invoice, "hash_key": hk,
		"wallet_transient_token": wt, "name": "Bench", "surname": "Load", "bill_email": "bench@example.com",
	})
}

// statusBody is a check status request for invoice.
func (b *bencher) statusBody(invoice string) ([]byte, error) {
	hk, err := hashkey.Generate(sandbox.AppSecret, hashkey.Join(invoice, sandbox.MerchantKey))
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"merchant_key": sandbox.MerchantKey, "invoice_id": invoice,
		"include_pending_status": "true", "hash_key": hk})
}

// path is the API path of the run's endpoint.
func (b *bencher) path() string {
	switch b.opts.Endpoint {
	case BenchCommissions:
		return "/api/commissions"
	case BenchCheckStatus:
		return "/api/checkstatus"
	}
	return "/api/walletPay"
}

// fire sends jobs from Concurrency workers and returns each job's result
// (by index) and the wall time.
func (b *bencher) fire(ctx context.Context, jobs []benchJob) ([]benchResult, time.Duration) {
	results := make([]benchResult, len(jobs))
	path := b.path()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range min(b.opts.Concurrency, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				var ans struct {
					StatusCode json.Number `json:"status_code"`
					OrderID    string      `json:"order_id"`
					Data       struct {
						OrderID string `json:"order_id"`
					} `json:"data"`
				}
				t0 := time.Now()
				code, err := b.post(ctx, path, jobs[i].body, &ans)
				r := benchResult{latency: time.Since(t0)}
				switch {
				case err != nil:
					r.status = "transport"
				case code != http.StatusOK:
					r.status = "http_" + strconv.Itoa(code)
				default:
					r.status, r.orderID = ans.StatusCode.String(), ans.Data.OrderID
				}
				results[i] = r
			}
		}()
	}
	wg.Wait()
	return results, time.Since(start)
}

// tally counts answers and errors into rep and returns, for walletPay, the
// order id of each invoice's 100 answer. Of the requests for one invoice
// exactly one must get 100 and the others 3; which one wins is up to the
// race (a duplicate can overtake its original), so the check is per
// invoice, not per request.
func (b *bencher) tally(rep *BenchReport, jobs []benchJob, results []benchResult) map[string]string {
	paid := map[string]string{}
	for i, r := range results {
		rep.StatusCodes[r.status]++
		if b.opts.Endpoint != BenchWalletPay {
			if r.status != "100" { // a lookup that found what it looked for
				rep.Errors++
			}
			continue
		}
		switch {
		case r.status == "100" && paid[jobs[i].invoice] == "":
			paid[jobs[i].invoice] = r.orderID
		case r.status == "3":
			// A refusal is right for all but one request of an invoice;
			// counted below when the invoice got no 100 at all.
		default:
			rep.Errors++ // a second 100 for an invoice, or any other answer
		}
	}
	if b.opts.Endpoint == BenchWalletPay {
		for _, j := range jobs {
			if !j.wantDuplicate {
				if _, ok := paid[j.invoice]; !ok {
					rep.Errors++ // its every request was refused, or failed
					paid[j.invoice] = ""
				}
			}
		}
	}
	return paid
}

// verify checks the status of every invoice and returns what is wrong:
// each must be one completed sale, under the order id its 100 answer gave
// (walletpay).
func (b *bencher) verify(ctx context.Context, invoices []string, paid map[string]string) []string {
	var (
		mu       sync.Mutex
		problems []string
		next     atomic.Int64
		wg       sync.WaitGroup
	)
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	for range min(b.opts.Concurrency, len(invoices)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(invoices) {
					return
				}
				inv := invoices[i]
				body, err := b.statusBody(inv)
				if err != nil {
					report("%s: %v", inv, err)
					continue
				}
				var ans struct {
					StatusCode        int    `json:"status_code"`
					TransactionStatus string `json:"transaction_status"`
					InvoiceID         string `json:"invoice_id"`
					OrderID           string `json:"order_id"`
				}
				code, err := b.post(ctx, "/api/checkstatus", body, &ans)
				switch {
				case err != nil:
					report("%s: check status: %v", inv, err)
				case code != http.StatusOK || ans.StatusCode != 100 || ans.TransactionStatus != "Completed" || ans.InvoiceID != inv:
					report("%s: check status answered HTTP %d, status_code %d, transaction_status %q", inv, code, ans.StatusCode, ans.TransactionStatus)
				case b.opts.Endpoint == BenchWalletPay && ans.OrderID != paid[inv]:
					report("%s: the stored sale is order %q, but the 100 answer was order %q", inv, ans.OrderID, paid[inv])
				}
			}
		}()
	}
	wg.Wait()
	slices.Sort(problems)
	return problems
}

// post sends body to path with the bearer token and decodes a JSON answer
// into v; it returns the HTTP status. The body is read to the end so the
// connection is reused.
func (b *bencher) post(ctx context.Context, path string, body []byte, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if b.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+b.bearer)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, v); err != nil {
			return 0, fmt.Errorf("answer is not JSON: %w", err)
		}
	}
	return resp.StatusCode, nil
}

// latencies returns the nearest-rank percentiles of the results' latencies.
func latencies(results []benchResult) BenchLatency {
	if len(results) == 0 {
		return BenchLatency{}
	}
	ds := make([]time.Duration, len(results))
	for i, r := range results {
		ds[i] = r.latency
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(ds)))) - 1
		return ms(ds[max(i, 0)])
	}
	return BenchLatency{P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// writeBenchReport prints rep: name/value lines for a table, one record
// for CSV/TSV, the BenchReport object for JSON.
func writeBenchReport(w io.Writer, format render.Format, rep BenchReport) error {
	if format == render.JSON {
		return render.WriteJSON(w, rep)
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
