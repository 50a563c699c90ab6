package gateway

import (
	"context"
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/testkit/replay"
)

const (
	replayGetTransactions = "/ccpayment/api/getTransactions"
	replayAllTransaction  = "/ccpayment/api/alltransaction"
)

// day is 2021-02-10 in the gateway's zone, the document's example day.
var day = time.Date(2021, 2, 10, 0, 0, 0, 0, money.GatewayZone())

// collect runs a listing to its end.
func collect(c *Client, q TransactionQuery) ([]Transaction, error) {
	var rows []Transaction
	for t, err := range c.Transactions(context.Background(), q) {
		if err != nil {
			return rows, err
		}
		rows = append(rows, t)
	}
	return rows, nil
}

func decimalIs(t *testing.T, name string, got interface{ String() string }, want string) {
	t.Helper()
	if got.String() != want {
		t.Errorf("%s = %s, want %s", name, got, want)
	}
}

// TestGetTransactionsDocumented: §11.12's example answer is read whole
// (every field a desk and an audit use, exact), and its request is the
// document's: a daily listing whose hash_key opens with the merchant_key
// to the filter values.
func TestGetTransactionsDocumented(t *testing.T) {
	g, c := newReplayClient(t, "")
	g.Answer(http.MethodPost, replayGetTransactions, 200, "testdata/recorded/transactions_platformode.json")
	rows, err := collect(c, TransactionQuery{Span: SpanHour, At: day.Add(12*time.Hour + 30*time.Minute)})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	r := rows[0]
	if r.ID != 275018 || r.PaymentID != "W7iQ8-M7jb-TC10-98950-100221" || r.InvoiceID != "3905388578454743445487" ||
		r.OrderID != "16129494361217" || r.MerchantID != 98950 || r.Method != MethodCard || r.PaymentType != "MP Credit Card" ||
		r.Currency != "TRY" || r.Installment != 1 || r.PosName != "ISBANK - Günlük TRY MAXIMUM" || r.CardProgram != "" ||
		r.CardNumber != "535576****7226" || r.StateID != 11 || r.StateLabel != "Chargebacked" || !r.HasCommissionRate {
		t.Errorf("read as %+v", r)
	}
	if !r.ChargedBack() || r.Taken() || r.Pending() || r.Failed() {
		t.Errorf("state %q: chargedback %v", r.State(), r.ChargedBack())
	}
	for name, pair := range map[string][2]string{
		"gross": {r.Gross.String(), "11.3"}, "net": {r.Net.String(), "10.635"}, "merchant_commission": {r.MerchantCommission.String(), "0.665"},
		"merchant_commission_percentage": {r.CommissionPercentage.String(), "5"}, "merchant_commission_fixed": {r.CommissionFixed.String(), "0.1"},
		"total_refunded_amount": {r.TotalRefunded.String(), "10"}, "refunded_chargeback_fee": {r.RefundedChargebackFee.String(), "50"},
		"rolling_amount": {r.RollingAmount.String(), "1.13"},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s = %s, want %s", name, pair[0], pair[1])
		}
	}
	for name, pair := range map[string][2]time.Time{
		"created_at":                     {r.CreatedAt, time.Date(2021, 2, 10, 12, 30, 37, 0, time.UTC)},
		"settlement_date_merchant":       {r.SettlesMerchant, time.Date(2021, 2, 11, 14, 0, 0, 0, money.GatewayZone())},
		"settlement_date_bank":           {r.SettlesBank, time.Date(2021, 2, 11, 14, 0, 0, 0, money.GatewayZone())},
		"rolling_balance.effective_date": {r.RollingReleasedAt, time.Date(2021, 8, 10, 11, 0, 0, 0, money.GatewayZone())},
	} {
		if !pair[0].Equal(pair[1]) || pair[0].Location().String() != money.GatewayZone().String() {
			t.Errorf("%s = %v, want %v in the gateway's zone", name, pair[0], pair[1])
		}
	}
	req := g.Last(replayGetTransactions)
	if req.Fields["type"] != "hourly" || req.Fields["date"] != "2021-02-10 12:00:00" || req.Fields["merchant_key"] != testMerchantKey {
		t.Errorf("request %s", req.Raw)
	}
	if plain, err := hashkey.Decrypt(testMerchantKey, req.Fields["hash_key"].(string)); err != nil || plain != "2021-02-10 12:00:00||||||" {
		t.Errorf("hash_key opens with the merchant_key to %q, %v", plain, err)
	}
}

