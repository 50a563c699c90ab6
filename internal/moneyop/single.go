package moneyop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// newEnv builds what the attempts of a run of operations of kind share.
// Every failure here happens before anything is sent.
func newEnv(opts *Options, kind string) (*Env, error) {
	cfg, err := opts.Config()
	if err != nil {
		return nil, err
	}
	client, err := opts.Gateway()
	if err != nil {
		return nil, err
	}
	// The client signs every money call with the profile's merchant_key:
	// without one, the run is refused before anything exists.
	if err := client.RequireMerchantKey(); err != nil {
		return nil, err
	}
	identity := journal.AccountOf(client.BaseURL(), cfg.AppID, cfg.MerchantKey)
	if opts.GatewayIdentity != nil {
		if identity, err = opts.GatewayIdentity(); err != nil {
			return nil, err
		}
	}
	alias := journal.AppAlias(identity, client.BaseURL(), cfg.AppID)
	store, err := openJournal(opts)
	if err != nil {
		return nil, err
	}
	return &Env{
		Config:       cfg,
		Client:       client,
		Now:          opts.Now,
		GatewayFlags: opts.GatewayFlags,
		Identity:     identity,
		Alias:        alias,
		Journal:      store,
		kind:         kind,
		kinds:        opts.Kinds,
	}, nil
}

// openJournal opens the run's journal (Options.Journal). It writes
// nothing: an intent creates the file.
func openJournal(opts *Options) (journal.Store, error) {
	store, err := opts.Journal()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return store, nil
}

