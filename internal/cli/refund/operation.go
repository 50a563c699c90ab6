package refund

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/strictjson"
	"github.com/paycli/paycli/internal/wallettoken"
)

// input is one refund as given: flags, or one line of a batch.
type input struct {
	Invoice string `json:"invoice"`
	// Amount is a JSON number or a string holding one ("50.00").
	Amount json.Number `json:"amount,omitempty"`
	Full   bool        `json:"full,omitempty"`
	// ID, in a batch line, is the caller's refund_transaction_id: the
	// line's resume key, and the gateway's guard against making it twice.
	ID string `json:"id,omitempty"`
}

// refund is an input on its way through the pipeline.
type refund struct {
	input
	// retry names the attempt (or refund_transaction_id) --retry re-sends.
	retry string
	// amount is the --amount given, checked; zero for --full.
	amount decimal.Decimal

	// Set by Prepare.
	sale sale
	// value is what is refunded; text its exact text in the request and
	// the hash_key ("50.00").
	value decimal.Decimal
	text  string
	// ref is the refund_transaction_id; key the resume key of the journal.
	ref, key string
	// retried is the journal intent --retry re-sends.
	retried *journal.Entry
}

// operation is a refund: what the money-moving pipeline needs to know of
// it.
type operation struct {
	// webhookKey is sent as refund_web_hook_key when set.
	webhookKey string
	// journalPath names the journal in a --retry's status line, where the
	// refund's invoice is kept whole.
	journalPath func() (string, error)
	// newRef makes a fresh refund_transaction_id.
	newRef func() string
	// flags are the global flags (--profile, --sandbox) a suggested
	// command repeats.
	flags []string
}

// A refund is a money operation whose attempts are known by their
// refund_transaction_id: it has every optional step of the pipeline.
var (
	_ moneyop.Operation[*refund, gateway.RefundRequest, *gateway.RefundResult] = operation{}
	_ moneyop.LineParser[*refund]                                              = operation{}
	_ moneyop.Locator[*refund]                                                 = operation{}
	_ moneyop.Resender[*refund]                                                = operation{}
	_ moneyop.Preparer[*refund]                                                = operation{}
	_ moneyop.Keyed[*refund]                                                   = operation{}
)

// Kind is the journal kind of a refund's attempts.
func (operation) Kind() string { return KindRefund }

// Invoice is the invoice of the sale refunded; a --retry's, once Locate
// has found it in the journal.
func (operation) Invoice(r *refund) string {
	if r == nil {
		return ""
	}
	return r.Invoice
}

// Call sends the refund, once.
func (operation) Call(ctx context.Context, client *gateway.Client, req gateway.RefundRequest) (*gateway.RefundResult, error) {
	return client.Refund(ctx, req)
}

// ParseLine reads one batch line strictly (internal/strictjson): exactly
// the keys invoice, amount, full and id, each once, valid UTF-8.
func (operation) ParseLine(text []byte) (*refund, error) {
	r := &refund{}
	if err := strictjson.Unmarshal(text, &r.input); err != nil {
		return r, fmt.Errorf("%w (a line is {\"invoice\":\"…\",\"amount\":\"50.00\"} or {\"invoice\":\"…\",\"full\":true}, with an optional \"id\")", err)
	}
	return r, nil
}

