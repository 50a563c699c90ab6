// Package status implements `paycli status`: what happened to an invoice,
// asked of the gateway's check-status call (docs/protocol.md, Check
// status). It is how an
// unknown walletPay outcome is reconciled.
package status

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Options are the inputs of `paycli status`.
type Options struct {
	cmdutil.Deps
	// Sleep waits between checks of --watch; it returns early with ctx's
	// error when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// Journal opens the journal that learned outcomes are recorded in
	// (see recordInJournal), to hold the invoice and record; nil records
	// nothing. GatewayIdentity
	// names the gateway account as the journal's lines do (nil:
	// journal.AccountOf the base URL, app_id and merchant_key).
	Journal         func() (journal.Store, error)
	GatewayIdentity func() (string, error)
	// Kinds are the money operations' kinds (cmdutil.Factory.Kinds): the
	// attempts of those check status settles are recorded.
	Kinds journal.Kinds

	Invoice string
	Watch   bool
	// Flags are the global flags that selected the gateway (--profile,
	// --sandbox), repeated in the command lines paycli suggests.
	Flags []string
}

// NewCmdStatus builds `paycli status`.
func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		Deps:            cmdutil.DepsOf(f),
		Sleep:           pause.For,
		Journal:         f.Journal,
		GatewayIdentity: f.GatewayIdentity,
		Kinds:           f.Kinds(),
	}
	cmd := &cobra.Command{
		Use:   "status {INVOICE | --invoice ID}",
		Short: "Show what happened to an invoice",
		Long: `Ask the gateway what happened to an invoice (the check-status call) and show
the transaction's fields as a table, or with -o json as one object with the
gateway's field names and values as it wrote them. Above a table, stderr
names the gateway of the ccpayment family the profile points at (the
gateway key, or its base URL), e.g. "Gateway: QNBpay (test), URL", and one
line says where the sale stands and its amounts, e.g.
"INV-1: completed, 100.00 TRY, refunded 10.00 TRY".

The invoice may be given as the argument instead of --invoice.

Run it when a walletpay's outcome is unknown (exit 7): it is the one way to
know whether the buyer was charged. --watch checks again, waiting a little
longer each time (1s, 2s, 4s, up to 10s), until the transaction is no longer
pending or the time limit (--timeout) ends.`,
		Example: `  paycli status INV-1001
  paycli status --invoice INV-1001 --watch --timeout 2m -o json
  paycli status --invoice INV-1001 --jq .transaction_status`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := invoiceid.Check(opts.Invoice); err != nil {
				return cmdutil.UsageErrorf("invalid --invoice: %w", err)
			}
			flags, err := f.GatewayFlags(cmd)
			if err != nil {
				return err
			}
			opts.Flags = flags
			return cmdutil.Run(cmd, opts, runF, statusRun)
		},
	}
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "invoice id to look up (required; or the argument)")
	cmd.Flags().BoolVarP(&opts.Watch, "watch", "w", false, "check again until the transaction is no longer pending, or --timeout ends")
	_ = cmd.MarkFlagRequired("invoice")
	opts.AddJSONFlags(cmd)
	// The gateway answers check status of a failed sale with status_code
	// 41 (QNBpay's documented answer), which exits 5.
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsGateway, cmdutil.KindDeclined, cmdutil.KindOutcomeUnknown), Notes: map[cmdutil.Kind]string{
		cmdutil.KindRejected:       "no transaction with that invoice id, or refused by the gateway",
		cmdutil.KindDeclined:       "the sale failed: the gateway answered status_code 41",
		cmdutil.KindOutcomeUnknown: "still pending",
	}})
	return cmd
}

// watchBackoff is the wait before check number n+1 of --watch.
func watchBackoff(n int) time.Duration {
	d := time.Second << min(n-1, 4)
	return min(d, 10*time.Second)
}

