package moneyop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/strictjson"
)

// Batch outcomes beside the journal's classes.
const (
	// OutcomeSkipped: the journal shows the invoice as done; not sent.
	OutcomeSkipped = "skipped"
	// OutcomeInvalid: the line is not a valid input; not sent.
	OutcomeInvalid = "invalid"
)

// Limits on batch input, so that a wrong file fails fast.
const (
	MaxBatchBytes = 64 << 20
	MaxLineBytes  = 64 << 10
)

// DefaultParallel is how many batch lines are in flight at once unless told.
const DefaultParallel = 4

// MaxParallel bounds --parallel: the gateway is one merchant's account.
const MaxParallel = 32

// BatchResult is the JSON line written for each input line; its fields are
// a stable interface. StatusCode, OrderNo and Error are null when absent.
// Invoice, and the invoice in Error, are shown as redact.Invoice shows
// them: an invoice id that is a card number shows as its first 6 and last
// 4 digits, and Line says which input line it is. OrderNo, and an order
// number in Error, are the gateway's own references, kept whole as render
// keeps them.
type BatchResult struct {
	Line       int     `json:"line"`
	Invoice    string  `json:"invoice"`
	Outcome    string  `json:"outcome"`
	StatusCode *int    `json:"status_code"`
	OrderNo    *string `json:"order_no"`
	Error      *string `json:"error"`
}

// setError sets the result's error. The messages show the line's invoice
// masked where they name it (redact.Invoice), the gateway's words come
// masked from the gateway client, and a command they suggest never holds
// the invoice of a line that reads as a card number (Env.unknownCommand).
func (r *BatchResult) setError(msg string) { r.Error = &msg }

// batchLine is one non-blank input line, its result, and whether it still
// has to be sent.
type batchLine[In any] struct {
	result BatchResult
	// invoice is the line's invoice id as given; result.Invoice is how it
	// is shown.
	invoice string
	in      In
	send    bool
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
	b, err := io.ReadAll(io.LimitReader(r, MaxBatchBytes+1))
	if err != nil {
		return nil, cmdutil.UsageErrorf("invalid --batch: reading %s: %v", name, err)
	}
	if len(b) > MaxBatchBytes {
		return nil, cmdutil.UsageErrorf("invalid --batch: %s is larger than %d MiB; split it", name, MaxBatchBytes>>20)
	}
	return b, nil
}

// planBatch turns the input into lines with their fate decided as far as
// it can be without the clock or the network, in this order: lines that
// are not valid inputs; invoices repeated within the batch (only the first
// is sent); for an operation that knows its lines by a key, keys that
// cannot all be meant (an error: nothing is sent); then the journal, which
// decides before anything that can go stale is checked — done invoices
// are skipped and unknown ones reported, whatever their (perhaps expired)
// tokens say. Each line to send is decided again, from the journal as it
// is then, once its invoice is locked (runLine).
func planBatch[In any, Req gateway.Call, Ans any](data []byte, op Operation[In, Req, Ans], parser LineParser[In], env *Env, attempts []journal.Attempt) ([]*batchLine[In], error) {
	var lines []*batchLine[In]
	var valid []BatchInput[In]
	firstLine := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxBatchBytes)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Bytes()
		if n == 1 {
			// Some editors start a file with a byte order mark: it is not
			// part of the first line's JSON.
			raw = strictjson.TrimBOM(raw)
		}
		text := bytes.TrimSpace(raw)
		if len(text) == 0 {
			continue // blank lines are not inputs
		}
		l := &batchLine[In]{result: BatchResult{Line: n}, done: make(chan struct{})}
		lines = append(lines, l)
		var in In
		var err error
		if len(text) > MaxLineBytes {
			err = fmt.Errorf("the line is longer than %d KiB", MaxLineBytes>>10)
		} else {
			in, err = parser.ParseLine(text)
			l.invoice = strings.TrimSpace(op.Invoice(in))
			l.result.Invoice = redact.Invoice(l.invoice)
			if err == nil {
				in, err = op.Check(in)
			}
		}
		if err != nil {
			l.result.Outcome = OutcomeInvalid
			// The line could not be read or checked, and what it is made of
			// may be echoed (a key of it): its words, the line's own and no
			// gateway reference, go through the card masker whole.
			l.result.setError(redact.Cards(fmt.Sprintf("line %d: %v", n, err)))
			continue
		}
		inv := op.Invoice(in)
		l.invoice = inv
		// Keys are checked on every valid line, a repeated invoice's too:
		// its key may still clash with the first line's.
		valid = append(valid, BatchInput[In]{Line: n, In: in})
		if first, seen := firstLine[inv]; seen {
			l.result.Outcome = journal.Duplicate
			l.result.setError(fmt.Sprintf("invoice %s is also on line %d of this batch; not sent", redact.Invoice(inv), first))
			continue
		}
		firstLine[inv] = n
		l.in, l.send = in, true
	}
	if keyed, ok := op.(Keyed[In]); ok {
		if err := keyed.CheckKeys(env, valid, attempts); err != nil {
			return nil, cmdutil.UsageHint(fmt.Errorf("invalid --batch: %w; nothing was sent", err), "")
		}
	}
	scope := env.Scope()
	states := journal.ByInvoice(attempts, scope)
	byKey := journal.ByKey(attempts, scope)
	for _, l := range lines {
		if !l.send {
			continue
		}
		l.send = decide(op, env, l, states[l.invoice], byKey)
		if !l.send && l.result.Outcome == journal.Unknown {
			// An attempt without an outcome may be another command's still
			// in flight: runLine decides the line again under its
			// invoice's lock, which tells the two apart.
			l.result.Outcome, l.result.Error = "", nil
			l.send = true
		}
	}
	return lines, nil
}