func fieldErr(field, format string, args ...any) error {
	return &moneyop.FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// maxRefLen bounds a refund_transaction_id given in a batch line.
const maxRefLen = 64

// Check validates an input before anything exists: the invoice id (the
// one rule of internal/invoiceid), one of amount and full, an amount that
// is a positive plain decimal. Its decimals are checked against the
// sale's currency in Prepare, once check status has named it.
func (operation) Check(r *refund) (*refund, error) {
	if r.retry != "" {
		return r, nil
	}
	in := r.input
	if err := invoiceid.Check(in.Invoice); err != nil {
		return nil, &moneyop.FieldError{Field: "invoice", Err: err}
	}
	amount := strings.TrimSpace(string(in.Amount))
	switch {
	case in.Full && amount != "":
		return nil, fieldErr("amount", "give an amount or full, not both")
	case !in.Full && amount == "":
		return nil, fieldErr("amount", "missing: give the amount to refund, or full to refund all that remains")
	}
	out := &refund{input: in}
	if !in.Full {
		d, err := money.ParseAmount(amount)
		if err != nil {
			return nil, &moneyop.FieldError{Field: "amount", Err: err}
		}
		out.amount, out.Amount = d, json.Number(amount)
	}
	if in.ID != "" {
		if err := invoiceid.Check(in.ID); err != nil || len(in.ID) > maxRefLen || strings.ContainsFunc(in.ID, func(c rune) bool { return c > unicode.MaxASCII }) {
			return nil, fieldErr("id", "an id is up to %d ASCII characters, no '|', no control characters", maxRefLen)
		}
	}
	return out, nil
}

// quoted shows a value from outside in an error, escaped and bounded, a
// card number in it masked (typed in the wrong field) before it is cut, so
// that the cut cannot leave part of one unrecognised.
func quoted(s string) string {
	s = redact.Cards(s)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", render.Escape(s))
}

// Key is the resume key of a batch line: its invoice and amount ("full"
// for a full refund), and its id when it has one. A batch run again skips
// the lines whose refund the journal shows as made; to refund the same
// amount of one invoice twice, in two batches, give the lines different
// ids (docs/refund.md, Batches). An id names one refund: CheckKeys refuses
// a batch that gives it to another invoice or amount.
func (operation) Key(r *refund) string {
	if r.key != "" {
		return r.key
	}
	key := r.Invoice + "|" + refundWhat(r.Full, r.amount)
	if r.ID != "" {
		key += "|id:" + r.ID
	}
	return key
}

// Resume decides a batch line whose key the journal knows: a refund made
// (succeeded, or queued) is skipped; one whose outcome is unknown is
// reported with the --retry line that resolves it (a 104 to its re-send
// settles nothing: issue 39); otherwise (rejected, never sent, or 104 to
// a first send: the gateway holds the id from another refund) it is sent
// again.
func (operation) Resume(env *moneyop.Env, attempts []journal.Attempt) (journal.ResumeDecision, string, string) {
	for i, a := range attempts {
		if made(a, attempts[:i]) {
			order := ""
			if a.Outcome != nil {
				order = a.Outcome.OrderNo
			}
			return journal.ResumeSkip, order, ""
		}
	}
	if ref, open := unresolved(attempts); open {
		return journal.ResumeUnknown, "", "run " + cmdutil.RefundRetryCommandLine(ref, env.GatewayFlags)
	}
	return journal.ResumeSend, "", ""
}

// made reports an attempt that shows its refund made: succeeded (100), or
// queued for approval (101: the gateway holds it; a batch never sends it
// again). A 104, to a first send or a re-send, says only that the gateway
// has the id, made or queued: the earlier attempt it re-sent stays
// unknown until check status lists it.
func made(a journal.Attempt, _ []journal.Attempt) bool {
	switch a.Class() {
	case journal.Succeeded, journal.Queued:
		return true
	}
	return false
}

// CheckKeys refuses a batch that gives one id (one refund_transaction_id)
// to two refunds: to lines of different invoices or amounts in the file,
// or to a line whose invoice or amount differs from the refund the
// journal holds under that id. The gateway would answer the second 104,
// and the journal would take it for made.
func (op operation) CheckKeys(env *moneyop.Env, lines []moneyop.BatchInput[*refund], attempts []journal.Attempt) error {
	type use struct {
		line int
		r    *refund
	}
	uses := map[string]use{}
	for _, l := range lines {
		r := l.In
		if r.ID == "" {
			continue
		}
		if first, seen := uses[r.ID]; seen && op.Key(first.r) != op.Key(r) {
			return fmt.Errorf("line %d gives id %s to a refund of %s of invoice %s, line %d to one of %s of invoice %s; an id names one refund: give each its own",
				l.Line, quoted(r.ID), amountWords(r), redact.Invoice(r.Invoice), first.line, amountWords(first.r), redact.Invoice(first.r.Invoice))
		}
		uses[r.ID] = use{line: l.Line, r: r}
	}
	scope := env.Scope()
	for _, a := range attempts {
		u, ok := uses[a.Intent.Ref]
		if !ok || !scope.InScope(a) || sameRefund(a.Intent, op.Key(u.r), u.r) {
			continue
		}
		return fmt.Errorf("line %d gives id %s to a refund of %s of invoice %s, but the journal holds it for a refund of %s of invoice %s (attempt %s); an id names one refund: give the line another",
			u.line, quoted(u.r.ID), amountWords(u.r), redact.Invoice(u.r.Invoice), a.Intent.Amount, redact.Invoice(a.Intent.Invoice), a.Intent.Attempt)
	}
	return nil
}

// sameRefund reports whether the intent e, whose ref is r's id, is r's
// refund: its key is r's (key), or, for an intent written before keys held
// the invoice and amount ("id:X"), its invoice and amount are r's.
func sameRefund(e journal.Entry, key string, r *refund) bool {
	if e.Key != "id:"+r.ID {
		return e.Key == key
	}
	sent, err := decimal.NewFromString(e.Amount)
	return e.Invoice == r.Invoice && (r.Full || (err == nil && sent.Equal(r.amount)))
}

// amountWords names a refund's amount in a message: "20", or "all that
// remains".
func amountWords(r *refund) string {
	if r.Full {
		return "all that remains"
	}
	return r.amount.String()
}

// refundWhat names a refund's amount in a key and a message: "20", or
// "full" (all that remains).
func refundWhat(full bool, amount decimal.Decimal) string {
	if full {
		return "full"
	}
	return amount.String()
}

// unresolved returns the refund_transaction_id of the first refund among
// attempts whose outcome is unknown and unresolved (journal.UnresolvedAll).
func unresolved(attempts []journal.Attempt) (string, bool) {
	for _, a := range journal.UnresolvedAll(attempts) {
		if a.Intent.Ref != "" {
			return a.Intent.Ref, true
		}
	}
	return "", false
}

// statusCommand is the `paycli status` line for the refund's invoice, with
// flags after it. An invoice id that reads as a card number is written ID
// (cmdutil.InvoiceCommandLine), and the line says which one it is: the one
// given, or, for --retry, where the user gave a REF and the invoice came
// from the journal, the invoice of that refund. That one the user cannot
// read anywhere else, as every command shows it masked: the line then
// ends with the command that finds it, whole, in the journal.
func (op operation) statusCommand(r *refund, flags []string) string {
	whose, ref := cmdutil.InvoiceAsGiven, ""
	if r.retry != "" {
		ref = r.ref
		if ref == "" {
			ref = r.retry
		}
		whose = "the invoice id of refund " + ref
	}
	line, note := cmdutil.InvoiceCommandLine([]string{"status"}, r.Invoice, whose, flags)
	if note != "" && ref != "" && op.journalPath != nil {
		if path, err := op.journalPath(); err == nil {
			note += "; the journal holds it whole: " + cmdutil.CommandLine("grep", "-F", ref, path)
		}
	}
	return line + note
}

// fullRefundCommand is the refund of all that remains of r's sale, for a
// merchant the gateway lets refund only whole sales (status_code 110).
func (op operation) fullRefundCommand(r *refund) string {
	line, note := cmdutil.InvoiceCommandLine([]string{"refund"}, r.Invoice, cmdutil.InvoiceAsGiven, append(slices.Clone(op.flags), "--full"))
	return line + note
}

// Locate finds the refund --retry names (an attempt id, or a
// refund_transaction_id) in the journal, for its invoice: the pipeline
// then locks that invoice, and Resend checks the refund may be re-sent.
func (operation) Locate(ctx context.Context, env *moneyop.Env, r *refund) (*refund, error) {
	if r.retry == "" {
		return r, nil
	}
	found, err := env.Journal.Find(ctx, r.retry)
	if err != nil {
		return nil, cmdutil.WithKind(cmdutil.KindUnexpected, fmt.Errorf("cannot read the payment journal: %w; nothing was sent", err), "")
	}
	a, err := retryIntent(found, env.Scope(), r.retry)
	if err != nil {
		return nil, err
	}
	out := *r
	out.Invoice = a.Intent.Invoice
	return &out, nil
}

// Resend names, for a --retry, the refund it re-sends: its intent, with
// its refund_transaction_id, if its outcome is still unknown (the gateway
// then makes it once, or answers 104 if it was made). A new refund names
// none. The pipeline's rule decides the rest: nothing goes out while the
// invoice holds an attempt of any kind whose outcome is not settled
// (exit 2, with the command that settles it), but this very refund's
// re-send.
func (operation) Resend(env *moneyop.Env, r *refund, attempts []journal.Attempt) (*refund, *journal.Attempt, error) {
	out := *r
	if r.retry == "" {
		return &out, nil, nil
	}
	a, err := retryIntent(attempts, env.Scope(), r.retry)
	if err != nil {
		return nil, nil, err
	}
	intent := a.Intent
	out.retried, out.Invoice, out.ref, out.key, out.text = &intent, intent.Invoice, intent.Ref, intent.Key, intent.Amount
	out.value, _ = decimal.NewFromString(intent.Amount)
	return &out, a, nil
}

// Prepare asks check status, with refund info, what the sale is, and
// decides whether this refund may be sent: the sale must be refundable
// (exit 4 otherwise), and the amount must have no more decimals than the
// currency and be at most what remains (exit 2 otherwise). A --retry
// leaves the amount to the gateway: it performs the refund once, or
// answers 104 if it was already made.
func (op operation) Prepare(ctx context.Context, env *moneyop.Env, r *refund) (*refund, error) {
	out := *r
	res, err := op.checkStatus(ctx, env, &out)
	if err != nil {
		return nil, err
	}
	// Check status may name no currency (the gateway's documented answer
	// has none): the journal's record of the invoice names it then.
	attempts, err := env.Journal.Attempts(ctx, out.Invoice)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", moneyop.ErrJournal, err)
	}
	currency := journalCurrency(attempts, env.Scope(), out.Invoice)
	if out.retried != nil && out.retried.Currency != "" {
		currency = out.retried.Currency
	}
	made := madeRefunds(attempts, env.Scope(), out.Invoice)
	s, err := saleOf(out.Invoice, op.statusCommand(&out, env.GatewayFlags), res, currency, made)
	out.sale = s
	if out.retried != nil {
		// The gateway judges a re-sent refund: a refund made before makes
		// the sale look done, which must not stop its re-send (104).
		return &out, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Full {
		// All that remains, cut to the currency's decimals: a refund is
		// never rounded up past what was sold.
		out.value = money.Down(s.Remaining(), s.Minor)
	} else {
		// Without a currency, its decimals cannot be checked: the amount
		// goes as given, and the gateway judges it.
		if s.MinorFromISO {
			if err := money.CheckDecimals(r.amount, money.Currency{Code: s.Currency, MinorUnit: s.Minor}); err != nil {
				return nil, cmdutil.UsageHint(fmt.Errorf("invalid --amount: %v; nothing was sent", err), "")
			}
		}
		if r.amount.GreaterThan(s.Remaining()) {
			return nil, cmdutil.UsageHint(fmt.Errorf("invalid --amount: %s is more than what remains refundable, %s of the %s sale (%s refunded); nothing was sent",
				render.Amount(s.money(r.amount), s.Currency), render.Amount(s.money(s.Remaining()), s.Currency), render.Amount(s.money(s.Amount), s.Currency), render.Amount(s.money(s.Refunded), "")),
				refundAtMost(s.money(s.Remaining()), s.Currency))
		}
		out.value = r.amount
	}
	out.text = s.money(out.value)
	out.ref = r.ID
	if out.ref == "" {
		out.ref = op.newRef()
	}
	out.key = op.Key(r)
	return &out, nil
}

// journalCurrency is the currency the journal recorded for invoice on
// this gateway account (the sale's intent, or an earlier refund's), the
// latest first; "" when it recorded none.
func journalCurrency(attempts []journal.Attempt, scope journal.Scope, invoice string) string {
	for i := len(attempts) - 1; i >= 0; i-- {
		if in := attempts[i].Intent; in.Invoice == invoice && in.Gateway != "" && scope.SameAccount(in) && in.Currency != "" {
			return in.Currency
		}
	}
	return ""
}

// retryIntent finds the refund --retry names (an attempt id, or a
// refund_transaction_id) among attempts and checks that it may be
// re-sent: a refund of this gateway account whose outcome is unknown and
// unresolved (journal.Unresolved).
func retryIntent(attempts []journal.Attempt, scope journal.Scope, name string) (*journal.Attempt, error) {
	var ref string
	var found *journal.Attempt
	for i, a := range attempts {
		if a.Intent.Attempt == name {
			found, ref = &attempts[i], a.Intent.Ref
			break
		}
	}
	if found == nil {
		for i, a := range attempts {
			if a.Intent.Ref == name && a.Intent.OpKind() == KindRefund {
				found, ref = &attempts[i], name
			}
		}
	}
	switch {
	case found == nil:
		return nil, cmdutil.UsageErrorf("invalid --retry: the journal has no attempt or refund %s", quoted(name))
	case found.Intent.OpKind() != KindRefund || ref == "":
		return nil, cmdutil.UsageErrorf("invalid --retry: attempt %s is a %s, not a refund", quoted(name), found.Intent.OpKind())
	case !scope.InScope(*found):
		return nil, cmdutil.UsageErrorf("invalid --retry: refund %s was made with profile %q on another gateway; run it with that one", quoted(name), found.Intent.Profile)
	}
	var same []journal.Attempt
	for _, a := range attempts {
		if scope.InScope(a) && a.Intent.Ref == ref && a.Intent.Invoice == found.Intent.Invoice {
			same = append(same, a)
		}
	}
	open := journal.Unresolved(same, scope, found.Intent.Invoice)
	if len(open) == 0 {
		return nil, cmdutil.UsageErrorf("invalid --retry: the outcome of refund %s is known (%s); only a refund whose outcome is unknown is re-sent", ref, same[len(same)-1].Class())
	}
	if slices.ContainsFunc(open, func(a journal.Attempt) bool { return a.Class() == journal.Queued }) {
		// Its re-send's 104 would not say whether it was made or refused:
		// check status does (issue 39, defect 2).
		line, note := cmdutil.InvoiceCommandLine([]string{"status"}, found.Intent.Invoice, "the invoice id of refund "+ref, nil)
		return nil, cmdutil.UsageHint(fmt.Errorf("invalid --retry: refund %s is queued for the gateway team's approval; it is not re-sent, check status says when it is made or refused", ref),
			"Run: "+line+note)
	}
	return &same[len(same)-1], nil
}

// checkStatus asks check status, with refund info, about r's invoice. Its
// errors keep the exit code of what happened: nothing was sent either way.
func (op operation) checkStatus(ctx context.Context, env *moneyop.Env, r *refund) (*gateway.CheckStatusResult, error) {
	invoice := r.Invoice
	res, err := env.LookUp(ctx, invoice)
	if err == nil {
		return res, nil
	}
	what := fmt.Errorf("checking invoice %s before the refund: %w; nothing was sent", redact.Invoice(invoice), err)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		return nil, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("no sale with invoice %s; nothing was sent", redact.Invoice(invoice)), "")
	case errors.Is(err, gateway.ErrPending):
		return nil, notRefundable(invoice, "the sale is still pending", "Wait until it completes: "+op.statusCommand(r, slices.Concat(env.GatewayFlags, []string{"--watch"})))
	case errors.Is(err, gateway.ErrUnauthorized):
		return nil, cmdutil.WithKind(cmdutil.KindAuth, what, "Check the profile's app_id and app_secret ('paycli config list').")
	case errors.Is(err, context.Canceled):
		return nil, cmdutil.WithKind(cmdutil.KindInterrupted, what, "")
	case errors.Is(err, gateway.ErrUnavailable), errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, context.DeadlineExceeded):
		return nil, cmdutil.WithKind(cmdutil.KindUnavailable, what, cmdutil.UnavailableHint(err, env.Config))
	}
	var apiErr *gateway.APIError
	if errors.As(err, &apiErr) {
		return nil, cmdutil.WithKind(cmdutil.KindRejected, what, "")
	}
	return nil, cmdutil.WithKind(cmdutil.KindUnexpected, what, "")
}