// statusRun checks the invoice, and with Watch keeps checking while it is pending.
func statusRun(ctx context.Context, opts *Options) error {
	ctx, call, cfg, err := statusDeps(ctx, opts)
	if err != nil {
		return err
	}
	defer call.Close()
	format, client := call.Format, call.Client

	var pending *gateway.APIError
	for n := 1; ; n++ {
		var asked time.Time
		if opts.Now != nil {
			asked = opts.Now()
		}
		res, err := client.CheckStatus(ctx, opts.Invoice)
		recordInJournal(context.WithoutCancel(ctx), opts, cfg, res, err, asked)
		if done, err := readAnswer(ctx, opts, format, res, err, &pending); done {
			return err
		}
		wait := watchBackoff(n)
		if pending != nil {
			opts.IO.Notef("Invoice %s is pending; checking again in %s…", redact.Invoice(opts.Invoice), wait)
		}
		if err := opts.Sleep(ctx, wait); err != nil {
			if pending != nil && errors.Is(err, context.DeadlineExceeded) {
				return reportPending(ctx, opts, format, pending, " when the time limit ran out")
			}
			return err
		}
	}
}

// statusDeps opens what statusRun needs before its first check: the output
// format, a client that can sign check status (with merchant_key), the
// context limited by the timeout, and the configuration; on a terminal it
// says which of the family's gateways answers. The caller closes call.
func statusDeps(ctx context.Context, opts *Options) (context.Context, cmdutil.Call, *config.Config, error) {
	ctx, call, err := opts.Open(ctx, cmdutil.MerchantKey)
	if err != nil {
		return ctx, call, nil, err
	}
	cfg, err := opts.Config()
	if err != nil {
		call.Close()
		return ctx, call, nil, err
	}
	if title := cfg.GatewayTitle(); title != "" && call.Format == render.Table {
		// Which of the family's gateways answered: a desk may hold several.
		fmt.Fprintf(opts.IO.ErrOut, "Gateway: %s, %s\n", title, redact.URL(cfg.BaseURL))
	}
	return ctx, call, cfg, nil
}

// readAnswer acts on one check-status answer (res, or the call's error
// err): done when statusRun ends with the error returned (nil: printed);
// otherwise --watch checks again, *pending holding a pending answer.
func readAnswer(ctx context.Context, opts *Options, format render.Format, res *gateway.CheckStatusResult, err error, pending **gateway.APIError) (bool, error) {
	var apiErr *gateway.APIError
	switch {
	case err == nil:
		return readFound(ctx, opts, format, res, pending)
	case errors.Is(err, gateway.ErrNotFound):
		return true, cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("no transaction with invoice %s", redact.Invoice(opts.Invoice)),
			"The gateway has no record of it: no payment was taken for this invoice.")
	case errors.Is(err, gateway.ErrPending) && errors.As(err, &apiErr):
		*pending = apiErr
		if !opts.Watch {
			return true, reportPending(ctx, opts, format, *pending, "")
		}
	case opts.Watch && *pending != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled):
		return true, reportPending(ctx, opts, format, *pending, " when the time limit ran out")
	case opts.Watch && errors.Is(err, gateway.ErrUnavailable) && ctx.Err() == nil:
		opts.IO.Warnf("%v", err)
	default:
		return true, err
	}
	return false, nil
}

// readFound is readAnswer for an answer that found the sale: printed,
// or, when its transaction_status says it is pending, the exit-7 error
// (with --watch, *pending is set and it checks again).
func readFound(ctx context.Context, opts *Options, format render.Format, res *gateway.CheckStatusResult, pending **gateway.APIError) (bool, error) {
	fields := render.OmitEmpty(formatFields(res, format), format)
	switch {
	case !isPendingStatus(res):
		if format == render.Table {
			opts.IO.Notef("%s", Summary(res, opts.Invoice))
		}
		return true, opts.JSON.WriteFields(ctx, opts.IO.Out, format, cmdutil.TableOptions(opts.IO), fields)
	case !opts.Watch:
		// Found, but its transaction_status says it is still pending.
		if format == render.Table {
			opts.IO.Notef("%s", Summary(res, opts.Invoice))
		}
		if err := opts.JSON.WriteFields(ctx, opts.IO.Out, format, cmdutil.TableOptions(opts.IO), fields); err != nil {
			return true, err
		}
		return true, pendingError(opts, res.StatusCode, "")
	}
	*pending = &gateway.APIError{Endpoint: "checkstatus", StatusCode: res.StatusCode, HasStatusCode: true, Description: res.StatusDescription}
	return false, nil
}

