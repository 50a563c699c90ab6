package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
)

// Endpoint names of the ledger's two listings (docs/protocol.md, The
// ledger): getTransactions (the integration document's §11.12) and
// alltransaction (§11.15).
const (
	EndpointGetTransactions = "getTransactions"
	EndpointAllTransaction  = "alltransaction"
)

// Reads, retried like any lookup.
var (
	endpointGetTransactions = endpoint{name: EndpointGetTransactions, path: "/api/getTransactions", auth: true, retry: true}
	endpointAllTransaction  = endpoint{name: EndpointAllTransaction, path: "/api/alltransaction", auth: true, retry: true}
)

// DefaultPageLimit is the page_limit of an alltransaction listing when
// the query names none: a page is held in memory, never the whole day.
const DefaultPageLimit = 100

// RateLimitWait is how long a listing waits after the 2-second rule
// (§1.4) refused a page whose answer named no Retry-After; maxRateWaits
// bounds how often one page is waited for.
const (
	RateLimitWait = 2 * time.Second
	maxRateWaits  = 5
)

// Span says which moments a TransactionQuery covers.
type Span int

const (
	// SpanDay is the day of At, in the gateway's zone.
	SpanDay Span = iota
	// SpanHour is the hour of At, in the gateway's zone.
	SpanHour
	// SpanRange runs from From to To, both included.
	SpanRange
)

// PaymentMethod is the ledger's payment method (payment_type_id, the
// filter's payment_method: §11.15).
type PaymentMethod int

// The payment methods of §11.15.
const (
	MethodAny    PaymentMethod = 0
	MethodCard   PaymentMethod = 1
	MethodMobile PaymentMethod = 2
	MethodWallet PaymentMethod = 3
)

var methodNames = []string{MethodCard: "card", MethodMobile: "mobile", MethodWallet: "wallet"}

// String is the method's name (card, mobile, wallet), or its number.
func (m PaymentMethod) String() string {
	if m > 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return strconv.Itoa(int(m))
}

// ParsePaymentMethod reads a method's name (card, mobile, wallet) or
// number.
func ParsePaymentMethod(s string) (PaymentMethod, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, name := range methodNames {
		if name != "" && (s == name || s == strconv.Itoa(i)) {
			return PaymentMethod(i), nil
		}
	}
	return MethodAny, invalidRequest("payment method %q is none of card, mobile, wallet", s)
}

// transactionStateIDs are the ledger's transaction_state_id values the
// document names: 1 Completed and 3 Pending (§11.15), 11 Chargebacked
// (§11.12's example row).
func transactionStateIDs() map[SaleState]int {
	return map[SaleState]int{SaleCompleted: 1, SalePending: 3, SaleChargedBack: 11}
}

// TransactionStateID reads a state filter: a state word (SaleStateOf's
// reading) whose ledger id the document names, or an id.
func TransactionStateID(s string) (int, error) {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
		return n, nil
	}
	if id, ok := transactionStateIDs()[SaleStateOf(s)]; ok {
		return id, nil
	}
	return 0, invalidRequest("state %q is none the ledger filters on: completed, pending, chargebacked, or a transaction_state_id", strings.TrimSpace(s))
}

// currencyIDs are getTransactions' currency_id values: 1 TRY (§11.12's
// example row), then USD and EUR as the family numbers them.
func currencyIDs() map[string]int { return map[string]int{"TRY": 1, "USD": 2, "EUR": 3} }

// TransactionQuery is what a ledger listing asks for. Times are read in
// the gateway's zone. Empty filters are not applied.
type TransactionQuery struct {
	Span Span
	// At is the day or hour of SpanDay and SpanHour.
	At time.Time
	// From and To bound SpanRange; WholeDays says they name days (From's
	// day to To's day, both whole), not moments.
	From, To  time.Time
	WholeDays bool
	// ByModified reads a range by when the transactions last changed,
	// rather than when they were made (getTransactions' order_by_option).
	ByModified bool

	InvoiceID     string
	OrderID       string
	TransactionID string
	// State is a transaction_state_id (TransactionStateID), 0 for any.
	State    int
	Method   PaymentMethod
	Currency string
	// MinAmount and MaxAmount are plain decimals, "" for no bound.
	MinAmount, MaxAmount string
	// PageLimit is alltransaction's page_limit (DefaultPageLimit if 0).
	PageLimit int
	// Waited, when set, is told of each wait for the 2-second rule
	// before it begins, so that a command can say so.
	Waited func(time.Duration)
}