// refundAtMost is the hint of an amount above what remains: the remainder
// as every amount is shown, and as --amount takes it when that differs
// ("1,000.00 TRY" is --amount 1000.00).
func refundAtMost(remains, currency string) string {
	shown := render.Amount(remains, currency)
	if shown != remains+" "+currency {
		shown += " (--amount " + remains + ")"
	}
	return "Refund at most " + shown + ", or all that remains with --full."
}

// card returns the sale's card for a person and for the journal.
func (s sale) cards() (display, masked string) {
	display = cardDisplay(s.Card)
	c := strings.TrimSpace(s.Card)
	if len(c) >= 10 && strings.Trim(c[:6], "0123456789") == "" && strings.Trim(c[len(c)-4:], "0123456789") == "" {
		masked = wallettoken.Card{BIN: c[:6], Last4: c[len(c)-4:]}.Masked()
	}
	return display, masked
}

// Describe says what the refund does, and builds its request; the gateway
// client signs it (layout amount|invoice_id|merchant_key, with the
// amount's exact text).
func (op operation) Describe(r *refund) (moneyop.Description, gateway.RefundRequest) {
	s := r.sale
	display, masked := s.cards()
	saleRow := render.Amount(s.money(s.Amount), s.Currency)
	if s.Date != "" {
		saleRow += ", " + s.Date
	}
	refunded := render.Amount(s.money(s.Refunded), s.Currency)
	switch n := len(s.Refunds) + len(s.Unlisted); n {
	case 0:
	case 1:
		refunded += " in 1 refund"
	default:
		refunded += fmt.Sprintf(" in %d refunds", n)
	}
	what := render.Amount(r.text, s.Currency)
	if r.Full {
		what += " (all that remains)"
	}
	if r.retried != nil {
		what += " (re-sent: " + r.retried.Attempt + ")"
	}
	rows := [][2]string{
		{"Invoice", r.Invoice},
		{"Sale", saleRow},
		{"Card", display},
		{"Refunded", refunded},
		{"Remains", render.Amount(s.money(s.Remaining()), s.Currency)},
		{"Refund", what},
		{"Ref", r.ref},
	}
	d := moneyop.Description{
		Title:   "Refund",
		Noun:    "refund",
		NotDone: "nothing was refunded",
		Rows:    rows,
		Prompt: fmt.Sprintf("Refund %s of %s (sale %s, %s refunded) to %s?",
			render.Amount(r.text, s.Currency), redact.Invoice(r.Invoice), render.Amount(s.money(s.Amount), s.Currency), render.Amount(s.money(s.Refunded), ""), display),
		Amount:   r.text,
		Currency: s.Currency,
		Card:     masked,
		Ref:      r.ref,
	}
	return d, gateway.RefundRequest{InvoiceID: r.Invoice, Amount: r.text, RefundTransactionID: r.ref, RefundWebHookKey: op.webhookKey}
}

