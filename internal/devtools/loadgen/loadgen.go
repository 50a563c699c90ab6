// Package loadgen is paycli's load generator for the sandbox (the
// developer tool cmd/paycli-bench): it prepares requests with the gateway
// client's request types, sends them from many keep-alive connections,
// measures throughput and latency, and verifies afterwards that the
// sandbox kept exactly one sale per invoice. It sits beside the soak harness (internal/soak): both
// drive a running sandbox from outside, over HTTP.
package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
)

// Endpoints the generator can load.
const (
	WalletPay   = "walletpay"
	Commissions = "commissions"
	CheckStatus = "checkstatus"
)

// Amount and Currency are what every generated payment charges: an amount
// whose cents (.00) make the sandbox approve it (status_code 100).
const (
	Amount   = "150.00"
	Currency = "TRY"
)

// checkStatusInvoices is how many sales the checkstatus load makes
// beforehand (at most one per request) and then looks up in turn.
const checkStatusInvoices = 64

// requestTimeout bounds one request: a sandbox that stops answering ends
// the run with errors instead of hanging it.
const requestTimeout = 30 * time.Second

// ErrUnreachable is returned when the sandbox does not answer the first
// request (the bearer token).
var ErrUnreachable = errors.New("the sandbox does not answer")

// Config is one run.
type Config struct {
	// BaseURL is the sandbox, ending in /ccpayment.
	BaseURL string
	// Endpoint is WalletPay, Commissions or CheckStatus.
	Endpoint    string
	Requests    int
	Concurrency int
	// Duplicates is the share of walletPay requests that reuse the invoice
	// of another request (0 to 1).
	Duplicates float64
	Now        func() time.Time
	// RunID names the run; invoices are "BENCH-<run id>-<n>".
	RunID string
	// Progress, when set, is told what the run is doing.
	Progress func(format string, args ...any)
}

// Report is the result of a run, and the JSON printed by
// `paycli-bench -o json`.
type Report struct {
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
	LatencyMS Latency `json:"latency_ms"`
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

// Latency are latency percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Failure is the run's verdict as an error: nil when every request got
// the answer it should and verification passed.
func (r *Report) Failure() error {
	switch {
	case r.Errors > 0:
		return fmt.Errorf("%d of %d requests got an unexpected answer (see status_codes)", r.Errors, r.Requests)
	case r.Invoices > 0 && !r.Verified:
		return fmt.Errorf("verification failed: %s", r.Problems[0])
	}
	return nil
}

// job is one prepared request.
type job struct {
	body    []byte
	invoice string // walletpay: the invoice paid
	// wantDuplicate: walletpay requests after the first for an invoice
	// (in the order the jobs are sent, which is not the order they are
	// answered; see tally).
	wantDuplicate bool
}

// result is the answer to one job.
type result struct {
	latency time.Duration
	status  string // status_code, "http_<code>" or "transport"
	orderID string
}

// Run prepares the requests, sends them and verifies the outcome. The
// report says what went wrong with the requests (Report.Failure); the
// error is for a run that could not be made (ErrUnreachable, a cancelled
// ctx).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	progress := cfg.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	// One keep-alive connection per worker; never a proxy (the sandbox is
	// local, and a proxy would be what is measured).
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        cfg.Concurrency,
		MaxIdleConnsPerHost: cfg.Concurrency,
		MaxConnsPerHost:     cfg.Concurrency,
		IdleConnTimeout:     90 * time.Second,
	}
	defer transport.CloseIdleConnections()
	b := &bencher{cfg: cfg, client: &http.Client{Transport: transport, Timeout: requestTimeout}}

	progress("preparing %d %s requests against %s", cfg.Requests, cfg.Endpoint, cfg.BaseURL)
	if err := b.getToken(ctx); err != nil {
		return nil, err
	}
	jobs, invoices, err := b.prepare(ctx)
	if err != nil {
		return nil, err
	}

	progress("sending them from %d connections", cfg.Concurrency)
	results, elapsed := b.fire(ctx, jobs)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep := &Report{
		Endpoint: cfg.Endpoint, BaseURL: cfg.BaseURL, Requests: cfg.Requests,
		Concurrency: cfg.Concurrency, Duplicates: cfg.Duplicates,
		ElapsedSeconds:    round3(elapsed.Seconds()),
		RequestsPerSecond: round3(float64(len(jobs)) / elapsed.Seconds()),
		LatencyMS:         latencies(results),
		StatusCodes:       map[string]int{},
		Invoices:          len(invoices),
	}
	paid := b.tally(rep, jobs, results)
	if len(invoices) > 0 {
		progress("verifying %d invoices", len(invoices))
		rep.Problems = b.verify(ctx, invoices, paid)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Verified = len(rep.Problems) == 0
		if len(rep.Problems) > 5 {
			rep.Problems = append(rep.Problems[:5], fmt.Sprintf("and %d more", len(rep.Problems)-5))
		}
	}
	return rep, nil
}