// Call names the listing that answers q: alltransaction, which pages,
// for whole days by creation; getTransactions, one answer, for an hour, a
// range of moments, or a range by modification (docs/protocol.md).
func (q TransactionQuery) Call() string {
	if q.Span == SpanHour || q.ByModified || q.Span == SpanRange && !q.WholeDays {
		return EndpointGetTransactions
	}
	return EndpointAllTransaction
}

// check refuses a query no listing can answer, before anything is sent.
func (q TransactionQuery) check() error {
	if q.Call() == EndpointGetTransactions && (q.OrderID != "" || q.TransactionID != "") {
		return invalidRequest("an order or transaction id is filtered by alltransaction only, which lists whole days by creation")
	}
	if q.Span == SpanRange && q.To.Before(q.From) {
		return invalidRequest("the range ends before it begins")
	}
	for _, b := range []string{q.MinAmount, q.MaxAmount} {
		if _, ok := money.ParsePlain(b); b != "" && !ok {
			return invalidRequest("amount bound %q is not a plain decimal", b)
		}
	}
	if _, ok := currencyIDs()[q.Currency]; q.Currency != "" && !ok {
		return invalidRequest("currency %q is none of TRY, USD, EUR", q.Currency)
	}
	return nil
}

// Transactions lists the gateway's transactions for q, page after page:
// each page is read once and its rows handed on before the next is
// asked for, so a listing never holds more than a page. A refusal by the
// 2-second rule (HTTP 429, §1.4) is waited out (q.Waited is told) and the
// same page asked again; a day with no transactions yields nothing. The
// sequence ends at the first error.
func (c *Client) Transactions(ctx context.Context, q TransactionQuery) iter.Seq2[Transaction, error] {
	return func(yield func(Transaction, error) bool) {
		if err := c.checkQuery(q); err != nil {
			yield(Transaction{}, fmt.Errorf("%s: %w", q.Call(), err))
			return
		}
		if q.Call() == EndpointGetTransactions {
			c.getTransactions(ctx, q, yield)
			return
		}
		c.allTransaction(ctx, q, yield)
	}
}

// checkQuery is q's own check, then a missing merchant_key for the
// listing signed with it.
func (c *Client) checkQuery(q TransactionQuery) error {
	if err := q.check(); err != nil || q.Call() != EndpointGetTransactions {
		return err
	}
	return c.RequireMerchantKey()
}

// getTransactionsWire is §11.12's request, in its order; filters not
// given are "", as its example sends them.
type getTransactionsWire struct {
	MerchantKey      string `json:"merchant_key"`
	HashKey          string `json:"hash_key"`
	Date             string `json:"date"`
	InvoiceID        string `json:"invoiceid"`
	CurrencyID       string `json:"currency_id"`
	PaymentMethodID  string `json:"paymentmethodid"`
	MinAmount        string `json:"minamount"`
	MaxAmount        string `json:"maxamount"`
	TransactionState string `json:"transactionState"`
	Type             string `json:"type"`
	OrderByOption    string `json:"order_by_option,omitempty"`
	FromDate         string `json:"from_date,omitempty"`
	ToDate           string `json:"to_date,omitempty"`
}

const (
	dayLayout    = "2006-01-02"
	momentLayout = "2006-01-02 15:04:05"
)

