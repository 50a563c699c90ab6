package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
)

// The gateway's ledger: §11.12 getTransactions (a day, an hour or a range,
// hash-checked with the merchant key) and §11.15 alltransaction (Laravel
// pagination), both answered from the store's ledger indexes
// (ledgerindex.go) with the money of ledgermoney.go. docs/sandbox.md,
// "Ledger", says what the sandbox decided where the document is silent.

// getTransactionsLayout is the hash layout of getTransactions' filters.
const getTransactionsLayout = "transactions"

// getTransactionsWireNames maps the layout's field names (lowercase words,
// as `paycli hash` flags) to the request's field names (§11.12).
var getTransactionsWireNames = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"date": "date", "invoice_id": "invoiceid", "currency_id": "currency_id", "payment_method_id": "paymentmethodid",
		"min_amount": "minamount", "max_amount": "maxamount", "transaction_state": "transactionState",
	}
})

// getTransactions serves POST /api/getTransactions.
func (g *Gateway) getTransactions(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || g.refuseRepeat(w, r, f) || !f.requireFields(w, opGetTransactions.required...) || !g.verifyMerchant(w, f) || !g.verifyLedgerHash(w, f) {
		return
	}
	q, filter, qe := getTransactionsScan(r, f)
	planted, ok := g.ledgerRates(w, qe)
	if !ok {
		return
	}
	q.match = filter.match
	// Rows are written as they are read: a day of 100,000 sales asked
	// without page_limit is never held whole.
	w.Header().Set("Content-Type", "application/json")
	noteStatus(w, 100, "Success")
	_, _ = w.Write([]byte(`{"status_code":100,"status_description":"Success","data":[`))
	first := true
	_, err := g.opts.Store.scanLedger(q, func(e *ledgerEntry, sale *Sale) error {
		row := g.transactionRow(e, sale, planted)
		data, err := json.Marshal(row)
		if err != nil {
			return err
		}
		if !first {
			_, _ = w.Write([]byte{','})
		}
		first = false
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		// The status line is sent: an unterminated body tells the client.
		explain(w, explanation{why: "the sandbox's store failed mid-answer: " + err.Error()})
		return
	}
	_, _ = w.Write([]byte("]}"))
}

// getTransactionsScan reads getTransactions' period, order and paging.
func getTransactionsScan(r *http.Request, f fields) (ledgerScan, ledgerFilter, *queryError) {
	from, to, qe := getTransactionsPeriod(f)
	if qe != nil {
		return ledgerScan{}, ledgerFilter{}, qe
	}
	by, qe := intField(f, "order_by_option", 1, 2)
	if qe != nil {
		return ledgerScan{}, ledgerFilter{}, qe
	}
	page, limit, qe := paging(r, f, 0)
	if qe != nil {
		return ledgerScan{}, ledgerFilter{}, qe
	}
	filter, qe := getTransactionsFilter(f)
	return ledgerScan{from: from, to: to, byUpdated: by == 2, skip: (page - 1) * limit, limit: limit}, filter, qe
}

// verifyLedgerHash checks getTransactions' hash_key: made with the
// merchant key as the password (§11.12), not the app secret, over the
// filters as sent.
func (g *Gateway) verifyLedgerHash(w http.ResponseWriter, f fields) bool {
	layout, _ := hashkey.LookupLayout(getTransactionsLayout)
	values := make(map[string]string, len(layout.Fields))
	from := make(map[string]string, len(layout.Fields))
	for _, name := range layout.Fields {
		values[name] = f.get(getTransactionsWireNames()[name])
		from[name] = "the request's " + getTransactionsWireNames()[name]
	}
	plain, err := hashkey.Decrypt(g.opts.Credentials.MerchantKey, f.get("hash_key"))
	if err != nil {
		why := "the hash_key does not decrypt with this sandbox's merchant_key: getTransactions' hash_key is made with the merchant key as password (§11.12), not the app_secret"
		if errors.Is(err, hashkey.ErrMalformed) {
			why = fmt.Sprintf("the hash_key is not one (%v); make it with the merchant key and the getTransactions layout %s", err, strings.Join(layout.Fields, "|"))
		}
		return writeHashRefusal(w, 90, explanation{field: "hash_key", why: why}, getTransactionsLayout, "request")
	}
	code, e := compareHash(plain, getTransactionsLayout, values, from)
	return writeHashRefusal(w, code, e, getTransactionsLayout, "request")
}

// ledgerRates answers a refused query (qe), else reads the planted rates
// for its rows (answering the store's failure); ok is false when it
// answered.
func (g *Gateway) ledgerRates(w http.ResponseWriter, qe *queryError) (planted map[string]plantedRate, ok bool) {
	if qe != nil {
		refuseQuery(w, qe)
		return nil, false
	}
	planted, err := g.opts.Store.plantedRates()
	if err != nil {
		writeInternal(w, err)
		return nil, false
	}
	return planted, true
}

// DefaultAllTransactionLimit is alltransaction's page size when the
// request names none.
const DefaultAllTransactionLimit = 10

// allTransaction serves POST /api/alltransaction.
func (g *Gateway) allTransaction(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || g.refuseRepeat(w, r, f) {
		return
	}
	from, to, qe := allTransactionPeriod(f)
	var filter ledgerFilter
	var page, limit int
	if qe == nil {
		filter, qe = allTransactionFilter(f)
	}
	if qe == nil {
		page, limit, qe = paging(r, f, DefaultAllTransactionLimit)
	}
	if qe == nil && !(f.get("order") == "" || strings.EqualFold(f.get("order"), "asc") || strings.EqualFold(f.get("order"), "desc")) {
		qe = &queryError{"order", "The selected order is invalid."}
	}
	planted, ok := g.ledgerRates(w, qe)
	if !ok {
		return
	}
	q := ledgerScan{from: from, to: to, desc: !strings.EqualFold(f.get("order"), "asc"), match: filter.match, skip: (page - 1) * limit, limit: limit}
	rows := make([]allTransactionRow, 0, limit)
	total, err := g.opts.Store.scanLedger(q, func(e *ledgerEntry, sale *Sale) error {
		rows = append(rows, g.allTransactionRowOf(e, sale, planted))
		return nil
	})
	if err != nil {
		writeInternal(w, err)
		return
	}
	perPage := f.get("page_limit")
	if perPage == "" {
		perPage = strconv.Itoa(limit)
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: 100, StatusDescription: "data fetched successfully",
		Data: laravelPage(baseURLOf(r)+"/api/alltransaction", page, limit, total, perPage, rows)})
}

