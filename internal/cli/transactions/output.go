package transactions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

func run(ctx context.Context, opts *Options) error {
	q := opts.Query
	ctx, call, err := opts.Open(ctx, cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	defer call.Close()
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	q.Waited = func(d time.Duration) {
		opts.IO.Notef("The gateway refused a request made within 2 seconds of the same one; waiting %s, then asking again.", d)
	}
	opts.IO.Notef("Transactions of %s (Europe/Istanbul, UTC+3), profile %q at %s, by %s:",
		describe(q), cfg.Profile, redact.URL(call.Client.BaseURL()), q.Call())
	w := newWriter(opts, call.Format, q)
	for t, err := range call.Client.Transactions(ctx, q) {
		if err != nil {
			return err
		}
		if err := w.write(ctx, t); err != nil {
			return err
		}
	}
	opts.IO.Notef("%s", w.footer())
	return nil
}

// writer writes each transaction as it comes, and counts what the
// footer says.
type writer struct {
	opts     *Options
	format   render.Format
	span     gateway.Span
	table    render.TableOptions
	widths   []int
	count    int
	lastDay  string
	accounts []int64
}

// The table's columns and their widths: 80 columns with the two blanks
// between them. Cells are padded to these widths so that rows written
// one at a time line up; a longer amount widens its row only.
var (
	tableHeader = []string{"TIME", "INVOICE", "METHOD", "AMOUNT", "STATE", "REFUND", "COMM", "NET", "SETTLES"}
	columnWidth = []int{5, 10, 6, 8, 9, 6, 5, 8, 7}
	// pipeInvoiceWidth: on a pipe nothing is cut, and invoices are padded
	// wider.
	pipeInvoiceWidth = 24
	numberColumns    = []int{3, 5, 6, 7}
	csvHeader        = []string{"created_at", "invoice_id", "order_id", "payment_id", "payment_method", "payment_type_label",
		"currency_code", "gross", "net", "merchant_commission", "user_commission", "merchant_commission_percentage",
		"merchant_commission_fixed", "installment", "card_program", "pos_name", "transaction_state_id", "transaction_state_label",
		"total_refunded_amount", "refunded_chargeback_fee", "rolling_amount", "rolling_effective_date", "settlement_date_merchant",
		"settlement_date_bank", "updated_at", "recurring_id", "card_number", "merchant_id"}
)

func newWriter(opts *Options, format render.Format, q gateway.TransactionQuery) *writer {
	w := &writer{opts: opts, format: format, span: q.Span, table: cmdutil.TableOptions(opts.IO), widths: slices.Clone(columnWidth)}
	// The widths are fixed, so the table is never refitted per row.
	w.table.MaxWidth, w.table.RightAlign, w.table.RightAlignHeader = 0, numberColumns, true
	if opts.IO.TerminalWidth() == 0 {
		w.widths[1] = pipeInvoiceWidth
	}
	return w
}

func (w *writer) write(ctx context.Context, t gateway.Transaction) error {
	first := w.count == 0
	w.count++
	if !slices.Contains(w.accounts, t.MerchantID) {
		w.accounts = append(w.accounts, t.MerchantID)
	}
	switch w.format {
	case render.JSON:
		return w.opts.JSON.WriteLine(ctx, w.opts.IO.Out, toJSON(t))
	case render.CSV, render.TSV:
		header := csvHeader
		if !first {
			header = nil
		}
		return render.WriteRecords(w.opts.IO.Out, w.format, header, [][]string{record(t)})
	}
	return w.writeRow(t, first)
}

// writeRow writes one line of the table, the header before the first;
// a range's rows are grouped under a line naming their day.
func (w *writer) writeRow(t gateway.Transaction, first bool) error {
	if day := t.CreatedAt.Format(dayLayout); w.span == gateway.SpanRange && day != w.lastDay {
		w.lastDay = day
		if _, err := fmt.Fprintln(w.opts.IO.Out, day); err != nil {
			return err
		}
		first = first || w.count > 1
	}
	var b bytes.Buffer
	if err := render.WriteTable(&b, w.table, tableHeader, [][]string{w.cells(t)}); err != nil {
		return err
	}
	out := b.Bytes()
	if !first {
		out = out[bytes.IndexByte(out, '\n')+1:]
	}
	_, err := w.opts.IO.Out.Write(out)
	return err
}

func (w *writer) cells(t gateway.Transaction) []string {
	minor, ok := money.MinorUnit(t.Currency)
	if !ok {
		minor = 2
	}
	shown := func(d decimal.Decimal) string { return money.Shown(d, minor) }
	settles := ""
	if !t.SettlesMerchant.IsZero() {
		settles = t.SettlesMerchant.Format("01-02")
	}
	invoice := redact.Cards(t.InvoiceID)
	cells := []string{t.CreatedAt.Format("15:04"), invoice, t.Method.String(), shown(t.Gross), t.StateText(),
		shown(t.TotalRefunded), shown(t.MerchantCommission), shown(t.Net), settles}
	if w.opts.IO.TerminalWidth() > 0 {
		cells[1], cells[4] = cut(cells[1], w.widths[1]), cut(cells[4], w.widths[4])
	}
	for i, c := range cells {
		pad := strings.Repeat(" ", max(w.widths[i]-len([]rune(c)), 0))
		if slices.Contains(numberColumns, i) {
			cells[i] = pad + c
		} else if i < len(cells)-1 {
			cells[i] = c + pad
		}
	}
	return cells
}

// cut shortens s to n characters, ending in "…" when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// record is a transaction's CSV/TSV row: every field, amounts exact.
func record(t gateway.Transaction) []string {
	moment := func(at time.Time) string { return render.FormatTimeIn(at, render.CSV, money.GatewayZone()) }
	in := func(d decimal.Decimal) string { return money.ExactIn(d, t.Currency) }
	return []string{moment(t.CreatedAt), redact.Cards(t.InvoiceID), t.OrderID, t.PaymentID, t.Method.String(), t.PaymentType,
		t.Currency, in(t.Gross), in(t.Net), in(t.MerchantCommission), in(t.UserCommission),
		t.CommissionPercentage.String(), in(t.CommissionFixed), strconv.Itoa(t.Installment), t.CardProgram, t.PosName,
		strconv.Itoa(t.StateID), t.StateLabel, in(t.TotalRefunded), in(t.RefundedChargebackFee), in(t.RollingAmount),
		moment(t.RollingReleasedAt), moment(t.SettlesMerchant), moment(t.SettlesBank), moment(t.UpdatedAt),
		strconv.FormatInt(t.RecurringID, 10), t.CardNumber, strconv.FormatInt(t.MerchantID, 10)}
}

// footer says how many transactions were listed, and the gateway
// account (merchant id) they are of.
func (w *writer) footer() string {
	if w.count == 0 {
		return "No transactions."
	}
	ids := make([]string, len(w.accounts))
	for i, id := range w.accounts {
		ids[i] = strconv.FormatInt(id, 10)
	}
	noun := "merchant"
	if len(ids) > 1 {
		noun = "merchants"
	}
	return fmt.Sprintf("%s at the gateway account of %s %s.", render.Count(w.count, "transaction", "transactions"), noun, strings.Join(ids, ", "))
}

// transactionJSON is a transaction of -o json: the client's fields, its
// moments in the gateway's zone with their offset and "" for none, its
// amounts JSON numbers with the currency's decimals (11.30).
type transactionJSON struct {
	gateway.Transaction
	CreatedAt             zoned       `json:"created_at"`
	UpdatedAt             zoned       `json:"updated_at"`
	RollingReleasedAt     zoned       `json:"rolling_effective_date"`
	SettlesMerchant       zoned       `json:"settlement_date_merchant"`
	SettlesBank           zoned       `json:"settlement_date_bank"`
	PaymentMethod         string      `json:"payment_method"`
	Gross                 json.Number `json:"gross"`
	Net                   json.Number `json:"net"`
	ProductPrice          json.Number `json:"product_price"`
	MerchantCommission    json.Number `json:"merchant_commission"`
	UserCommission        json.Number `json:"user_commission"`
	CommissionPercentage  json.Number `json:"merchant_commission_percentage"`
	CommissionFixed       json.Number `json:"merchant_commission_fixed"`
	TotalRefunded         json.Number `json:"total_refunded_amount"`
	RefundedChargebackFee json.Number `json:"refunded_chargeback_fee"`
	RollingAmount         json.Number `json:"rolling_amount"`
}

func toJSON(t gateway.Transaction) transactionJSON {
	in := func(d decimal.Decimal) json.Number { return json.Number(money.ExactIn(d, t.Currency)) }
	return transactionJSON{Transaction: t, CreatedAt: zoned(t.CreatedAt), UpdatedAt: zoned(t.UpdatedAt),
		RollingReleasedAt: zoned(t.RollingReleasedAt), SettlesMerchant: zoned(t.SettlesMerchant), SettlesBank: zoned(t.SettlesBank),
		PaymentMethod: t.Method.String(), Gross: in(t.Gross), Net: in(t.Net), ProductPrice: in(t.ProductPrice),
		MerchantCommission: in(t.MerchantCommission), UserCommission: in(t.UserCommission),
		CommissionPercentage: json.Number(t.CommissionPercentage.String()), CommissionFixed: in(t.CommissionFixed),
		TotalRefunded: in(t.TotalRefunded), RefundedChargebackFee: in(t.RefundedChargebackFee), RollingAmount: in(t.RollingAmount)}
}

// zoned is a moment in JSON: RFC 3339 in the gateway's zone, "" for none.
type zoned time.Time

func (z zoned) MarshalJSON() ([]byte, error) {
	return []byte(`"` + render.FormatTimeIn(time.Time(z), render.JSON, money.GatewayZone()) + `"`), nil
}
