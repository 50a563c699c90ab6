package walletpay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
)

// Batch outcomes beside the journal's classes.
const (
	// OutcomeSkipped: the journal shows the invoice as paid; not sent.
	OutcomeSkipped = "skipped"
	// OutcomeInvalid: the line is not a valid payment; not sent.
	OutcomeInvalid = "invalid"
)

// Limits on batch input, so that a wrong file fails fast.
const (
	maxBatchBytes = 64 << 20
	maxLineBytes  = 64 << 10
)

// BatchResult is the JSON line written for each input line; its fields are
// a stable interface. StatusCode, OrderNo and Error are null when absent.
type BatchResult struct {
	Line       int     `json:"line"`
	Invoice    string  `json:"invoice"`
	Outcome    string  `json:"outcome"`
	StatusCode *int    `json:"status_code"`
	OrderNo    *string `json:"order_no"`
	Error      *string `json:"error"`
}

func (r *BatchResult) setError(msg string) { r.Error = &msg }

// batchLine is one non-blank input line, its result, and whether it still
// has to be sent.
type batchLine struct {
	result  BatchResult
	payment *payment
	done    chan struct{}
	// refused: the gateway refused the credentials (HTTP 401, status_code
	// 30); nothing was processed, and every other line will meet the same.
	refused bool
}