// laravelPageBody is a Laravel paginator's JSON, as §11.15 shows it (the
// URLs of pages that do not exist are "", not null).
type laravelPageBody struct {
	CurrentPage  int                 `json:"current_page"`
	Data         []allTransactionRow `json:"data"`
	FirstPageURL string              `json:"first_page_url"`
	From         int                 `json:"from"`
	LastPage     int                 `json:"last_page"`
	LastPageURL  string              `json:"last_page_url"`
	NextPageURL  string              `json:"next_page_url"`
	Path         string              `json:"path"`
	PerPage      string              `json:"per_page"`
	PrevPageURL  string              `json:"prev_page_url"`
	To           int                 `json:"to"`
	Total        int                 `json:"total"`
}

// laravelPage pages total rows, limit a page, with rows being page's.
func laravelPage(path string, page, limit, total int, perPage string, rows []allTransactionRow) laravelPageBody {
	at := func(n int) string { return fmt.Sprintf("%s?page=%d", path, n) }
	last := max((total+limit-1)/limit, 1)
	b := laravelPageBody{CurrentPage: page, Data: rows, FirstPageURL: at(1), LastPage: last, LastPageURL: at(last),
		Path: path, PerPage: perPage, Total: total}
	if len(rows) > 0 {
		b.From = (page-1)*limit + 1
		b.To = b.From + len(rows) - 1
	}
	if page < last {
		b.NextPageURL = at(page + 1)
	}
	if page > 1 {
		b.PrevPageURL = at(min(page-1, last))
	}
	return b
}

// ledgerTimeUTC writes a row's created_at and updated_at as §11.12 does:
// UTC with microseconds.
func ledgerTimeUTC(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// ledgerLocal writes a settlement or release time in gateway time.
func ledgerLocal(t time.Time) string { return gatewayTime(t) }