// TestTransactionFiltersSent: each filter reaches its field of the call
// that answers the query, and getTransactions' hash_key holds the values
// sent, in §11.12's order.
func TestTransactionFiltersSent(t *testing.T) {
	all := TransactionQuery{Span: SpanDay, At: day, InvoiceID: "INV-7", OrderID: "ORD-7", TransactionID: "TX-7",
		State: 3, Method: MethodWallet, Currency: "EUR", MinAmount: "10", MaxAmount: "250.50", PageLimit: 20}
	ranged := all
	ranged.OrderID, ranged.TransactionID, ranged.Span, ranged.ByModified = "", "", SpanRange, true
	ranged.From, ranged.To = day.Add(9*time.Hour), day.Add(17*time.Hour+30*time.Minute)
	wholeDays := TransactionQuery{Span: SpanRange, From: day, To: day.AddDate(0, 0, 2), WholeDays: true}
	tests := []struct {
		name  string
		q     TransactionQuery
		path  string
		want  map[string]string
		plain string
	}{
		{"a day by alltransaction", all, replayAllTransaction, map[string]string{"invoice_id": "INV-7", "order_id": "ORD-7", "transaction_id": "TX-7",
			"transactionState": "3", "payment_method": "3", "currency_code": "EUR", "minamount": "10", "maxamount": "250.50",
			"date_range": "2021-02-10 - 2021-02-10", "page_limit": "20", "order": "asc"}, ""},
		{"whole days by alltransaction", wholeDays, replayAllTransaction, map[string]string{"date_range": "2021-02-10 - 2021-02-12",
			"page_limit": "100", "currency_code": "", "invoice_id": ""}, ""},
		{"a range by modification", ranged, replayGetTransactions, map[string]string{"type": "range", "date": "", "invoiceid": "INV-7",
			"currency_id": "3", "paymentmethodid": "3", "minamount": "10", "maxamount": "250.50", "transactionState": "3",
			"order_by_option": "2", "from_date": "2021-02-10 09:00:00", "to_date": "2021-02-10 17:30:00"}, "|INV-7|3|3|10|250.50|3"},
		{"a day by getTransactions", TransactionQuery{Span: SpanDay, At: day, ByModified: true}, replayGetTransactions,
			map[string]string{"type": "daily", "date": "2021-02-10"}, "2021-02-10||||||"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, c := newReplayClient(t, "")
			g.Answer(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_empty.json")
			g.Answer(http.MethodPost, replayGetTransactions, 200, "testdata/recorded/transactions_empty.json")
			if rows, err := collect(c, tt.q); err != nil || len(rows) != 0 {
				t.Fatalf("rows %d, %v", len(rows), err)
			}
			req := g.Last(tt.path)
			for field, want := range tt.want {
				if got, _ := req.Fields[field].(string); got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			if tt.plain == "" {
				return
			}
			if plain, err := hashkey.Decrypt(testMerchantKey, req.Fields["hash_key"].(string)); err != nil || plain != tt.plain {
				t.Errorf("hash_key opens to %q, %v; want %q", plain, err, tt.plain)
			}
		})
	}
}

// TestTransactionQueryRefused: what no listing answers is refused before
// anything is sent.
func TestTransactionQueryRefused(t *testing.T) {
	for name, q := range map[string]TransactionQuery{
		"order id by the hour": {Span: SpanHour, At: day, OrderID: "O1"},
		"backwards range":      {Span: SpanRange, From: day, To: day.Add(-time.Hour)},
		"amount":               {Span: SpanDay, At: day, MinAmount: "1,5"},
		"currency":             {Span: SpanDay, At: day, Currency: "GBP"},
	} {
		_, c := newReplayClient(t, "")
		if _, err := collect(c, q); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", name, err)
		}
	}
}