// Summary is the one line a person reads first: the invoice, where the
// sale stands and its amounts in the currency's minor unit — "INV-1:
// completed, 100.00 TRY, refunded 10.00 TRY". The table below it holds
// the gateway's words.
func Summary(r *gateway.CheckStatusResult, invoice string) string {
	sale := r.Sale()
	cur := r.CurrencyCode()
	amount := func(v commission.Value) (string, bool) {
		d, ok := v.Decimal()
		if !ok {
			return "", false
		}
		minor, known := money.MinorUnit(cur)
		if !known {
			minor = max(-d.Exponent(), 0)
		}
		return render.Amount(money.Shown(d, minor), render.Escape(cur)), !d.IsZero()
	}
	total, _ := amount(sale.Amount)
	refunded, hasRefund := amount(sale.Refunded)
	var state, after string
	switch {
	case sale.RefundedWhole():
		state = "refunded in full"
		hasRefund = false
	case sale.Taken():
		state = "completed"
	case sale.Failed():
		state, after = "failed", "; nothing was taken"
	case sale.Pending():
		state, after = "pending", "; the outcome is not known yet"
	case sale.PreAuthorized():
		state, after = "pre-authorized", " held"
	case sale.Voided():
		state, after = "cancelled", "; nothing was taken"
	default:
		state = fmt.Sprintf("transaction_status %q", render.Escape(sale.Status))
	}
	if sale.AwaitsMerchant() {
		state += ", awaiting the merchant's completion"
	}
	line := redact.Invoice(invoice) + ": " + state
	if total != "" {
		line += ", " + total
	}
	if hasRefund {
		line += ", refunded " + refunded
	}
	return line + after
}

// isPendingStatus reports a success answer whose transaction is pending.
func isPendingStatus(r *gateway.CheckStatusResult) bool {
	return r.Sale().Pending()
}

// reportPending prints what is known of a pending transaction and returns
// the exit-7 error.
func reportPending(ctx context.Context, opts *Options, format render.Format, e *gateway.APIError, when string) error {
	fs := []render.Field{render.StringField("invoice_id", opts.Invoice), render.IntField("status_code", e.StatusCode)}
	if e.Description != "" {
		// Only what the gateway said: an answer without a description has none.
		fs = append(fs, render.StringField("status_description", e.Description))
	}
	fs = append(fs, render.StringField("transaction_status", "Pending"))
	if err := opts.JSON.WriteFields(ctx, opts.IO.Out, format, cmdutil.TableOptions(opts.IO), render.OmitEmpty(fs, format)); err != nil {
		return err
	}
	return pendingError(opts, e.StatusCode, when)
}

// pendingError is exit 7 for a transaction that is still pending.
func pendingError(opts *Options, code int, when string) error {
	invoice := opts.Invoice
	hint := "Check again later, or watch it with: " + cmdutil.StatusCommandLine(invoice, append(slices.Clone(opts.Flags), "--watch"))
	return cmdutil.WithKind(cmdutil.KindOutcomeUnknown,
		fmt.Errorf("invoice %s is still pending (status_code %d)%s; the outcome is not known yet", redact.Invoice(opts.Invoice), code, when), hint)
}

// formatFields is Fields, and in a table or CSV one row per refund after
// them ("refund 1": amount, status, refund_transaction_id, ref_no, date),
// since refund_info is a list a cell cannot show. JSON keeps refund_info
// as the gateway wrote it.
func formatFields(r *gateway.CheckStatusResult, format render.Format) []render.Field {
	fs := Fields(r)
	if format == render.JSON {
		return fs
	}
	if format == render.Table {
		// An object (pre_auth) reads as its fields, not as JSON.
		for i, f := range fs {
			if text, ok := objectText(f.JSON); ok {
				fs[i].Text = text
			}
		}
	}
	refunds, _ := r.Refunds()
	for i, ri := range refunds {
		parts := []string{render.Amount(ri.Amount.String(), r.CurrencyCode()), ri.Status, ri.RefundTransactionID}
		if ri.RefNo != "" {
			parts = append(parts, "ref "+ri.RefNo)
		}
		date := ri.CreatedAt
		if date == "" {
			var s string
			if raw, ok := ri.Extra["date"]; ok && json.Unmarshal(raw, &s) == nil {
				date = s
			}
		}
		if t, ok := gateway.ParseTime(date); ok {
			date = render.FormatTimeIn(t, render.Table, time.Local)
		}
		if date != "" {
			parts = append(parts, date)
		}
		fs = append(fs, render.StringField(fmt.Sprintf("refund %d", i+1), strings.Join(parts, "  ")))
	}
	return fs
}