// decide settles a line from the journal, given its invoice's state and
// the attempts by key (for a Keyed operation): skipped when it is done,
// unknown when an attempt of it (or of its invoice) is unresolved; true
// when it is to be sent.
func decide[In any, Req gateway.Call, Ans any](op Operation[In, Req, Ans], env *Env, l *batchLine[In], s journal.InvoiceState, byKey map[string][]journal.Attempt) bool {
	decision, order, hint := journal.ResumeSend, "", ""
	if keyed, ok := op.(Keyed[In]); ok {
		if past := byKey[keyed.Key(l.in)]; len(past) > 0 {
			decision, order, hint = keyed.Resume(env, past)
		}
		if decision == journal.ResumeSend && len(s.Unresolved) > 0 {
			// Another line or command on the invoice left an attempt of
			// unknown outcome: it is settled first.
			decision, order, hint = keyed.Resume(env, s.Unresolved)
		}
	} else {
		switch decision = s.Resume(); decision {
		case journal.ResumeSkip:
			order = s.Success.OrderNo()
		case journal.ResumeUnknown:
			hint = "run " + env.resolveCommand(s.Unresolved[len(s.Unresolved)-1])
		}
	}
	switch decision {
	case journal.ResumeSkip:
		l.result.Outcome = OutcomeSkipped
		if order != "" {
			l.result.OrderNo = &order
		}
		return false
	case journal.ResumeUnknown:
		l.result.Outcome = journal.Unknown
		l.result.setError("the last attempt's outcome is unknown; not retried: " + hint)
		return false
	}
	return true
}

// RunBatch runs op on every line of the --batch input and prints one JSON
// result per line, in input order.
func RunBatch[In any, Req gateway.Call, Ans any](ctx context.Context, opts *Options, op Operation[In, Req, Ans]) error {
	parser, ok := op.(LineParser[In])
	if !ok {
		return cmdutil.UsageErrorf("--batch: this command sends one request; it has no batch")
	}
	data, err := readBatch(opts)
	if err != nil {
		return err
	}
	env, err := newEnv(opts, op.Kind())
	if err != nil {
		return err
	}
	// Closing the journal is bounded as a single command's cleanup is
	// (withinGrace): a database that hangs does not hold the batch's exit.
	defer withinGrace(context.Background(), func() { _ = env.Journal.Close() })
	// Every attempt: a refund id's other uses are checked too
	// (Keyed.CheckKeys), and each line's later look at its invoice reads
	// only what was appended since (journal.File).
	attempts, err := env.Journal.Attempts(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the payment journal to resume the batch: %w; nothing was sent", err)
	}
	lines, err := planBatch(data, op, parser, env, attempts)
	if err != nil {
		return err
	}
	opts.IO.Notef("Batch of %s on profile %q at %s", render.Count(len(lines), "line", "lines"), env.Config.Profile, redact.URL(env.Client.BaseURL()))
	progress := newProgressBar(opts, len(lines))
	wait := runLines(ctx, opts, op, env, lines, progress)
	writeResults(opts, lines, progress)
	fatal := wait()
	progress.finish()
	writeBatchSummary(opts, env, lines)
	switch {
	case fatal != nil:
		return fatal
	case ctx.Err() != nil:
		return cmdutil.SilentError(cmdutil.KindInterrupted)
	}
	if kind, ok := mostSerious(lines); ok {
		return cmdutil.SilentError(kind)
	}
	return nil
}

