package sandbox

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
)

// ledgerFilter is what a ledger query keeps: every set field must match.
type ledgerFilter struct {
	invoice, order, currency     string
	method, state                int
	amount, minAmount, maxAmount *decimal.Decimal
	email, phone                 string
	// search is matched, case ignored, inside the invoice id, order id
	// (the payment_id), e-mail and phone (§11.15 search_key).
	search string
}

// match reports whether e passes every filter set.
func (f *ledgerFilter) match(e *ledgerEntry) bool {
	switch {
	case f.invoice != "" && string(e.invoice) != f.invoice,
		f.order != "" && string(e.order) != f.order,
		f.currency != "" && string(e.currency) != f.currency,
		f.method != 0 && e.method != f.method,
		f.state != 0 && e.state != f.state,
		f.email != "" && !bytes.EqualFold(e.email, []byte(f.email)),
		f.phone != "" && string(e.phone) != f.phone:
		return false
	}
	if f.amount != nil || f.minAmount != nil || f.maxAmount != nil {
		price := e.price()
		if f.amount != nil && !price.Equal(*f.amount) || f.minAmount != nil && price.LessThan(*f.minAmount) ||
			f.maxAmount != nil && price.GreaterThan(*f.maxAmount) {
			return false
		}
	}
	return f.search == "" || containsFold(f.search, e.invoice, e.order, e.email, e.phone)
}

// containsFold reports whether any of texts holds sub, case ignored.
func containsFold(sub string, texts ...[]byte) bool {
	lower := bytes.ToLower([]byte(sub))
	for _, t := range texts {
		if bytes.Contains(bytes.ToLower(t), lower) {
			return true
		}
	}
	return false
}

// queryError is a ledger query refused: the field at fault and the
// gateway's words (status_code 1, as its validator answers).
type queryError struct{ field, desc string }

func (e *queryError) Error() string { return e.desc }

// refuseQuery answers a queryError.
func refuseQuery(w http.ResponseWriter, err *queryError) {
	explain(w, explanation{field: err.field, why: "malformed field " + err.field + ": " + err.desc})
	writeStatus(w, 1, err.desc)
}

// Layouts of the ledger's dates and times (§11.12: '2021-04-20',
// '2021-04-20 21:00:00'; §11.15's ranges are written with - or /).
const (
	ledgerDay      = "2006-01-02"
	ledgerDateTime = "2006-01-02 15:04:05"
)

// parseLedgerTime reads a date or datetime of layout in gateway time.
func parseLedgerTime(field, v, layout string) (time.Time, *queryError) {
	t, err := time.ParseInLocation(layout, strings.ReplaceAll(strings.TrimSpace(v), "/", "-"), money.GatewayZone())
	if err != nil {
		php := map[string]string{ledgerDay: "Y-m-d", ledgerDateTime: "Y-m-d H:i:s"}[layout]
		return time.Time{}, &queryError{field, fmt.Sprintf("The %s does not match the format %s.", strings.ReplaceAll(field, "_", " "), php)}
	}
	return t, nil
}

// getTransactionsPeriod is §11.12's period: type daily (the default) or
// hourly with date, or range with from_date and to_date (to_date's second
// included).
func getTransactionsPeriod(f fields) (from, to time.Time, qe *queryError) {
	switch typ := strings.ToLower(f.get("type")); typ {
	case "", "daily", "hourly":
		layout, span := ledgerDay, 24*time.Hour
		if typ == "hourly" {
			layout, span = ledgerDateTime, time.Hour
		}
		if f.get("date") == "" {
			return from, to, &queryError{"date", "The date field is required."}
		}
		if from, qe = parseLedgerTime("date", f.get("date"), layout); qe != nil {
			return from, to, qe
		}
		if typ == "hourly" {
			from = from.Truncate(time.Hour)
		}
		// A day of gateway time, whatever its length in a zone with DST.
		if span == 24*time.Hour {
			return from, from.AddDate(0, 0, 1), nil
		}
		return from, from.Add(span), nil
	case "range":
		for _, name := range []string{"from_date", "to_date"} {
			if f.get(name) == "" {
				return from, to, &queryError{name, fmt.Sprintf("The %s field is required when type is range.", strings.ReplaceAll(name, "_", " "))}
			}
		}
		if from, qe = parseLedgerTime("from_date", f.get("from_date"), ledgerDateTime); qe != nil {
			return from, to, qe
		}
		if to, qe = parseLedgerTime("to_date", f.get("to_date"), ledgerDateTime); qe != nil {
			return from, to, qe
		}
		return from, to.Add(time.Second), nil
	default:
		return from, to, &queryError{"type", "The selected type is invalid."}
	}
}

// allTransactionPeriod is §11.15's date_range, "2021-04-20 - 2021-04-20"
// (or with /), both days included; all time when absent.
func allTransactionPeriod(f fields) (from, to time.Time, qe *queryError) {
	v := f.get("date_range")
	if v == "" {
		return time.Unix(0, 0), time.Unix(1<<62/int64(time.Second), 0), nil
	}
	a, b, ok := strings.Cut(v, " - ")
	if !ok {
		return from, to, &queryError{"date_range", "The date range must be two dates, 2021-04-20 - 2021-04-20."}
	}
	if from, qe = parseLedgerTime("date_range", a, ledgerDay); qe != nil {
		return from, to, qe
	}
	if to, qe = parseLedgerTime("date_range", b, ledgerDay); qe != nil {
		return from, to, qe
	}
	return from, to.AddDate(0, 0, 1), nil
}