// TestAllTransactionPages: the pages are asked for one by one (page=N in
// the query), each row handed on once, in order, and the listing stops
// at the last page: the recorded server answers nothing after it.
func TestAllTransactionPages(t *testing.T) {
	g, c := newReplayClient(t, "")
	g.AnswerOnce(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_page1.json")
	g.AnswerOnce(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_page2.json")
	rows, err := collect(c, TransactionQuery{Span: SpanDay, At: day, PageLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := invoices(rows); got != "INV-A1 INV-A2 INV-A3" {
		t.Errorf("rows %s", got)
	}
	if got := pagesAsked(g); got != "page=1 page=2" {
		t.Errorf("pages asked: %s", got)
	}
	decimalIs(t, "INV-A2 gross", rows[1].Gross, "250.5")
	if !rows[0].Taken() || !rows[2].Pending() {
		t.Errorf("states %q %q", rows[0].State(), rows[2].State())
	}
}

func invoices(rows []Transaction) string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.InvoiceID)
	}
	return strings.Join(ids, " ")
}

func pagesAsked(g *replay.Server) string {
	var pages []string
	for _, r := range g.Requests() {
		if r.Path == replayAllTransaction {
			pages = append(pages, r.Query)
		}
	}
	return strings.Join(pages, " ")
}

// TestTransactionsWaitOutTheTwoSecondRule: a page refused by the
// 2-second rule (HTTP 429, Retry-After: 2) is waited for, said, and asked
// again; the page read before it is never asked again.
func TestTransactionsWaitOutTheTwoSecondRule(t *testing.T) {
	g := replay.New(t)
	g.Answer(http.MethodPost, replayToken, 200, "testdata/recorded/token.json")
	var slept, said []time.Duration
	c := newTestClient(t, g.URL+"/ccpayment", WithSleep(func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}))
	g.AnswerOnce(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_page1.json")
	g.AnswerTextOnce(http.MethodPost, replayAllTransaction, http.StatusTooManyRequests,
		`{"status_code":429,"status_description":"Too Many Attempts."}`, "Retry-After", "2")
	g.AnswerOnce(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_page2.json")
	rows, err := collect(c, TransactionQuery{Span: SpanDay, At: day, PageLimit: 2,
		Waited: func(d time.Duration) { said = append(said, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := invoices(rows); got != "INV-A1 INV-A2 INV-A3" {
		t.Errorf("rows %s", got)
	}
	if got := pagesAsked(g); got != "page=1 page=2 page=2" {
		t.Errorf("pages asked: %s", got)
	}
	if len(slept) != 1 || slept[0] != 2*time.Second || len(said) != 1 || said[0] != 2*time.Second {
		t.Errorf("slept %v, said %v; want one wait of 2s", slept, said)
	}
}

// TestTransactionsEmptyDay: a day with no transactions lists nothing, in
// either call, and is no error.
func TestTransactionsEmptyDay(t *testing.T) {
	g, c := newReplayClient(t, "")
	g.Answer(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_empty.json")
	g.Answer(http.MethodPost, replayGetTransactions, 200, "testdata/recorded/transactions_empty.json")
	for _, q := range []TransactionQuery{{Span: SpanDay, At: day}, {Span: SpanHour, At: day}} {
		if rows, err := collect(c, q); err != nil || len(rows) != 0 {
			t.Errorf("%s: rows %d, %v", q.Call(), len(rows), err)
		}
	}
	if n := g.Count(replayAllTransaction); n != 1 {
		t.Errorf("alltransaction asked %d times for an empty day", n)
	}
}

// TestTransactionsDocumentedFailures: §11.12's 90 and §11.15's 99 are the
// gateway's refusals, with their codes, never an empty listing.
func TestTransactionsDocumentedFailures(t *testing.T) {
	g, c := newReplayClient(t, "")
	g.Answer(http.MethodPost, replayGetTransactions, 200, "testdata/recorded/transactions_platformode_90.json")
	g.Answer(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_platformode_99.json")
	for q, code := range map[Span]int{SpanHour: 90, SpanDay: 99} {
		_, err := collect(c, TransactionQuery{Span: q, At: day})
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != code || errors.Is(err, ErrNoData) || errors.Is(err, ErrUnavailable) {
			t.Errorf("span %d: %v, want a refusal with status_code %d", q, err, code)
		}
	}
}

// TestAllTransactionDocumented: §11.15's example row: the payment type
// from its object, "" for its rolling balance and settlement dates, the
// state from its id alone.
func TestAllTransactionDocumented(t *testing.T) {
	g, c := newReplayClient(t, "")
	g.Answer(http.MethodPost, replayAllTransaction, 200, "testdata/recorded/alltransaction_platformode.json")
	rows, err := collect(c, TransactionQuery{Span: SpanDay, At: day})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	r := rows[0]
	if r.PaymentType != "Credit Card" || r.InvoiceID != "14391" || r.OrderID != "164290959020713" || !r.Pending() ||
		!r.SettlesBank.IsZero() || !r.RollingReleasedAt.IsZero() || r.HasCommissionRate || r.CardNumber != "546938****2434" || r.Currency != "TRY" {
		t.Errorf("read as %+v", r)
	}
	decimalIs(t, "merchant_commission", r.MerchantCommission, "0.1")
	decimalIs(t, "net", r.Net, "4.9")
}

// qnbpayShaped is a recorded answer written as QNBpay writes its answers:
// an array of one object, order_id and invoice_id JSON numbers.
func qnbpayShaped(t *testing.T, file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	numeric := regexp.MustCompile(`"(order_id|invoice_id)": "(\d+)"`)
	return "[" + numeric.ReplaceAllString(string(b), `"$1": $2`) + "]"
}

// TestTransactionsDialects: QNBpay's shapes are read in its dialect and
// refused in Sipay's, as the answer no dialect allows (ShapeError).
func TestTransactionsDialects(t *testing.T) {
	body := qnbpayShaped(t, "testdata/recorded/alltransaction_platformode.json")
	for member, readable := range map[string]bool{"qnbpay": true, "sipay": false, "": true} {
		g, c := newReplayClient(t, member)
		g.AnswerText(http.MethodPost, replayAllTransaction, 200, body)
		rows, err := collect(c, TransactionQuery{Span: SpanDay, At: day})
		var ae *APIError
		var shape *ShapeError
		switch {
		case readable && (err != nil || len(rows) != 1 || rows[0].OrderID != "164290959020713" || rows[0].InvoiceID != "14391"):
			t.Errorf("%s: %v, rows %+v", member, err, rows)
		case !readable && (!errors.As(err, &ae) || !errors.As(ae.DataErr, &shape) || !errors.Is(err, ErrUnavailable) && !errors.Is(err, ErrUnreadable)):
			t.Errorf("%s: %v, want a ShapeError", member, err)
		}
	}
}

// TestTransactionsRefusedShapes: an answer no member writes is an answer
// that could not be read, never rows made up from it.
func TestTransactionsRefusedShapes(t *testing.T) {
	for name, body := range map[string]string{
		"data a string":          `{"status_code":100,"data":"none"}`,
		"a time that is none":    `{"status_code":100,"data":{"current_page":1,"last_page":1,"data":[{"id":1,"created_at":"yesterday"}]}}`,
		"an amount that is not":  `{"status_code":100,"data":{"current_page":1,"last_page":1,"data":[{"id":1,"gross":"1,5"}]}}`,
		"rolling_balance a list": `{"status_code":100,"data":{"current_page":1,"last_page":1,"data":[{"id":1,"rolling_balance":[1]}]}}`,
		"another page":           `{"status_code":100,"data":{"current_page":7,"last_page":9,"data":[{"id":1}]}}`,
	} {
		g, c := newReplayClient(t, "")
		g.AnswerText(http.MethodPost, replayAllTransaction, 200, body)
		rows, err := collect(c, TransactionQuery{Span: SpanDay, At: day})
		if len(rows) != 0 || !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: rows %d, %v; want ErrUnreadable", name, len(rows), err)
		}
	}
}

// TestTransactionCardMasked: a gateway that writes a whole card number
// never hands it on (masked as SavedCard's).
func TestTransactionCardMasked(t *testing.T) {
	var r Transaction
	if err := r.UnmarshalJSON([]byte(`{"id":1,"credit_card_no":"4355084355084358"}`)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.CardNumber, "4355084355084358") || !strings.HasPrefix(r.CardNumber, "435508") {
		t.Errorf("card %q", r.CardNumber)
	}
}