// holdInvoice takes the lock of invoice on the run's gateway account for
// the operation, and returns the function that releases it. Another
// command holding it is in flight on the invoice: exit 6, nothing sent.
// An input without an invoice (an api call whose body names none) has
// nothing to hold.
func (e *Env) holdInvoice(ctx context.Context, invoice string) (func(), error) {
	if invoice == "" {
		return func() {}, nil
	}
	unlock, err := e.Journal.Lock(ctx, e.Identity, invoice, e.kind)
	var inFlight *journal.InFlightError
	switch {
	case errors.As(err, &inFlight):
		return nil, cmdutil.WithKind(cmdutil.KindDuplicate, errors.New(inFlight.Say(invoice)+"; nothing was sent"),
			"Let it finish: 'paycli journal' then shows what it did.")
	case errors.As(err, new(*journal.LockFolderError)):
		return nil, cmdutil.UsageHint(fmt.Errorf("%w: %w", ErrJournal, err),
			"paycli sends nothing without the invoice's lock: make that folder writable by you, or point the journal at a folder that is.")
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return unlock, nil
}

// look is what a money-moving command saw at its first look at the
// invoice: the attempts it was decided on (the rule's, unsettledRule)
// and the attempt it re-sends (Resender), with the lock it holds until
// release runs.
type look struct {
	invoice  string
	seen     string
	attempts []journal.Attempt
	resent   *journal.Attempt
	release  func()
}

// lookAt is a money-moving command's first look at the invoice of in:
// it takes the invoice's lock (holdInvoice) and reads the invoice's
// attempts from the journal; the desk's rule (unsettledRule), narrowed
// only by the operation's Resender, must let the input through.
// The lock is held until release runs, after the outcome is recorded.
func lookAt[In any, Req gateway.Call, Ans any](ctx context.Context, op Operation[In, Req, Ans], env *Env, in In) (_ In, l *look, err error) {
	if locator, ok := op.(Locator[In]); ok {
		if in, err = locator.Locate(ctx, env, in); err != nil {
			return in, nil, inputError(err)
		}
	}
	l = &look{invoice: op.Invoice(in)}
	attempts, err := l.lock(ctx, env)
	if err != nil {
		return in, nil, err
	}
	if resender, ok := op.(Resender[In]); ok {
		if in, l.resent, err = resender.Resend(env, in, attempts); err != nil {
			l.release()
			return in, nil, err
		}
	}
	var resend *journal.Entry
	if l.resent != nil {
		resend = &l.resent.Intent
	}
	if _, err := unsettledRule(env, l.attempts, l.invoice, resend); err != nil {
		l.release()
		return in, nil, err
	}
	return in, l, nil
}

// lock takes the invoice's lock and reads its attempts, noting them and
// what it saw. An input without an invoice has none.
func (l *look) lock(ctx context.Context, env *Env) ([]journal.Attempt, error) {
	release, err := env.holdInvoice(ctx, l.invoice)
	if err != nil {
		return nil, err
	}
	var attempts []journal.Attempt
	if l.invoice != "" {
		attempts, err = env.Journal.Attempts(ctx, l.invoice)
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("cannot read the payment journal: %w; nothing was sent", err)
	}
	l.release, l.seen, l.attempts = release, fingerprint(attempts, l.invoice), attempts
	return attempts, nil
}

// again takes the look again after a confirmation asked without the lock
// (confirmLoose): the lock, and the invoice's attempts, which must be
// what the person confirmed. Anything new (another attempt, an outcome
// or a reconciliation written meanwhile) refuses the input: nothing was
// sent, and a run of the command again shows the invoice as it is now.
func (l *look) again(ctx context.Context, env *Env) error {
	seen := l.seen
	if _, err := l.lock(ctx, env); err != nil {
		return err
	}
	if l.seen != seen {
		l.release()
		return cmdutil.WithKind(cmdutil.KindDuplicate,
			fmt.Errorf("invoice %s changed in the journal while the confirmation was asked (another command acted on it); nothing was sent", redact.Invoice(l.invoice)),
			"Run the command again to see the invoice as it is now: 'paycli journal' shows what was done.")
	}
	return nil
}

// fingerprint names what the journal says of invoice: every attempt on
// it, with its outcome and reconciliation.
func fingerprint(attempts []journal.Attempt, invoice string) string {
	var b strings.Builder
	for _, a := range attempts {
		if a.Intent.Invoice != invoice {
			continue
		}
		fmt.Fprintf(&b, "%s/%s/%t/%t;", a.Intent.Attempt, a.Class(), a.Recorded(), a.Reconciled != nil)
		if a.Reconciled != nil {
			fmt.Fprintf(&b, "%s@%s;", a.Reconciled.Outcome, a.Reconciled.Time)
		}
	}
	return b.String()
}

// allows checks, once the input is described, that what goes out is
// what the rule let through (unsettledRule): a new attempt past no
// unsettled one, or the re-send, of the operation's kind and with the
// Ref it described, of the very attempt that blocks it.
func (l *look) allows(env *Env, kind string, d Description) error {
	var resend *journal.Entry
	if l.resent != nil && l.resent.Intent.Ref == d.Ref {
		resend = &journal.Entry{Kind: kind, Ref: d.Ref}
	}
	_, err := unsettledRule(env, l.attempts, l.invoice, resend)
	return err
}

// unsettledRule is the desk's one rule, decided for an intent on invoice
// over the invoice's attempts as the journal holds them under its lock;
// the single path (lookAt, allows) and every batch line (runLine) call it.
// It returns the attempts that block the invoice (journal.Blocking) and,
// unless the intent re-sends the very attempt they are
// (journal.MayResend), the refusal (refuseUnsettled). resend is the
// intent the input re-sends (its kind and Ref), nil when it re-sends
// none, as a batch line never does.
func unsettledRule(env *Env, attempts []journal.Attempt, invoice string, resend *journal.Entry) ([]journal.Attempt, error) {
	blocking := journal.Blocking(attempts, env.Scope(), invoice)
	if len(blocking) > 0 && (resend == nil || !journal.MayResend(*resend, blocking)) {
		return blocking, refuseUnsettled(env, invoice, blocking)
	}
	return blocking, nil
}

// refuseUnsettled is the pipeline's refusal of an input on invoice while
// blocking, attempts on it of any kind whose outcome is not settled,
// exist (exit 2, nothing sent), with the command that settles the latest
// (Env.resolveCommand).
func refuseUnsettled(env *Env, invoice string, blocking []journal.Attempt) error {
	a := blocking[len(blocking)-1]
	state := "whose outcome is unknown"
	if a.Class() == journal.Queued {
		state = "queued for the gateway team's approval"
	}
	if ref := a.Intent.Ref; ref != "" {
		return cmdutil.UsageHint(fmt.Errorf("invoice %s has a %s %s (refund_transaction_id %s); nothing was sent", redact.Invoice(invoice), a.Intent.OpKind(), state, ref),
			"Resolve it first: "+env.resolveCommand(a))
	}
	article := "a"
	if strings.ContainsAny(a.Intent.OpKind()[:1], "aeiou") {
		article = "an" // an api attempt
	}
	return cmdutil.UsageHint(fmt.Errorf("invoice %s has %s %s attempt %s (attempt %s, %s); nothing was sent",
		redact.Invoice(invoice), article, a.Intent.OpKind(), state, a.Intent.Attempt, render.FormatTime(a.Intent.Time, render.Table)),
		"Find out what became of it first: "+env.resolveCommand(a))
}

// unsettledRefusal turns a store's refusal of an intent (journal.ErrUnsettled)
// into the pipeline's (refuseUnsettled); nil for any other error.
func unsettledRefusal(env *Env, invoice string, err error) error {
	var ue *journal.UnsettledError
	switch {
	case errors.As(err, &ue) && len(ue.Blocking) > 0:
		return refuseUnsettled(env, invoice, ue.Blocking)
	case errors.Is(err, journal.ErrUnsettled):
		return cmdutil.UsageHint(fmt.Errorf("invoice %s has an attempt whose outcome is not settled; nothing was sent", redact.Invoice(invoice)),
			"Find out what became of it first: "+env.unknownCommand(invoice))
	}
	return nil
}

// inputError turns a failed check of flags into the usage error a person
// reads: "invalid --email: …". Errors that carry an exit code keep it, and
// so do the gateway's own errors (a Prepare that looks the sale up may
// find the gateway unreachable, or the credentials refused).
func inputError(err error) error {
	if _, ok := cmdutil.KindOf(err); ok || isGatewayError(err) || errors.Is(err, journal.ErrUnavailable) {
		return err
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return cmdutil.UsageErrorf("invalid --%s: %v", fe.Field, fe.Err)
	}
	return cmdutil.UsageErrorf("%v", err)
}

// isGatewayError reports whether err is a gateway call's failure (an
// answer that is not a success, one the client refused to believe, no
// complete answer, a request it could not sign), not a problem with the
// input.
func isGatewayError(err error) bool {
	var apiErr *gateway.APIError
	var reqErr *gateway.RequestError
	var inconsistent *gateway.InconsistentError
	return errors.As(err, &apiErr) || errors.As(err, &reqErr) || errors.As(err, &inconsistent) ||
		errors.Is(err, gateway.ErrNoMerchantKey)
}

// RunSingle runs one operation on the input given by flags: check, the
// first look at the invoice (its lock, its journal), prepare, summary, dry
// run or confirmation, journal intent, send once, journal outcome, then
// the result on stdout (or the failure, as an error whose kind is the exit
// code).
func RunSingle[In any, Req gateway.Call, Ans any](ctx context.Context, opts *Options, op Operation[In, Req, Ans], in In) error {
	in, err := op.Check(in)
	if err != nil {
		return inputError(err)
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	env, err := newEnv(opts, op.Kind())
	if err != nil {
		return err
	}
	// The cleanup (the lock's release, the journal's close) ends by the
	// outcome's bound once an attempt was made (attempt sets it), else
	// CleanupGrace after it starts.
	var cleanup context.Context
	cancelCleanup := context.CancelFunc(func() {})
	defer func() {
		withinGrace(cleanup, func() { _ = env.Journal.Close() })
		cancelCleanup()
	}()
	lookCtx, cancelLook, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	in, l, err := lookAt(lookCtx, op, env, in)
	cancelLook()
	if err != nil {
		return err
	}
	defer func() { withinGrace(cleanup, l.release) }()
	if in, err = prepare(ctx, opts, op, env, in); err != nil {
		return inputError(err)
	}
	d, req := op.Describe(in)
	if err := l.allows(env, op.Kind(), d); err != nil {
		return err
	}
	writeSummary(opts.IO.ErrOut, d, env)
	if opts.DryRun {
		return dryRun(opts, env, format, req)
	}
	if err := confirmLoose(ctx, opts, env, d, l); err != nil {
		return err
	}
	ctx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	cleanup, cancelCleanup = boundedBy(ctx, CleanupGrace)
	res, err := attempt(ctx, op, env, opts.NewAttemptID(), in, d, req)
	if err != nil {
		return err
	}
	if res.journalErr != nil {
		opts.IO.Warnf("the outcome (%s) could not be written to the journal: %v", res.Class, res.journalErr)
	}
	if res.Class != journal.Succeeded && res.Class != journal.Queued {
		failure := scrubbedError{explainFailure(env, d, op.Invoice(in), res.Outcome), d.Secrets}
		if printer, ok := op.(AnswerPrinter[Ans]); ok {
			if err := printer.PrintAnswer(ctx, res.ans); err != nil {
				opts.IO.Warnf("the gateway's answer could not be written to stdout: %v", err)
			}
		}
		return failure
	}
	writeSuccess(ctx, opts, op, format, in, d, res)
	return nil
}

// dryRun prints the request the client would sign and send, secrets
// redacted, and sends nothing.
func dryRun(opts *Options, env *Env, format render.Format, req gateway.Call) error {
	return DryRun(opts.IO, env.Client, format, req)
}

// DryRun prints the request client would sign and send for call, secrets
// and card numbers redacted, and sends nothing: the pipeline's --dry-run,
// and that of a command that sends outside it (cards update and save).
func DryRun(io *iostreams.IOStreams, client *gateway.Client, format render.Format, call gateway.Call) error {
	dump, err := client.DryRun(call)
	if err != nil {
		return err
	}
	if err := writeDryRun(io.Out, format, dump); err != nil {
		return err
	}
	io.Notef("Dry run: nothing was sent.")
	return nil
}

// confirmLoose is confirm without holding the invoice's lock: a person
// at the prompt must not hold other operators off the invoice for as long
// as they take. The lock is let go while the question is asked, then taken
// again with a second look (look.again): what was confirmed must be what
// the journal still says, or nothing is sent. With --yes nothing is asked
// and the lock is kept throughout.
func confirmLoose(ctx context.Context, opts *Options, env *Env, d Description, l *look) error {
	if opts.Yes || !opts.IO.CanPrompt() {
		return confirm(ctx, opts, d)
	}
	withinGrace(context.Background(), l.release)
	l.release = func() {}
	if err := confirm(ctx, opts, d); err != nil {
		return err
	}
	lookCtx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return l.again(lookCtx, env)
}

// confirm asks on a terminal, or requires --yes without one.
func confirm(ctx context.Context, opts *Options, d Description) error {
	if opts.Yes {
		return nil
	}
	if !opts.IO.CanPrompt() {
		verb := "charge"
		if d.Noun != "" {
			verb = "send the " + d.Noun
		}
		return cmdutil.UsageHint(fmt.Errorf("refusing to %s without confirmation: no terminal to ask on; nothing was sent", verb),
			"Pass --yes to confirm the "+d.noun()+".")
	}
	ok, err := opts.IO.Confirm(ctx, d.Prompt)
	if err != nil {
		return err
	}
	if !ok {
		// A cancel is the person's choice, not an error: said plainly,
		// with an exit code of its own (10) that no script reads as paid.
		fmt.Fprintln(opts.IO.ErrOut, "Cancelled; nothing was sent.")
		return cmdutil.SilentError(cmdutil.KindCancelled)
	}
	return nil
}

// writeSuccess shows a succeeded attempt: the verdict on a stderr
// terminal, and the result (or the answer, PrintAnswer) on stdout. The
// operation is done and journaled: a closed or full stdout, or a --jq
// filter that fails on the result, does not change its exit code, only
// where the result can be read, which a warning says.
func writeSuccess[In any, Req gateway.Call, Ans any](ctx context.Context, opts *Options, op Operation[In, Req, Ans], format render.Format, in In, d Description, res attemptResult[Ans]) {
	fields, verdict := op.Result(in, res.ans)
	if opts.IO.IsStderrTTY() && verdict != "" {
		opts.IO.Notef("%s", verdict)
	}
	var err error
	if printer, ok := op.(AnswerPrinter[Ans]); ok {
		err = printer.PrintAnswer(ctx, res.ans)
	} else if printer, ok := op.(PlainPrinter[In, Ans]); ok && format == render.Table {
		err = printer.PrintPlain(opts.IO.Out, in, res.ans)
	} else {
		err = opts.JSON.WriteFields(ctx, opts.IO.Out, format, cmdutil.TableOptions(opts.IO), resultFields(fields, format))
	}
	if err == nil {
		return
	}
	var jqErr *cmdutil.JQError
	if errors.As(err, &jqErr) {
		opts.IO.Warnf("the %s succeeded (invoice %s, order %s), but %v", d.noun(), redact.Invoice(op.Invoice(in)), res.OrderNo, jqErr)
		return
	}
	where := "it is in the journal"
	if res.journalErr != nil {
		where = "it is not in the journal either"
	}
	opts.IO.Warnf("the result could not be written to stdout (%v); %s: %s", err, where, outcomeLine(res.Outcome))
}

// resultFields drops empty text rows from a table: a field the gateway
// left empty says nothing a person needs. JSON keeps every field.
func resultFields(fs []render.Field, format render.Format) []render.Field {
	if format == render.JSON {
		return fs
	}
	out := fs[:0:0]
	for _, f := range fs {
		if string(f.JSON) != `""` {
			out = append(out, f)
		}
	}
	return out
}

// outcomeLine is one line naming an outcome, for stderr.
func outcomeLine(o Outcome) string {
	s := o.Class
	if o.OrderNo != "" {
		s += ", order " + o.OrderNo
	}
	return s
}

// prepare runs the operation's Prepare, if it has one (Preparer), under
// the command's time limit.
func prepare[In any, Req gateway.Call, Ans any](ctx context.Context, opts *Options, op Operation[In, Req, Ans], env *Env, in In) (In, error) {
	preparer, ok := op.(Preparer[In])
	if !ok {
		return in, nil
	}
	ctx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return in, err
	}
	defer cancel()
	return preparer.Prepare(ctx, env, in)
}

// referenceRows are the summary rows that hold a reference to the sale
// made by the gateway or by paycli (an order number, a
// refund_transaction_id): shown whole, as render keeps the gateway's
// references whole (render.WriteFields). They are digits that can pass the
// Luhn check by chance, and a person needs them to look the sale up.
var referenceRows = [...]string{"Order", "Ref"}

// writeSummary shows, on stderr, what is about to happen and where. The
// other rows hold the input and what the gateway said of the sale (the
// invoice, the payer), any of which may be a card number typed in the
// wrong place: they go through the card masker.
func writeSummary(w io.Writer, d Description, env *Env) {
	rows := make([][2]string, 0, len(d.Rows)+2)
	for _, r := range d.Rows {
		if !slices.Contains(referenceRows[:], r[0]) {
			r[1] = redact.Cards(r[1])
		}
		rows = append(rows, r)
	}
	rows = append(rows,
		[2]string{"Profile", env.Config.Profile},
		[2]string{"Gateway", redact.URL(env.Client.BaseURL())},
	)
	fmt.Fprintln(w, d.Title)
	width := 8
	for _, r := range rows {
		width = max(width, len(r[0])+1)
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s %s\n", width, r[0]+":", r[1])
	}
}

// writeDryRun prints the request: as an HTTP request, or with -o json as
// one object {"method","url","headers","body"} whose body is the JSON
// request body itself.
func writeDryRun(w io.Writer, format render.Format, dump gateway.RequestDump) error {
	if format != render.JSON {
		_, err := fmt.Fprint(w, dump.String())
		return err
	}
	body := json.RawMessage(dump.Body)
	if !json.Valid(body) {
		b, _ := json.Marshal(dump.Body)
		body = b
	}
	headers := dump.Header
	if headers == nil {
		headers = []string{}
	}
	out, err := json.MarshalIndent(struct {
		Method  string          `json:"method"`
		URL     string          `json:"url"`
		Headers []string        `json:"headers"`
		Body    json.RawMessage `json:"body"`
	}{dump.Method, dump.URL, headers, body}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// attemptResult is an outcome with what the pipeline still needs of it.
type attemptResult[Ans any] struct {
	Outcome
	ans Ans
	// journalErr is set when the outcome line could not be written.
	journalErr error
}

// attempt makes one attempt of req, which in describes (d): intent line,
// the request, outcome line. The request runs under ctx, whose deadline
// the intent records; the journal writes do not, so that an attempt cut
// off by Ctrl-C, a signal or the time limit still records its (unknown)
// outcome. An error means the intent could not be written: nothing was
// sent.
func attempt[In any, Req gateway.Call, Ans any](ctx context.Context, op Operation[In, Req, Ans], env *Env, id string, in In, d Description, req Req) (attemptResult[Ans], error) {
	var res attemptResult[Ans]
	entry := journal.Entry{
		Type:       journal.TypeIntent,
		Kind:       op.Kind(),
		Gateway:    env.Identity,
		AppGateway: env.Alias,
		Attempt:    id,
		Time:       env.Now().UTC(),
		Profile:    env.Config.Profile,
		BaseURL:    redact.URL(env.Client.BaseURL()),
		Invoice:    op.Invoice(in),
		Amount:     d.Amount,
		Currency:   d.Currency,
		Card:       redact.CardText(d.Card), // one masking, whatever the answer's
		Wallet:     d.Wallet,
		Ref:        d.Ref,
		Reason:     d.Reason,
	}
	if keyed, ok := op.(Keyed[In]); ok {
		entry.Key = keyed.Key(in)
	}
	if deadline, ok := ctx.Deadline(); ok {
		entry.Deadline = deadline.UTC()
	}
	// The intent is written by the request's deadline, or the request is
	// not sent; Ctrl-C does not cut a write short.
	record, cancelRecord := boundedBy(ctx, 0)
	defer cancelRecord()
	if err := env.Journal.Append(record, entry); err != nil {
		if refusal := unsettledRefusal(env, entry.Invoice, err); refusal != nil {
			return res, refusal
		}
		return res, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	ans, err := op.Call(ctx, env.Client, req)
	res.Outcome, res.ans = op.Classify(in, ans, err), ans
	entry.Type, entry.Deadline = journal.TypeOutcome, time.Time{}
	entry.Time = env.Now().UTC()
	entry.Outcome, entry.StatusCode, entry.OrderNo = res.Class, res.StatusCode, res.OrderNo
	entry.Message = res.Message
	if res.Err != nil {
		entry.Message = res.Err.Error()
	}
	entry.Message = scrub(entry.Message, d.Secrets)
	var apiErr *gateway.APIError
	if res.Err != nil && errors.As(res.Err, &apiErr) {
		entry.StatusDescription = scrub(apiErr.Description, d.Secrets)
		entry.PaymentReasonCode = scrub(apiErr.PaymentReasonCode, d.Secrets)
		entry.PaymentReasonCodeDetail = scrub(apiErr.PaymentReasonCodeDetail, d.Secrets)
		entry.OriginalBankErrorCode = scrub(apiErr.OriginalBankErrorCode, d.Secrets)
		entry.OriginalBankErrorDescription = scrub(apiErr.OriginalBankErrorDescription, d.Secrets)
	}
	// The outcome has CleanupGrace past the deadline (a request the time
	// limit cut off ends at it): a journal that hangs then gets the line
	// in its spool, or the warning that it could not.
	record, cancelOutcome := boundedBy(ctx, CleanupGrace)
	defer cancelOutcome()
	res.journalErr = env.Journal.Append(record, entry)
	return res, nil
}

// explainFailure turns an attempt that did not succeed into the error the
// user sees: what happened, and what to run next. The invoice in it is
// shown as redact.Invoice shows it (o.Say is the operation's own sentence,
// which does the same; the gateway's words come masked from the gateway
// client), and the command it suggests never names a masked invoice
// (Env.unknownCommand). Nothing else in it is masked: an order number is
// the gateway's reference, kept whole.
func explainFailure(env *Env, d Description, invoice string, o Outcome) error {
	status := env.StatusCommand(invoice)
	next := "Find out what happened with: " + env.unknownCommand(invoice)
	if o.Hint != "" {
		next = o.Hint
	}
	say := func(def string) error {
		if o.Say != "" {
			def = o.Say
		}
		return errors.New(def)
	}
	switch o.Class {
	case journal.Duplicate:
		if o.Hint == "" {
			next = "See what happened to it: " + status
		}
		return cmdutil.WithKind(cmdutil.KindDuplicate,
			say(fmt.Sprintf("invoice %s was already processed or is in flight; this call charged nothing", redact.Invoice(invoice))), next)
	case journal.Declined:
		return cmdutil.WithKind(cmdutil.KindDeclined, say("payment declined: "+declineText(o.Err)+"; "+d.notDone()), "")
	case journal.Unknown:
		return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
			say(fmt.Sprintf("outcome unknown for invoice %s: %s; it was not retried", redact.Invoice(invoice), unknownWhy(o))), next)
	}
	if o.Refused {
		return refusedError(o.Err)
	}
	if o.Class == journal.Rejected && !errors.Is(o.Err, gateway.ErrUnauthorized) {
		// Refused credentials (30 or HTTP 401) keep their own exit code
		// (3) and the profile's advice (cmdutil.ExplainGatewayError).
		return cmdutil.WithKind(cmdutil.KindRejected, refusal{refusalText(d, o), o.Err}, rejectedHint(o))
	}
	if o.Say != "" {
		return fmt.Errorf("%s: %w", o.Say, o.Err)
	}
	return o.Err
}

// refusal is a rejected attempt's error: its text is refusalText, and
// errors.Is and errors.As see the gateway's error under it.
type refusal struct {
	text string
	err  error
}

func (e refusal) Error() string { return e.text }
func (e refusal) Unwrap() error { return e.err }

// refusalText says what a rejected attempt came to, the same way for
// every money command and in a batch line: what happened (the operation's
// Say, or "the gateway refused the refund"), the gateway's words once
// (its status_code and text), and what was not done ("nothing was
// refunded", Description.NotDone). What to do is the error's hint.
func refusalText(d Description, o Outcome) string {
	what := o.Say
	if what == "" {
		what = "the gateway refused the " + d.noun()
	}
	var apiErr *gateway.APIError
	switch {
	case errors.As(o.Err, &apiErr):
		what += " (" + apiErr.Answer() + ")"
	case o.Err != nil:
		what += " (" + o.Err.Error() + ")"
	}
	return what + "; " + d.notDone()
}

// rejectedHint is what to do after a rejection: the operation's Hint, or
// to correct what the gateway named. An unknown merchant_key (status_code
// 14) gets none here: cmdutil.ExplainGatewayError says how to fix the
// profile, for every command alike.
func rejectedHint(o Outcome) string {
	if o.Hint != "" {
		return o.Hint
	}
	if o.StatusCode != nil && *o.StatusCode == cmdutil.StatusMerchantNotFound {
		return ""
	}
	return "Correct what the gateway names, then run the command again."
}

// refusedError is exit 3 for credentials the gateway refused on a
// money-moving call. The gateway processed nothing (HTTP 401 or
// status_code 30 come before any processing), and the call is never
// repeated by itself: the client renewed the token, the user runs the
// command again. The client's *gateway.TokenRefusedError already says so.
func refusedError(err error) error {
	const hint = "If it is refused again, check the profile's app_id and app_secret ('paycli config list')."
	var refused *gateway.TokenRefusedError
	if errors.As(err, &refused) {
		return cmdutil.WithKind(cmdutil.KindAuth, err, hint)
	}
	return cmdutil.WithKind(cmdutil.KindAuth,
		fmt.Errorf("the gateway refused the credentials (%v); nothing was processed: run the command again", err), hint)
}

// unknownWhy says why an outcome is unknown: what was inconsistent in an
// answer that arrived, or that none arrived complete.
func unknownWhy(o Outcome) string {
	var apiErr *gateway.APIError
	switch {
	case o.Why != "":
		return o.Why
	case errors.As(o.Err, &apiErr) && apiErr.HTTPStatus != 0 && !errors.Is(o.Err, gateway.ErrPending):
		return "the gateway answered " + apiErr.Answer()
	case errors.Is(o.Err, gateway.ErrPending):
		return "the gateway has not finished processing it (status_code 69)"
	case errors.Is(o.Err, context.Canceled):
		return "interrupted after the request was sent"
	case errors.Is(o.Err, context.DeadlineExceeded):
		return "the time limit ran out after the request was sent"
	}
	return "the request was sent but no complete answer arrived"
}

// declineText is the gateway's code, text and payment_reason_code.
func declineText(err error) string {
	var apiErr *gateway.APIError
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	s := fmt.Sprintf("status_code %d", apiErr.StatusCode)
	if apiErr.Description != "" {
		s += fmt.Sprintf(" %q", apiErr.Description)
	}
	if apiErr.PaymentReasonCode != "" {
		s += ", payment_reason_code " + apiErr.PaymentReasonCode
		if apiErr.PaymentReasonCodeDetail != "" {
			s += fmt.Sprintf(" (%s)", apiErr.PaymentReasonCodeDetail)
		}
	}
	return s
}

// Success is the outcome of a success answer (status_code 100) with its
// order number and message. The gateway client has already checked the
// answer against itself and the request: one that contradicts itself comes
// as an *gateway.InconsistentError, which ClassifyError reads as unknown.
func Success(orderNo, message string) Outcome {
	code := gateway.StatusSuccess
	return Outcome{Class: journal.Succeeded, StatusCode: &code, OrderNo: orderNo, Message: message}
}

// ClassifyError classifies a failed call the way every operation's
// gateway errors read: the sentinels of internal/gateway decide. endpoint
// is the operation's own endpoint: a 5xx or unreadable answer from
// another one (the token call before it) means nothing was sent.
func ClassifyError(endpoint string, err error) Outcome {
	o := Outcome{Err: err}
	var apiErr *gateway.APIError
	if errors.As(err, &apiErr) && apiErr.Endpoint != endpoint && errors.Is(err, gateway.ErrUnavailable) {
		// The token call before the operation was answered, but with a
		// 5xx page or an unreadable body: the operation was never sent,
		// for want of a gateway (exit 8), as when the token call cannot
		// connect.
		o.Class = journal.NotSent
		return o
	}
	if apiErr != nil {
		if apiErr.HasStatusCode {
			code := apiErr.StatusCode
			o.StatusCode = &code
		}
		o.OrderNo = apiErr.OrderNo
	}
	var inconsistent *gateway.InconsistentError
	if errors.As(err, &inconsistent) {
		// A success whose own fields contradict it: unknown, saying what
		// was inconsistent, with the order number it names.
		code := inconsistent.StatusCode
		o.StatusCode, o.OrderNo, o.Why = &code, inconsistent.OrderNo, inconsistent.Why()
	}
	o.Refused = apiErr != nil && apiErr.Endpoint == endpoint && errors.Is(err, gateway.ErrUnauthorized)
	switch {
	case errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, gateway.ErrPending):
		o.Class = journal.Unknown
	case errors.Is(err, gateway.ErrDuplicateInvoice):
		o.Class = journal.Duplicate
	case errors.Is(err, gateway.ErrDeclined):
		o.Class = journal.Declined
	case apiErr != nil:
		o.Class = journal.Rejected
	default:
		o.Class = journal.NotSent
	}
	return o
}

// CleanupGrace is how long past the command's time limit (--timeout) a
// single command may take to record its outcome, release the invoice's
// lock and close the journal: a journal that hangs (a database stopped
// without refusing) does not hold the command longer. An outcome not
// written by then goes to the shared journal's spool, or is warned about.
const CleanupGrace = 2 * time.Second

// boundedBy is a context for a journal write after ctx: not cancelled
// with it (Ctrl-C, the time limit), but ending grace after ctx's deadline
// (or grace from now, if that is later); without a deadline, unbounded.
func boundedBy(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	write := context.WithoutCancel(ctx)
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(write)
	}
	if grace > 0 {
		soon, cancel := context.WithTimeout(write, grace)
		if at, _ := soon.Deadline(); at.After(deadline.Add(grace)) {
			return soon, cancel
		}
		cancel()
	}
	return context.WithDeadline(write, deadline.Add(grace))
}

// withinGrace runs fn (a lock's release, the journal's close) and waits
// for it until by ends, and at most CleanupGrace: a database that hangs
// must not hold the command's exit. What fn leaves undone the server does
// when the session dies (an advisory lock), or is nothing to lose (a
// connection). A nil by (no attempt made yet) is context.Background().
func withinGrace(by context.Context, fn func()) {
	if by == nil {
		by = context.Background()
	}
	if _, bounded := by.Deadline(); !bounded {
		var cancel context.CancelFunc
		by, cancel = context.WithTimeout(by, CleanupGrace)
		defer cancel()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-by.Done():
	}
}