func (c *Client) getTransactionsBody(q TransactionQuery) ([]byte, error) {
	zone := money.GatewayZone()
	w := getTransactionsWire{MerchantKey: c.creds.MerchantKey, InvoiceID: q.InvoiceID, MinAmount: q.MinAmount, MaxAmount: q.MaxAmount}
	switch q.Span {
	case SpanDay:
		w.Type, w.Date = "daily", q.At.In(zone).Format(dayLayout)
	case SpanHour:
		w.Type, w.Date = "hourly", q.At.In(zone).Truncate(time.Hour).Format(momentLayout)
	default:
		from, to := q.From.In(zone), q.To.In(zone)
		if q.WholeDays {
			from, to = startOfDay(from), startOfDay(to).AddDate(0, 0, 1).Add(-time.Second)
		}
		w.Type, w.FromDate, w.ToDate, w.OrderByOption = "range", from.Format(momentLayout), to.Format(momentLayout), "1"
		if q.ByModified {
			w.OrderByOption = "2"
		}
	}
	if q.Currency != "" {
		w.CurrencyID = strconv.Itoa(currencyIDs()[q.Currency])
	}
	if q.Method != MethodAny {
		w.PaymentMethodID = strconv.Itoa(int(q.Method))
	}
	if q.State != 0 {
		w.TransactionState = strconv.Itoa(q.State)
	}
	var err error
	w.HashKey, err = c.hashKey("transactions", map[string]string{"date": w.Date, "invoice_id": w.InvoiceID, "currency_id": w.CurrencyID,
		"payment_method_id": w.PaymentMethodID, "min_amount": w.MinAmount, "max_amount": w.MaxAmount, "transaction_state": w.TransactionState})
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

func startOfDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// getTransactions reads §11.12's one answer, which holds the whole day
// or range, and hands each row on as it is read from the body
// (streamRows): the answer is never held whole.
func (c *Client) getTransactions(ctx context.Context, q TransactionQuery, yield func(Transaction, error) bool) {
	body, err := c.getTransactionsBody(q)
	if err != nil {
		yield(Transaction{}, fmt.Errorf("%s: %w", EndpointGetTransactions, err))
		return
	}
	rs := &rowStream{row: func(raw []byte) error {
		// raw is one whole value the decoder has scanned: decoded once.
		var t Transaction
		if err := t.UnmarshalJSON(raw); err != nil {
			return err
		}
		if !yield(t, nil) {
			return errStopRows
		}
		return nil
	}}
	err = c.readPage(ctx, q, endpointGetTransactions, body, rs)
	if err != nil && !rs.stopped && !errors.Is(err, ErrNoData) {
		yield(Transaction{}, err)
	}
}

// allTransactionWire is §11.15's request, in its order.
type allTransactionWire struct {
	TransactionID    string `json:"transaction_id"`
	InvoiceID        string `json:"invoice_id"`
	OrderID          string `json:"order_id"`
	PaymentMethod    string `json:"payment_method"`
	TransactionState string `json:"transactionState"`
	DateRange        string `json:"date_range"`
	CurrencyCode     string `json:"currency_code"`
	Amount           string `json:"amount"`
	MaxAmount        string `json:"maxamount"`
	MinAmount        string `json:"minamount"`
	BillingPhone     string `json:"billing_phone"`
	BillingEmail     string `json:"billing_email"`
	SearchKey        string `json:"search_key"`
	Order            string `json:"order"`
	PageLimit        string `json:"page_limit"`
}

func allTransactionBody(q TransactionQuery) ([]byte, error) {
	zone := money.GatewayZone()
	from, to := q.At.In(zone), q.At.In(zone)
	if q.Span == SpanRange {
		from, to = q.From.In(zone), q.To.In(zone)
	}
	w := allTransactionWire{TransactionID: q.TransactionID, InvoiceID: q.InvoiceID, OrderID: q.OrderID,
		DateRange: from.Format(dayLayout) + " - " + to.Format(dayLayout), CurrencyCode: q.Currency,
		MinAmount: q.MinAmount, MaxAmount: q.MaxAmount, Order: "asc", PageLimit: strconv.Itoa(max(q.PageLimit, 0))}
	if q.PageLimit <= 0 {
		w.PageLimit = strconv.Itoa(DefaultPageLimit)
	}
	if q.Method != MethodAny {
		w.PaymentMethod = strconv.Itoa(int(q.Method))
	}
	if q.State != 0 {
		w.TransactionState = strconv.Itoa(q.State)
	}
	return json.Marshal(w)
}

// transactionPage is one page of alltransaction's Laravel-style answer.
type transactionPage struct {
	CurrentPage flexInt       `json:"current_page"`
	LastPage    flexInt       `json:"last_page"`
	Total       flexInt       `json:"total"`
	Data        []Transaction `json:"data"`
}

// allTransaction reads §11.15's pages, page=N in the query as its
// next_page_url writes it, until the last page.
func (c *Client) allTransaction(ctx context.Context, q TransactionQuery, yield func(Transaction, error) bool) {
	body, err := allTransactionBody(q)
	if err != nil {
		yield(Transaction{}, fmt.Errorf("%s: %w", EndpointAllTransaction, err))
		return
	}
	for page := 1; ; page++ {
		ep := endpointAllTransaction
		ep.rawQuery = "page=" + strconv.Itoa(page)
		var p transactionPage
		if err := c.readPage(ctx, q, ep, body, &p); err != nil {
			if !errors.Is(err, ErrNoData) {
				yield(Transaction{}, err)
			}
			return
		}
		if int(p.CurrentPage) != page && len(p.Data) > 0 {
			// Never hand on a page twice, nor loop on a gateway that
			// answers the same page whatever is asked.
			yield(Transaction{}, &APIError{Endpoint: ep.name, HTTPStatus: http.StatusOK,
				Problem: fmt.Sprintf("page %d was asked for and page %d answered", page, int(p.CurrentPage)), DataErr: errPageMismatch})
			return
		}
		for _, t := range p.Data {
			if !yield(t, nil) {
				return
			}
		}
		if page >= int(p.LastPage) || len(p.Data) == 0 {
			return
		}
	}
}

var errPageMismatch = errors.New("the answer is another page")

// readPage sends one page's request, waiting out the 2-second rule: a
// page refused with HTTP 429 was not read, so it is asked again after
// the wait its answer names (RateLimitWait when none).
func (c *Client) readPage(ctx context.Context, q TransactionQuery, ep endpoint, body []byte, v any) error {
	for n := 1; ; n++ {
		_, err := c.send(ctx, ep, body, v)
		var apiErr *APIError
		if err == nil || n > maxRateWaits || !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusTooManyRequests {
			return err
		}
		wait := min(cmpDuration(apiErr.RetryAfter, RateLimitWait), maxRetryAfter)
		if q.Waited != nil {
			q.Waited(wait)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return c.requestError(ctx, ep, false, serr)
		}
	}
}

// cmpDuration is d, or def when d is 0.
func cmpDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Transaction is one row of the gateway's ledger, as getTransactions and
// alltransaction answer it: what a desk lists and an audit matches.
// Amounts are exact decimals; times are in the gateway's zone (zero when
// the gateway gave none); CardNumber is masked (first 6, last 4).
type Transaction struct {
	ID                 int64           `json:"id"`
	PaymentID          string          `json:"payment_id"`
	InvoiceID          string          `json:"invoice_id"`
	OrderID            string          `json:"order_id"`
	MerchantID         int64           `json:"merchant_id"`
	RecurringID        int64           `json:"recurring_id"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
	Method             PaymentMethod   `json:"payment_method"`
	PaymentType        string          `json:"payment_type_label"`
	Currency           string          `json:"currency_code"`
	Installment        int             `json:"installment"`
	PosName            string          `json:"pos_name"`
	CardProgram        string          `json:"card_program"`
	CardNumber         string          `json:"card_number"`
	StateID            int             `json:"transaction_state_id"`
	StateLabel         string          `json:"transaction_state_label"`
	Gross              decimal.Decimal `json:"gross"`
	Net                decimal.Decimal `json:"net"`
	ProductPrice       decimal.Decimal `json:"product_price"`
	MerchantCommission decimal.Decimal `json:"merchant_commission"`
	UserCommission     decimal.Decimal `json:"user_commission"`
	// CommissionPercentage and CommissionFixed are merchant_sale's
	// merchant_commission_percentage and _fixed: the rate applied.
	CommissionPercentage  decimal.Decimal `json:"merchant_commission_percentage"`
	CommissionFixed       decimal.Decimal `json:"merchant_commission_fixed"`
	HasCommissionRate     bool            `json:"has_commission_rate"`
	TotalRefunded         decimal.Decimal `json:"total_refunded_amount"`
	RefundedChargebackFee decimal.Decimal `json:"refunded_chargeback_fee"`
	RollingAmount         decimal.Decimal `json:"rolling_amount"`
	RollingReleasedAt     time.Time       `json:"rolling_effective_date"`
	SettlesMerchant       time.Time       `json:"settlement_date_merchant"`
	SettlesBank           time.Time       `json:"settlement_date_bank"`
	// Refunds are getTransactions' refund_history (§11.12): each refund
	// of the sale by its refund_transaction_id, asked as check status's
	// refund_info is (Waiting, Refused); nil in alltransaction's rows.
	Refunds []RefundInfo `json:"refund_history,omitempty"`
}