// bencher holds what a run shares.
type bencher struct {
	cfg    Config
	client *http.Client
	bearer string
}

// getToken gets the bearer token every request carries, through the
// gateway client (the token call is the one request not timed).
func (b *bencher) getToken(ctx context.Context) error {
	hc := &http.Client{Transport: b.client.Transport, Timeout: requestTimeout}
	c, err := gateway.New(b.cfg.BaseURL, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret},
		gateway.WithHTTPClient(hc), gateway.WithClock(b.cfg.Now))
	if err != nil {
		return err
	}
	tok, err := c.Token(ctx)
	switch {
	case errors.Is(err, gateway.ErrUnavailable):
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, b.cfg.BaseURL, err)
	case err != nil:
		return fmt.Errorf("sandbox at %s refused its own credentials (%v): is it a paycli sandbox?", b.cfg.BaseURL, err)
	}
	b.bearer = tok.Value
	return nil
}

// prepare builds the timed requests and returns the invoices the run will
// verify.
func (b *bencher) prepare(ctx context.Context) ([]job, []string, error) {
	n := b.cfg.Requests
	invoice := func(i int) string { return fmt.Sprintf("BENCH-%s-%d", b.cfg.RunID, i) }
	jobs := make([]job, n)
	switch b.cfg.Endpoint {
	case Commissions:
		body, err := json.Marshal(gateway.CommissionsRequest{CurrencyCode: Currency, CommissionBy: "merchant", AppLang: "en"})
		if err != nil {
			return nil, nil, err
		}
		for i := range jobs {
			jobs[i].body = body
		}
		return jobs, nil, nil

	case CheckStatus:
		count := min(n, checkStatusInvoices)
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
	dups := int(math.Round(float64(n) * b.cfg.Duplicates))
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
		jobs = append(jobs, job{body: bodies[i], invoice: invoices[i]})
		for d < dups && d*unique <= i*dups {
			j := d % (i + 1) // an invoice already sent
			jobs = append(jobs, job{body: bodies[j], invoice: invoices[j], wantDuplicate: true})
			d++
		}
	}
	for ; d < dups; d++ {
		j := d % unique
		jobs = append(jobs, job{body: bodies[j], invoice: invoices[j], wantDuplicate: true})
	}
	return jobs, invoices, nil
}

// payBody is a walletPay request for invoice with a fresh wallet token.
func (b *bencher) payBody(invoice string) ([]byte, error) {
	now := b.cfg.Now()
	wt, err := sandbox.IssueWalletToken(sandbox.WalletRequest{
		Amount: decimal.RequireFromString(Amount), Currency: Currency,
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour,
	}, now, "bench-"+invoice)
	if err != nil {
		return nil, err
	}
	layout, _ := hashkey.LookupLayout("walletpay")
	plain, err := layout.Plaintext(map[string]string{
		"total": Amount, "installment": "1", "currency_code": Currency,
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
	return json.Marshal(map[string]any{"merchant_key": sandbox.MerchantKey, "invoice_id": invoice,
		"include_pending_status": true, "hash_key": hk})
}

// path is the API path of the run's endpoint.
func (b *bencher) path() string {
	switch b.cfg.Endpoint {
	case Commissions:
		return "/api/commissions"
	case CheckStatus:
		return "/api/checkstatus"
	}
	return "/api/walletPay"
}

// fire sends jobs from Concurrency workers and returns each job's result
// (by index) and the wall time.
func (b *bencher) fire(ctx context.Context, jobs []job) ([]result, time.Duration) {
	results := make([]result, len(jobs))
	path := b.path()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := b.cfg.Now()
	for range min(b.cfg.Concurrency, len(jobs)) {
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
				t0 := b.cfg.Now()
				code, err := b.post(ctx, path, jobs[i].body, &ans)
				r := result{latency: b.cfg.Now().Sub(t0)}
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
	return results, b.cfg.Now().Sub(start)
}

// tally counts answers and errors into rep and returns, for walletPay, the
// order id of each invoice's 100 answer. Of the requests for one invoice
// exactly one must get 100 and the others 3; which one wins is up to the
// race (a duplicate can overtake its original), so the check is per
// invoice, not per request.
func (b *bencher) tally(rep *Report, jobs []job, results []result) map[string]string {
	paid := map[string]string{}
	for i, r := range results {
		rep.StatusCodes[r.status]++
		if b.cfg.Endpoint != WalletPay {
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
	if b.cfg.Endpoint == WalletPay {
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
	for range min(b.cfg.Concurrency, len(invoices)) {
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
				case b.cfg.Endpoint == WalletPay && ans.OrderID != paid[inv]:
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.cfg.BaseURL+path, bytes.NewReader(body))
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
func latencies(results []result) Latency {
	if len(results) == 0 {
		return Latency{}
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
	return Latency{P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