// runLines starts the lines to send on opts.Parallel workers and returns
// at once; each line's done channel is closed when it is settled, and
// the function returned waits for the workers. Each
// line gets the configured time limit (--timeout) of its own. Calls in
// flight are not cancelled by Ctrl-C (ctx): they finish and record their
// outcome; Ctrl-C only stops new ones from starting, and the lines not
// started are not_sent. The wait's error is the first failure to write
// an intent: nothing more was sent after it.
func runLines[In any, Req gateway.Call, Ans any](ctx context.Context, opts *Options, op Operation[In, Req, Ans], env *Env,
	lines []*batchLine[In], progress *progressBar) func() error {
	timeout := env.Config.Timeout
	payCtx := context.WithoutCancel(ctx)
	stopCtx, stop := context.WithCancel(ctx)
	withTimeout := func() (context.Context, context.CancelFunc) {
		if timeout > 0 {
			return context.WithTimeout(payCtx, timeout)
		}
		return payCtx, func() {}
	}
	var fatalMu sync.Mutex
	var fatal error
	fail := func(err error) {
		fatalMu.Lock()
		if fatal == nil {
			fatal = err
		}
		fatalMu.Unlock()
		stop()
	}
	settled := func(l *batchLine[In]) {
		progress.advance()
		close(l.done)
	}
	work := make(chan *batchLine[In])
	var wg sync.WaitGroup
	for range opts.Parallel {
		wg.Go(func() {
			for l := range work {
				runLine(l, op, env, opts, withTimeout, fail)
				settled(l)
			}
		})
	}
	go func() {
		defer close(work)
		for _, l := range lines {
			switch {
			case !l.send:
				settled(l)
			case dispatch(stopCtx, work, l):
			default:
				l.result.Outcome = journal.NotSent
				l.result.setError("not sent: the batch was stopped before this line")
				settled(l)
			}
		}
	}()
	return func() error {
		wg.Wait()
		stop()
		fatalMu.Lock()
		defer fatalMu.Unlock()
		return fatal
	}
}

// dispatch hands l to a worker, unless the batch is stopped first.
func dispatch[In any](stop context.Context, work chan<- *batchLine[In], l *batchLine[In]) bool {
	select {
	case <-stop.Done():
		return false
	default:
	}
	select {
	case work <- l:
		return true
	case <-stop.Done():
		return false
	}
}

// writeResults writes each line's result in input order as it is settled.
// Every outcome is in the journal before its line is written; a stdout
// that breaks (a reader such as `head -1` that went away) stops the
// output, not the batch: the lines already started, and the ones after,
// still run and are journaled, and the summary goes to stderr.
func writeResults[In any](opts *Options, lines []*batchLine[In], progress *progressBar) {
	var writeErr error
	for _, l := range lines {
		<-l.done
		if writeErr != nil {
			continue
		}
		progress.clear()
		writeErr = render.WriteJSONLine(opts.IO.Out, l.result)
		progress.redraw()
		if writeErr != nil {
			opts.IO.Warnf("the results could not be written to stdout from line %d on (%v); every outcome is in the journal ('paycli journal')", l.result.Line, writeErr)
		}
	}
}