// Classify turns the gateway's answer into an outcome, in words a support
// desk reads: 100 refunded and 101 queued are successes; 104 to a --retry
// means the gateway has its refund_transaction_id, made or queued (which
// settles nothing: check status does), and to a first send that the id is
// another refund's; 110, 49 and 31 are
// refusals with their reason; an answer cut off after sending is unknown,
// resolved by re-sending the same refund_transaction_id (--retry).
func (op operation) Classify(r *refund, ans *gateway.RefundResult, err error) moneyop.Outcome {
	invoice, ref := "", ""
	if r != nil {
		invoice, ref = r.Invoice, r.ref
	}
	if err == nil && ans != nil {
		code := ans.StatusCode
		o := moneyop.Outcome{Class: journal.Succeeded, StatusCode: &code, OrderNo: ans.OrderNo, Message: ans.StatusDescription}
		if ans.Queued {
			// Neither made nor refused yet: not settled, like an unknown
			// outcome, until check status finds it made or refused.
			o.Class = journal.Queued
			o.Message = "queued for the gateway team's approval"
		}
		return o
	}
	if err == nil {
		err = fmt.Errorf("%w: the gateway's answer is empty", gateway.ErrOutcomeUnknown)
	}
	o := moneyop.ClassifyError(gateway.EndpointRefund, err)
	var apiErr *gateway.APIError
	code := 0
	if errors.As(err, &apiErr) && apiErr.HasStatusCode {
		code = apiErr.StatusCode
	}
	switch {
	case o.Class == journal.Unknown:
		o.Hint = "Re-send the same refund (the gateway makes it at most once): " + cmdutil.RefundRetryCommandLine(ref, op.flags)
	case errors.Is(err, gateway.ErrRefundIDUsed) && r != nil && r.retry == "":
		// A first send: no attempt of this journal sent the id before, so
		// the gateway has it from another refund, not this one.
		o.Class = journal.Duplicate
		o.Say = fmt.Sprintf("the gateway already has refund_transaction_id %s from a refund this journal does not record (status_code 104): this call refunded nothing; give the refund an id of its own", ref)
		o.Hint = "See the sale's refunds with: " + op.statusCommand(r, op.flags)
	case errors.Is(err, gateway.ErrRefundIDUsed):
		// The retry's own outcome: the id is the gateway's, made or queued
		// for approval; that settles nothing of the refund it re-sent
		// (issue 39, defect 2), which check status does.
		o.Class = journal.Duplicate
		o.Say = fmt.Sprintf("the gateway already has refund_transaction_id %s (status_code 104): a refund with it was made or is queued for approval; this call refunded nothing, and the refund it re-sent stays unsettled until check status lists it", ref)
		if r != nil {
			o.Hint = "See what became of it, and record it: " + op.statusCommand(r, op.flags)
		}
	case code == gateway.StatusPartialRefundNotAllowed:
		o.Say = "the gateway refused the refund: this merchant may not refund part of a sale"
		if r != nil {
			o.Hint = "Refund all that remains instead: " + op.fullRefundCommand(r)
		}
	case code == gateway.StatusRefundFailed:
		o.Say = "the gateway refused the refund: more than the refundable amount, a sale not refundable in its state, or too soon after the previous refund"
		if r != nil {
			o.Hint = "See what remains refundable with: " + op.statusCommand(r, op.flags)
		}
	case errors.Is(err, gateway.ErrNotFound):
		o.Say = fmt.Sprintf("the gateway has no sale with invoice %s", redact.Invoice(invoice))
		o.Hint = "Check the invoice id: it is the one the sale was made with."
	case o.Class == journal.Declined, o.Class == journal.Duplicate:
		// A payment's words (declined, invoice already paid) do not fit a
		// refund: whatever the code, nothing was refunded.
		o.Class = journal.Rejected
	}
	if r != nil && r.retry != "" && (o.Class == journal.Rejected || o.Class == journal.Declined) {
		// A refused re-send tells nothing of the refund it re-sent (49 is
		// what that refund being made causes): issue 39, defect 1.
		o.Hint = "The refund it re-sent stays unsettled (a refusal of its re-send does not say it was not made); see what became of it, and record it: " + op.statusCommand(r, op.flags)
	}
	return o
}