// intField reads an optional whole-number field (0 when empty).
func intField(f fields, name string, allowed ...int) (int, *queryError) {
	v := f.get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &queryError{name, fmt.Sprintf("The %s must be an integer.", strings.ReplaceAll(name, "_", " "))}
	}
	if len(allowed) > 0 && !containsInt(allowed, n) {
		return 0, &queryError{name, fmt.Sprintf("The selected %s is invalid.", strings.ReplaceAll(name, "_", " "))}
	}
	return n, nil
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

// amountField reads an optional amount field (nil when empty).
func amountField(f fields, name string) (*decimal.Decimal, *queryError) {
	v := f.get(name)
	if v == "" {
		return nil, nil
	}
	d, err := decimal.NewFromString(v)
	if err != nil || d.IsNegative() {
		return nil, &queryError{name, fmt.Sprintf("The %s must be a number.", name)}
	}
	return &d, nil
}

// amountFilters reads minamount, maxamount and (for §11.15) amount.
func amountFilters(f fields, lf *ledgerFilter, names ...string) *queryError {
	targets := map[string]**decimal.Decimal{"minamount": &lf.minAmount, "maxamount": &lf.maxAmount, "amount": &lf.amount}
	for _, name := range names {
		d, qe := amountField(f, name)
		if qe != nil {
			return qe
		}
		*targets[name] = d
	}
	return nil
}

// stateIDs are the transaction_state_id values a filter may name.
func stateIDs() []int {
	ids := make([]int, 0, len(ledgerStates()))
	for _, id := range ledgerStates() {
		ids = append(ids, id)
	}
	return ids
}

// currencyOfID is the currency code of a currency_id ("" for none).
func currencyOfID(id int) string {
	for code, n := range currencyIDs() {
		if n == id {
			return code
		}
	}
	return ""
}

// getTransactionsFilter reads §11.12's filters.
func getTransactionsFilter(f fields) (ledgerFilter, *queryError) {
	lf := ledgerFilter{invoice: f.get("invoiceid")}
	cur, qe := intField(f, "currency_id", 1, 2, 3)
	if qe != nil {
		return lf, qe
	}
	lf.currency = currencyOfID(cur)
	if lf.method, qe = intField(f, "paymentmethodid", methodCard, methodMobile, methodWallet); qe != nil {
		return lf, qe
	}
	if lf.state, qe = intField(f, "transactionState", stateIDs()...); qe != nil {
		return lf, qe
	}
	return lf, amountFilters(f, &lf, "minamount", "maxamount")
}

// allTransactionFilter reads §11.15's filters. currency_code is TRY when
// absent, as the document says.
func allTransactionFilter(f fields) (ledgerFilter, *queryError) {
	lf := ledgerFilter{invoice: f.get("invoice_id"), order: f.get("order_id"), email: f.get("billing_email"),
		phone: f.get("billing_phone"), search: f.get("search_key"), currency: strings.ToUpper(f.get("currency_code"))}
	if t := f.get("transaction_id"); t != "" {
		if lf.order != "" && lf.order != t {
			lf.order = "\x00" // both named, and they differ: nothing matches
		} else {
			lf.order = t
		}
	}
	if lf.currency == "" {
		lf.currency = "TRY"
	}
	if _, ok := currencyIDs()[lf.currency]; !ok {
		return lf, &queryError{"currency_code", "The selected currency code is invalid."}
	}
	var qe *queryError
	if lf.method, qe = intField(f, "payment_method", methodCard, methodMobile, methodWallet); qe != nil {
		return lf, qe
	}
	if lf.state, qe = intField(f, "transactionState", stateIDs()...); qe != nil {
		return lf, qe
	}
	return lf, amountFilters(f, &lf, "amount", "minamount", "maxamount")
}

// MaxPageLimit bounds a ledger page.
const MaxPageLimit = 1000

// paging reads page (the body's, else the query's ?page=) and page_limit
// (def when absent; 0 means every row).
func paging(r *http.Request, f fields, def int) (page, limit int, qe *queryError) {
	if f.get("page") == "" && r.URL.Query().Get("page") != "" {
		f = fields{"page": r.URL.Query().Get("page"), "page_limit": f["page_limit"]}
	}
	if page, qe = intField(f, "page"); qe != nil {
		return 0, 0, qe
	}
	page = max(page, 1)
	limit = def
	if f.get("page_limit") != "" {
		if limit, qe = intField(f, "page_limit"); qe != nil {
			return 0, 0, qe
		}
		if limit < 1 || limit > MaxPageLimit {
			return 0, 0, &queryError{"page_limit", fmt.Sprintf("The page limit must be between 1 and %d.", MaxPageLimit)}
		}
	}
	return page, limit, nil
}