// runLine locks the line's invoice, decides it again from the journal as
// it is now, prepares and sends it, and fills its result. A line whose
// invoice another command holds is not sent. fail is called when the
// intent could not be written: nothing was sent, and nothing more may be.
func runLine[In any, Req gateway.Call, Ans any](l *batchLine[In], op Operation[In, Req, Ans], env *Env, opts *Options,
	withTimeout func() (context.Context, context.CancelFunc), fail func(error)) {
	ctx, cancel := withTimeout()
	defer cancel()
	attempts, unlock, ok := lockLine(ctx, l, env, fail)
	if !ok {
		return
	}
	defer unlock()
	scope := env.Scope()
	if !decide(op, env, l, journal.ByInvoice(attempts, scope)[l.invoice], journal.ByKey(attempts, scope)) {
		return
	}
	// The desk's one rule: a batch line never re-sends an attempt, so any
	// unsettled one holds it back.
	if blocking, err := unsettledRule(env, attempts, l.invoice, nil); err != nil {
		l.result.Outcome = journal.Unknown
		l.result.setError(err.Error() + "; run " + env.resolveCommand(blocking[len(blocking)-1]))
		return
	}
	in, ok := prepareLine(ctx, l, op, env, fail)
	if !ok {
		return
	}
	d, req := op.Describe(in)
	res, err := attempt(ctx, op, env, opts.NewAttemptID(), in, d, req)
	if kind, _ := cmdutil.KindOf(err); err != nil && kind == cmdutil.KindUsage {
		// The store refused the intent (journal.ErrUnsettled): nothing
		// was sent, and the other lines are not concerned.
		l.result.Outcome = journal.Unknown
		l.result.setError(err.Error())
		return
	}
	if err != nil {
		fail(err)
		l.result.Outcome = journal.NotSent
		l.result.setError(err.Error())
		return
	}
	fillResult(&l.result, res.Outcome, env, op.Invoice(in), d)
	l.refused = errors.Is(res.Err, gateway.ErrUnauthorized)
	if res.journalErr != nil {
		opts.IO.Warnf("line %d: the outcome (%s) could not be written to the journal: %v", l.result.Line, res.Class, res.journalErr)
	}
}

// lockLine takes the lock of the line's invoice and reads the invoice's
// attempts, or fills the line's result and reports false: another
// command in flight on it (a duplicate), or a journal that cannot be
// locked or read (fail: nothing more may be sent).
func lockLine[In any](ctx context.Context, l *batchLine[In], env *Env, fail func(error)) ([]journal.Attempt, func(), bool) {
	unlock, err := env.Journal.Lock(ctx, env.Identity, l.invoice, env.kind)
	var inFlight *journal.InFlightError
	switch {
	case errors.As(err, &inFlight):
		l.result.Outcome = journal.Duplicate
		l.result.setError(inFlight.Say(l.invoice) + "; not sent")
		return nil, nil, false
	case err != nil:
		err = fmt.Errorf("%w: %w", ErrJournal, err)
		fail(err)
		l.result.Outcome = journal.NotSent
		l.result.setError(err.Error())
		return nil, nil, false
	}
	attempts, err := env.Journal.Attempts(ctx, l.invoice)
	if err != nil {
		unlock()
		err = fmt.Errorf("cannot read the payment journal: %w; nothing was sent", err)
		fail(err)
		l.result.Outcome = journal.NotSent
		l.result.setError(err.Error())
		return nil, nil, false
	}
	return attempts, unlock, true
}

// prepareLine runs the operation's Prepare on the line's input, or fills
// the line's result and reports false: a journal it could not read
// (fail), a gateway it could not reach, an input it refused.
func prepareLine[In any, Req gateway.Call, Ans any](ctx context.Context, l *batchLine[In], op Operation[In, Req, Ans], env *Env, fail func(error)) (In, bool) {
	preparer, ok := op.(Preparer[In])
	if !ok {
		return l.in, true
	}
	in, err := preparer.Prepare(ctx, env, l.in)
	switch {
	case err == nil:
		return in, true
	case errors.Is(err, journal.ErrUnavailable):
		// Prepare could not read the journal (a shared journal's database
		// lost): nothing was sent, and nothing more may be (exit 8).
		fail(err)
		l.result.Outcome = journal.NotSent
		l.result.setError(fmt.Sprintf("line %d: %v", l.result.Line, err))
	case errors.Is(err, gateway.ErrUnavailable):
		// Prepare could not reach the gateway: the line was not sent for
		// want of one (exit 8), like a payment whose token call failed.
		l.result.Outcome = journal.NotSent
		l.result.setError(fmt.Sprintf("line %d: %v", l.result.Line, err))
	default:
		l.result.Outcome = OutcomeInvalid
		msg := fmt.Sprintf("line %d: %v", l.result.Line, err)
		if kind, _ := cmdutil.KindOf(err); kind == cmdutil.KindUsage {
			// A usage error echoes the line's own values, nothing the
			// gateway said: a card number typed into one (an amount) is
			// masked like any other input.
			msg = redact.Cards(msg)
		}
		l.result.setError(msg)
	}
	return in, false
}

