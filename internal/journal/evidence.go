package journal

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/redact"
)

// Evidence is what the gateway's check-status call answered, as a
// reconcile line keeps it: its status and the fields that say what became
// of a transaction, scrubbed of cards and of anything the journal must not
// hold.
type Evidence struct {
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description,omitempty"`
	TransactionStatus string `json:"transaction_status,omitempty"`
	OrderID           string `json:"order_id,omitempty"`
	InvoiceID         string `json:"invoice_id,omitempty"`
	TransactionType   string `json:"transaction_type,omitempty"`
	PaymentReasonCode string `json:"payment_reason_code,omitempty"`
	// Fields are the answer's other top-level fields, as the gateway wrote
	// them (JSON text), cards masked; fields that may name the payer or a
	// secret are left out.
	Fields map[string]string `json:"fields,omitempty"`
}

// EvidenceOf is the evidence of a check-status answer (res), or of its
// error when the gateway answered with a status_code (err); nil when
// neither holds an answer.
func EvidenceOf(res *gateway.CheckStatusResult, err error) *Evidence {
	if res == nil {
		var apiErr *gateway.APIError
		if errors.As(err, &apiErr) && apiErr.HasStatusCode {
			return &Evidence{StatusCode: apiErr.StatusCode, StatusDescription: redact.Cards(apiErr.Description)}
		}
		return nil
	}
	ev := &Evidence{
		StatusCode: res.StatusCode, StatusDescription: redact.Cards(res.StatusDescription),
		TransactionStatus: redact.Cards(res.TransactionStatus), OrderID: redact.Cards(res.OrderID),
		InvoiceID: redact.Invoice(res.InvoiceID), TransactionType: redact.Cards(res.TransactionType),
		PaymentReasonCode: redact.Cards(res.PaymentReasonCode),
	}
	names := make([]string, 0, len(res.Extra))
	for name := range res.Extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if personal(name) {
			continue
		}
		if ev.Fields == nil {
			ev.Fields = map[string]string{}
		}
		ev.Fields[name] = redact.Cards(string(res.Extra[name]))
	}
	return ev
}

// EvidenceOfLedger is the evidence of a ledger row (t, as source, the
// listing that answered it: getTransactions), scrubbed as EvidenceOf
// scrubs check status's: its state, order and invoice, and in Fields the
// source, the row's ids and amounts and, for a refund, refund_history's
// entry (ref). StatusCode is 0: a listing has none.
func EvidenceOfLedger(t gateway.Transaction, source string, ref *gateway.RefundInfo) *Evidence {
	quote := func(s string) string { b, _ := json.Marshal(redact.Cards(s)); return string(b) }
	ev := &Evidence{TransactionStatus: redact.Cards(t.StateText()), OrderID: redact.Cards(t.OrderID),
		InvoiceID: redact.Invoice(t.InvoiceID), TransactionType: "ledger",
		Fields: map[string]string{"source": quote(source), "payment_id": quote(t.PaymentID),
			"transaction_id": strconv.FormatInt(t.ID, 10), "currency_code": quote(t.Currency),
			"product_price": quote(t.ProductPrice.String()), "total_refunded_amount": quote(t.TotalRefunded.String())}}
	if ref != nil {
		ev.Fields["refund_transaction_id"] = quote(ref.RefundTransactionID)
		ev.Fields["refund_status"] = quote(ref.Status)
		ev.Fields["refund_amount"] = quote(ref.Amount.String())
	}
	return ev
}

// personal reports whether a field of the answer may name the payer or
// hold a secret: it is not kept.
func personal(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"card", "mail", "phone", "name", "address", "token", "hash", "key", "secret", "password", "_ip"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