// readBatch reads the batch input: a file, or stdin for "-".
func readBatch(opts *Options) ([]byte, error) {
	var r io.Reader
	name := opts.Batch
	if name == "-" {
		r, name = opts.IO.In, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, cmdutil.UsageErrorf("invalid --batch: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxBatchBytes+1))
	if err != nil {
		return nil, cmdutil.UsageErrorf("invalid --batch: reading %s: %v", name, err)
	}
	if len(b) > maxBatchBytes {
		return nil, cmdutil.UsageErrorf("invalid --batch: %s is larger than %d MiB; split it", name, maxBatchBytes>>20)
	}
	return b, nil
}

// parseBatchLine reads one line into an input; unknown keys are refused so
// that a misspelt key is not silently a missing field.
func parseBatchLine(text []byte) (input, error) {
	var in input
	if len(text) > maxLineBytes {
		return in, fmt.Errorf("the line is longer than %d KiB", maxLineBytes>>10)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return in, fmt.Errorf("not a JSON object (offset %d)", syn.Offset)
		case errors.As(err, &typ) && typ.Field != "":
			return in, fmt.Errorf("%s must be a string", typ.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return in, fmt.Errorf("unknown key %s; the keys are invoice, token, name, surname, email", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return in, errors.New("not a JSON object")
	}
	if dec.More() {
		return in, errors.New("more than one JSON value on the line")
	}
	return in, nil
}

// planBatch turns the input into lines with their fate decided as far as
// it can be without sending: invalid lines, invoices repeated within the
// batch (only the first is sent), invoices the journal shows as paid
// (skipped) or as unknown (reported, never retried).
func planBatch(data []byte, p *payer, states map[string]journal.InvoiceState, flags []string) []*batchLine {
	var lines []*batchLine
	firstLine := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxBatchBytes)
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue // blank lines are not payments
		}
		l := &batchLine{result: BatchResult{Line: n}, done: make(chan struct{})}
		lines = append(lines, l)
		in, err := parseBatchLine(text)
		l.result.Invoice = strings.TrimSpace(in.Invoice)
		if err == nil {
			l.payment, err = check(in, p.now())
		}
		if err != nil {
			l.payment = nil
			l.result.Outcome = OutcomeInvalid
			l.result.setError(fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		inv := l.payment.Invoice
		if first, seen := firstLine[inv]; seen {
			l.payment = nil
			l.result.Outcome = journal.Duplicate
			l.result.setError(fmt.Sprintf("invoice %s is also on line %d of this batch; not sent", inv, first))
			continue
		}
		firstLine[inv] = n
		if s, ok := states[inv]; ok {
			switch {
			case s.Succeeded:
				l.payment = nil
				l.result.Outcome = OutcomeSkipped
				if order := s.Success.Outcome; order != nil && order.OrderNo != "" {
					l.result.OrderNo = &order.OrderNo
				}
			case s.Last.Class() == journal.Unknown:
				l.payment = nil
				l.result.Outcome = journal.Unknown
				l.result.setError("the last attempt's outcome is unknown; not retried: run " + StatusCommand(inv, flags))
			}
		}
	}
	return lines
}

func runBatch(ctx context.Context, opts *Options) error {
	data, err := readBatch(opts)
	if err != nil {
		return err
	}
	p, err := newPayer(opts)
	if err != nil {
		return err
	}
	path, err := opts.JournalPath()
	if err != nil {
		return fmt.Errorf("%w: %v", errJournal, err)
	}
	attempts, _, err := journal.Read(path)
	if err != nil {
		return fmt.Errorf("cannot read the payment journal to resume the batch: %w; nothing was sent", err)
	}
	lines := planBatch(data, p, journal.ByInvoice(attempts, journal.Scope{Kind: journal.KindWalletPay, Profile: p.cfg.Profile}), opts.StatusFlags)
	if err := openJournal(opts, p); err != nil {
		return err
	}
	defer p.journal.Close()
	fmt.Fprintf(opts.IO.ErrOut, "Batch of %d lines on profile %q at %s\n", len(lines), p.cfg.Profile, p.client.BaseURL())

	// Each payment gets the configured time limit (--timeout) of its own.
	// Payments in flight are not cancelled by Ctrl-C: they finish and
	// record their outcome; Ctrl-C only stops new ones from starting.
	cfg := p.cfg
	payCtx := context.WithoutCancel(ctx)
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()

	progress := newProgressBar(opts, len(lines))
	var fatalMu sync.Mutex
	var fatal error
	work := make(chan *batchLine)
	var wg sync.WaitGroup
	for range opts.Parallel {
		wg.Go(func() {
			for l := range work {
				pctx, cancel := payCtx, context.CancelFunc(func() {})
				if cfg.Timeout > 0 {
					pctx, cancel = context.WithTimeout(payCtx, cfg.Timeout)
				}
				res, err := p.pay(pctx, l.payment)
				cancel()
				if err != nil {
					// The intent could not be recorded: nothing was sent,
					// and nothing more may be.
					fatalMu.Lock()
					if fatal == nil {
						fatal = err
					}
					fatalMu.Unlock()
					stop()
					l.result.Outcome = journal.NotSent
					l.result.setError(err.Error())
				} else {
					fillResult(&l.result, res, l.payment, opts.StatusFlags)
					l.refused = errors.Is(res.err, gateway.ErrUnauthorized)
					if res.journalErr != nil {
						fmt.Fprintf(opts.IO.ErrOut, "warning: line %d: the outcome (%s) could not be written to the journal: %v\n", l.result.Line, res.class, res.journalErr)
					}
				}
				progress.advance()
				close(l.done)
			}
		})
	}
	go func() {
		defer close(work)
		for _, l := range lines {
			if l.payment == nil {
				progress.advance()
				close(l.done)
				continue
			}
			select {
			case <-stopCtx.Done():
				l.result.Outcome = journal.NotSent
				l.result.setError("not sent: the batch was stopped before this line")
				progress.advance()
				close(l.done)
				continue
			default:
			}
			select {
			case work <- l:
			case <-stopCtx.Done():
				l.result.Outcome = journal.NotSent
				l.result.setError("not sent: the batch was stopped before this line")
				progress.advance()
				close(l.done)
			}
		}
	}()

	var writeErr error
	for _, l := range lines {
		<-l.done
		if writeErr == nil {
			progress.clear()
			writeErr = render.WriteJSONLine(opts.IO.Out, l.result)
			progress.redraw()
		}
	}
	wg.Wait()
	progress.finish()
	writeBatchSummary(opts, lines)
	switch {
	case fatal != nil:
		return fatal
	case writeErr != nil:
		return writeErr
	case ctx.Err() != nil:
		return cmdutil.SilentError(cmdutil.KindInterrupted)
	}
	if kind, ok := mostSerious(lines); ok {
		return cmdutil.SilentError(kind)
	}
	return nil
}

// fillResult copies an attempt's result into a batch line.
func fillResult(r *BatchResult, res attemptResult, pm *payment, flags []string) {
	r.Outcome = res.class
	r.StatusCode = res.statusCode
	if res.orderNo != "" {
		r.OrderNo = &res.orderNo
	}
	switch res.class {
	case journal.Succeeded:
	case journal.Duplicate:
		r.setError("invoice was already processed or is in flight; this attempt charged nothing")
	case journal.Declined:
		r.setError("payment declined: " + scrub(declineText(res.err), pm))
	case journal.Unknown:
		r.setError(scrub(explainFailure(pm.Invoice, res, flags).Error(), pm) + "; run " + StatusCommand(pm.Invoice, flags))
	default:
		r.setError(scrub(res.err.Error(), pm))
	}
}

// severity ranks outcomes for the batch's exit code: an unknown outcome
// (7) needs reconciling first; then refused credentials (3), payments not
// sent for want of a gateway (8), declines (5), rejections and invalid
// lines (4), duplicates (6); paid and skipped lines are fine (0).
var severity = []struct {
	match func(*batchLine) bool
	kind  cmdutil.Kind
}{
	{outcomeIs(journal.Unknown), cmdutil.KindOutcomeUnknown},
	{func(l *batchLine) bool { return l.refused }, cmdutil.KindAuth},
	{outcomeIs(journal.NotSent), cmdutil.KindUnavailable},
	{outcomeIs(journal.Declined), cmdutil.KindDeclined},
	{outcomeIs(journal.Rejected), cmdutil.KindRejected},
	{outcomeIs(OutcomeInvalid), cmdutil.KindRejected},
	{outcomeIs(journal.Duplicate), cmdutil.KindDuplicate},
}

func outcomeIs(outcome string) func(*batchLine) bool {
	return func(l *batchLine) bool { return l.result.Outcome == outcome }
}

func mostSerious(lines []*batchLine) (cmdutil.Kind, bool) {
	for _, s := range severity {
		if slices.ContainsFunc(lines, s.match) {
			return s.kind, true
		}
	}
	return 0, false
}

// writeBatchSummary counts outcomes on stderr and lists the invoices to
// reconcile.
func writeBatchSummary(opts *Options, lines []*batchLine) {
	order := []string{journal.Succeeded, OutcomeSkipped, journal.Declined, journal.Duplicate, journal.Rejected, OutcomeInvalid, journal.Unknown, journal.NotSent}
	counts := map[string]int{}
	for _, l := range lines {
		counts[l.result.Outcome]++
	}
	var parts []string
	for _, o := range order {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], strings.ReplaceAll(o, "_", " ")))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing to do"}
	}
	fmt.Fprintf(opts.IO.ErrOut, "Batch done: %s.\n", strings.Join(parts, ", "))
	var unknown []string
	for _, l := range lines {
		if l.result.Outcome == journal.Unknown {
			unknown = append(unknown, l.result.Invoice)
		}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Outcome unknown for %d invoices; never retried. Check each with:\n", len(unknown))
		for _, inv := range unknown {
			fmt.Fprintf(opts.IO.ErrOut, "  %s\n", StatusCommand(inv, opts.StatusFlags))
		}
	}
}

// progressBar draws "[#####     ] 12/50" on stderr when stderr is a
// terminal, and nothing otherwise.
type progressBar struct {
	w       io.Writer
	enabled bool
	total   int
	mu      sync.Mutex
	done    int
}

func newProgressBar(opts *Options, total int) *progressBar {
	return &progressBar{w: opts.IO.ErrOut, enabled: opts.IO.IsStderrTTY() && total > 0, total: total}
}

func (b *progressBar) advance() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	b.drawLocked()
}

func (b *progressBar) drawLocked() {
	if !b.enabled {
		return
	}
	const width = 30
	filled := width * b.done / b.total
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), b.done, b.total)
}

func (b *progressBar) redraw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drawLocked()
}

// clear erases the bar, so that output on a shared terminal starts on a
// clean line.
func (b *progressBar) clear() {
	if !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\x1b[K")
}

func (b *progressBar) finish() { b.clear() }