// objectText shows a JSON object field by field, in its order, for a
// table: {"status":"cancelled","held_amount":200.00} reads
// "status cancelled, held_amount 200.00". false for anything but an object
// of plain values.
func objectText(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	var parts []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		val, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch v := val.(type) {
		case json.Delim:
			return "", false
		case nil:
			parts = append(parts, fmt.Sprintf("%v -", key))
		default:
			parts = append(parts, fmt.Sprintf("%v %v", key, v))
		}
	}
	return strings.Join(parts, ", "), true
}

// Fields lists a check-status answer as the gateway wrote it: the fields
// docs/protocol.md (Check status) names, in that order, then the others
// sorted by name. A field the answer does not have is left out rather
// than shown empty. refund_info is left out when it lists no refund, so
// that a sale without refunds shows as it did before paycli asked for
// them; in a table it shows as the number of refunds.
func Fields(r *gateway.CheckStatusResult) []render.Field {
	typed := []render.Field{
		render.IntField("status_code", r.StatusCode),
		render.StringField("status_description", r.StatusDescription),
		render.StringField("transaction_status", r.TransactionStatus),
		render.StringField("order_id", r.OrderID),
		render.StringField("invoice_id", r.InvoiceID),
		render.ValueField("transaction_amount", r.TransactionAmount),
		render.ValueField("total_refunded_amount", r.TotalRefundedAmount),
		render.StringField("transaction_type", r.TransactionType),
		render.StringField("payment_reason_code", r.PaymentReasonCode),
	}
	fs := make([]render.Field, 0, len(typed)+len(r.Extra))
	for _, f := range typed {
		if r.Has(f.Name) {
			fs = append(fs, f)
		}
	}
	extra := maps.Clone(r.Extra)
	raw, hasInfo := extra["refund_info"]
	delete(extra, "refund_info")
	// The other fields the gateway documents for check status come next,
	// in its order, then whatever else the answer has.
	for _, name := range documentedFields {
		if v, ok := extra[name]; ok {
			fs = append(fs, extraField(name, v))
			delete(extra, name)
		}
	}
	for _, f := range render.ExtraFields(extra) {
		if tf, ok := timeField(f.Name, f.Text, time.Local); ok {
			f = tf
		}
		fs = append(fs, f)
	}
	if refunds, err := r.Refunds(); hasInfo && err == nil && len(refunds) > 0 {
		fs = append(fs, render.Field{Name: "refund_info", JSON: raw, Text: plural(len(refunds), "refund")})
	}
	return fs
}

// documentedFields are the check-status fields the gateway documents
// beyond those CheckStatusResult reads, in the order status shows them
// (docs/protocol.md, Check status).
var documentedFields = []string{"transaction_id", "product_price", "message", "reason",
	"bank_status_code", "bank_status_description", "ref_number", "original_bank_error_code",
	"original_bank_error_description", "cc_no", "payment_reason_code_detail", "merchant_commission",
	"user_commission", "settlement_date", "installment", "card_type", "md_status"}

// extraField is one field the gateway wrote, as render.ExtraFields shows it.
func extraField(name string, raw json.RawMessage) render.Field {
	return render.ExtraFields(map[string]json.RawMessage{name: raw})[0]
}

// plural is "1 refund", "2 refunds".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// timeField shows a moment the gateway wrote (created_at, a transaction
// date) as every paycli time is shown: tables in the zone loc with its
// offset, JSON in RFC 3339 with the offset. The gateway's zone-less times
// are its local time (gateway.ParseTime). ok is false for fields that are
// not named like times or do not hold one; those stay as written.
func timeField(name, text string, loc *time.Location) (render.Field, bool) {
	if !strings.HasSuffix(name, "_at") && !strings.Contains(name, "date") && !strings.Contains(name, "time") {
		return render.Field{}, false
	}
	t, ok := gateway.ParseTime(text)
	if !ok {
		return render.Field{}, false
	}
	b, _ := json.Marshal(render.FormatTimeIn(t, render.JSON, loc))
	return render.Field{Name: name, JSON: b, Text: render.FormatTimeIn(t, render.Table, loc)}, true
}