// Result is the refund's fields, and the verdict a person reads on a
// terminal: "Refunded 50.00 TRY of INV-1001 to 435508******4358; 100.00
// TRY remains refundable".
func (op operation) Result(r *refund, ans *gateway.RefundResult) ([]render.Field, string) {
	if ans == nil {
		ans = &gateway.RefundResult{}
	}
	s := r.sale
	display, _ := s.cards()
	remains := s.Remaining().Sub(r.value)
	if r.retried != nil {
		remains = s.Remaining()
	}
	result, verdict := "refunded", fmt.Sprintf("Refunded %s of %s to %s; %s remains refundable", render.Amount(r.text, s.Currency), redact.Invoice(r.Invoice), display, render.Amount(s.money(remains), s.Currency))
	if ans.Queued {
		result = "queued_for_approval"
		// The status line names an invoice id that is a card number ID and
		// says which one it is (operation.statusCommand).
		verdict = fmt.Sprintf("Refund of %s of %s queued for the gateway team's approval; see when it is made with: %s", render.Amount(r.text, s.Currency), redact.Invoice(r.Invoice), op.statusCommand(r, op.flags))
	}
	fs := []render.Field{
		render.StringField("result", result),
		render.IntField("status_code", ans.StatusCode),
		render.StringField("status_description", ans.StatusDescription),
		render.StringField("invoice_id", r.Invoice),
		amountField("amount", r.text),
		render.StringField("currency_code", s.Currency),
		render.StringField("refund_transaction_id", r.ref),
		render.StringField("order_no", ans.OrderNo),
		render.StringField("ref_no", ans.RefNo),
		amountField("sale_amount", s.money(s.Amount)),
		amountField("remaining_amount", s.money(remains)),
	}
	return append(fs, render.ExtraFields(ans.Extra)...), verdict
}

// amountField is an amount as a JSON number with the currency's decimals.
func amountField(name, text string) render.Field {
	return render.Field{Name: name, JSON: json.RawMessage(text), Text: text}
}