// fillResult copies an attempt's outcome into a batch line.
func fillResult(r *BatchResult, o Outcome, env *Env, invoice string, d Description) {
	secrets := d.Secrets
	r.Outcome = o.Class
	r.StatusCode = o.StatusCode
	if o.OrderNo != "" {
		r.OrderNo = &o.OrderNo
	}
	next := "; run " + env.unknownCommand(invoice)
	if o.Hint != "" {
		next = "; " + o.Hint
	}
	switch {
	case o.Class == journal.Succeeded, o.Class == journal.Queued:
	case o.Class == journal.Unknown:
		r.setError(scrub(explainFailure(env, d, invoice, o).Error(), secrets) + next)
	case o.Class == journal.Rejected && !errors.Is(o.Err, gateway.ErrUnauthorized):
		// The operation's own advice, as an unknown line's: a line has
		// no second line.
		text := refusalText(d, o)
		if o.Hint != "" {
			text += "; " + o.Hint
		}
		r.setError(scrub(text, secrets))
	case o.Say != "":
		r.setError(scrub(o.Say, secrets))
	case o.Class == journal.Duplicate:
		r.setError("invoice was already processed or is in flight; this attempt charged nothing")
	case o.Class == journal.Declined:
		r.setError("payment declined: " + scrub(declineText(o.Err), secrets))
	default:
		r.setError(scrub(o.Err.Error(), secrets))
	}
}

// severity ranks outcomes for the batch's exit code: an unknown outcome
// (7) needs reconciling first; then refused credentials (3), lines not
// sent for want of a gateway (8), declines (5), rejections and invalid
// lines (4), duplicates (6); done and skipped lines are fine (0).
var severity = []struct {
	outcome string
	refused bool
	kind    cmdutil.Kind
}{
	{outcome: journal.Unknown, kind: cmdutil.KindOutcomeUnknown},
	{refused: true, kind: cmdutil.KindAuth},
	{outcome: journal.NotSent, kind: cmdutil.KindUnavailable},
	{outcome: journal.Declined, kind: cmdutil.KindDeclined},
	{outcome: journal.Rejected, kind: cmdutil.KindRejected},
	{outcome: OutcomeInvalid, kind: cmdutil.KindRejected},
	{outcome: journal.Duplicate, kind: cmdutil.KindDuplicate},
}

// MostSerious is the exit kind of a batch whose lines came to outcomes
// (refused marks the lines whose credentials were refused); false when
// every line is fine.
func MostSerious(outcomes []string, refused []bool) (cmdutil.Kind, bool) {
	for _, s := range severity {
		for i, o := range outcomes {
			if (s.refused && i < len(refused) && refused[i]) || (!s.refused && o == s.outcome) {
				return s.kind, true
			}
		}
	}
	return 0, false
}

func mostSerious[In any](lines []*batchLine[In]) (cmdutil.Kind, bool) {
	outcomes := make([]string, len(lines))
	refused := make([]bool, len(lines))
	for i, l := range lines {
		outcomes[i], refused[i] = l.result.Outcome, l.refused
	}
	return MostSerious(outcomes, refused)
}

// writeBatchSummary counts outcomes on stderr and lists the commands that
// reconcile the invoices of unknown outcome, each once (every invoice that
// reads as a card number shares one: Env.unknownCommand).
func writeBatchSummary[In any](opts *Options, env *Env, lines []*batchLine[In]) {
	order := []string{journal.Succeeded, journal.Queued, OutcomeSkipped, journal.Declined, journal.Duplicate, journal.Rejected, OutcomeInvalid, journal.Unknown, journal.NotSent}
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
	opts.IO.Notef("Batch done: %s.", strings.Join(parts, ", "))
	unknown := 0
	var commands []string
	listed := map[string]bool{}
	for _, l := range lines {
		if l.result.Outcome == journal.Unknown {
			unknown++
			if c := env.unknownCommand(l.invoice); !listed[c] {
				listed[c] = true
				commands = append(commands, c)
			}
		}
	}
	if unknown > 0 {
		opts.IO.Notef("Outcome unknown for %s; never retried. Check each with:", render.Count(unknown, "invoice", "invoices"))
		for _, c := range commands {
			fmt.Fprintf(opts.IO.ErrOut, "  %s\n", c)
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
