package journal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/gateway"
)

// Learned is what the gateway's check-status call said about an invoice.
type Learned struct {
	// Outcome is Succeeded (the sale was taken), Declined (the gateway
	// has the transaction, failed), NotFound (no transaction: nothing
	// taken), Pending (not finished yet) or Unknown (an answer paycli does
	// not understand: the attempt stays unknown).
	Outcome           string
	StatusCode        *int
	OrderNo           string
	TransactionStatus string
	Message           string
}

// Settled reports whether the answer decides the attempt's outcome.
func (l Learned) Settled() bool {
	return l.Outcome == Succeeded || l.Outcome == Declined || l.Outcome == NotFound
}

// LearnFromStatus turns a check-status answer for invoice into what it
// teaches about the invoice's unknown attempts; false when it teaches
// nothing (the call failed, or the answer is about another invoice).
//
// transaction_status Completed, Success or Refunded (a refund comes after
// a taken sale) means the sale was taken; Failed means it was not (the
// invoice is used: a re-send is answered status_code 3, charging nothing);
// Pending, or status_code 69, means not finished yet; status_code 31 means
// the gateway has no transaction. Anything else leaves the outcome unknown.
func LearnFromStatus(invoice string, res *gateway.CheckStatusResult, err error) (Learned, bool) {
	var apiErr *gateway.APIError
	if err != nil {
		if !errors.As(err, &apiErr) || !apiErr.HasStatusCode {
			return Learned{}, false
		}
		code := apiErr.StatusCode
		switch {
		case errors.Is(err, gateway.ErrNotFound):
			return Learned{Outcome: NotFound, StatusCode: &code, Message: apiErr.Description}, true
		case errors.Is(err, gateway.ErrPending):
			return Learned{Outcome: Pending, StatusCode: &code, Message: apiErr.Description}, true
		}
		return Learned{}, false
	}
	if res == nil || (res.InvoiceID != "" && res.InvoiceID != invoice) {
		return Learned{}, false
	}
	code := res.StatusCode
	l := Learned{StatusCode: &code, OrderNo: res.OrderID, TransactionStatus: res.TransactionStatus, Message: res.StatusDescription}
	switch strings.ToLower(strings.TrimSpace(res.TransactionStatus)) {
	case "completed", "success", "successful", "refunded", "partially refunded", "partial refunded":
		l.Outcome = Succeeded
	case "failed", "fail":
		l.Outcome = Declined
	case "pending":
		l.Outcome = Pending
	default:
		l.Outcome = Unknown
		l.Message = fmt.Sprintf("transaction_status %q is not understood; check the transaction with the gateway", res.TransactionStatus)
	}
	return l, true
}

// Unresolved returns the attempts of scope for invoice (every invoice when
// invoice is "") whose outcome is unknown, as ByInvoice counts them: the
// scope's own and legacy ones at the same base URL.
func Unresolved(attempts []Attempt, scope Scope, invoice string) []Attempt {
	var out []Attempt
	for _, a := range attempts {
		if (invoice == "" || a.Intent.Invoice == invoice) && a.Class() == Unknown && scope.InScope(a) {
			out = append(out, a)
		}
	}
	return out
}

// Reconcile appends a reconcile line recording l for each attempt (see
// Unresolved), stamped with the scope's identity, the time and via (the
// command that asked).
func (j *Journal) Reconcile(attempts []Attempt, scope Scope, l Learned, via string, now time.Time) error {
	for _, a := range attempts {
		e := Entry{
			Type: TypeReconcile, Kind: a.Intent.OpKind(), Gateway: scope.Gateway, Attempt: a.Intent.Attempt,
			Time: now.UTC(), Profile: a.Intent.Profile, BaseURL: a.Intent.BaseURL, Invoice: a.Intent.Invoice,
			Amount: a.Intent.Amount, Currency: a.Intent.Currency, Card: a.Intent.Card, Wallet: a.Intent.Wallet,
			Outcome: l.Outcome, StatusCode: l.StatusCode, OrderNo: l.OrderNo, Message: l.Message,
			TransactionStatus: l.TransactionStatus, Via: via,
		}
		if err := j.Append(e); err != nil {
			return err
		}
	}
	return nil
}

// KindsCheckedByStatus are the operation kinds whose outcome the
// check-status call decides: those that make a sale. (A refund's outcome
// is not the sale's transaction_status.)
var KindsCheckedByStatus = []string{KindWalletPay}

// SettledByReconcile reports whether `paycli journal reconcile` settles
// an unknown attempt of kind: the sales the check-status call decides
// (KindsCheckedByStatus) and refunds, which its refund info decides.
// Pre-authorization captures and cancels, 3D completions and api calls
// it does not: `paycli status` shows where such a payment stands.
func SettledByReconcile(kind string) bool {
	return kind == KindRefund || slices.Contains(KindsCheckedByStatus, kind)
}

// RecordLearned appends a reconcile line recording l for each attempt of
// scope for invoice, among attempts, whose outcome is unknown (see
// Unresolved), and returns those attempts. With none, the journal at path
// is left untouched (not even created). attempts must hold the invoice's
// attempts (journalindex.Lookup reads just those).
func RecordLearned(path string, attempts []Attempt, scope Scope, invoice string, l Learned, via string, now time.Time) ([]Attempt, error) {
	open := Unresolved(attempts, scope, invoice)
	if len(open) == 0 {
		return nil, nil
	}
	j, err := Open(path)
	if err != nil {
		return nil, err
	}
	if err := j.Reconcile(open, scope, l, via, now); err != nil {
		_ = j.Close()
		return nil, err
	}
	return open, j.Close()
}

// LearnRefundFromStatus turns a check-status answer with refund info for
// invoice into what it teaches about the refund whose
// refund_transaction_id is ref: listed in refund_info, the refund was made
// (Succeeded); not listed, it was not (NotFound: nothing was refunded, the
// invoice may be refunded again); no sale with the invoice (status_code
// 31), NotFound too. An answer without refund_info (asked without
// show_refund_info), about another invoice, or a failed call teaches
// nothing (false).
func LearnRefundFromStatus(invoice, ref string, res *gateway.CheckStatusResult, err error) (Learned, bool) {
	if err != nil {
		var apiErr *gateway.APIError
		if errors.As(err, &apiErr) && apiErr.HasStatusCode && errors.Is(err, gateway.ErrNotFound) {
			code := apiErr.StatusCode
			return Learned{Outcome: NotFound, StatusCode: &code, Message: "the gateway has no sale with this invoice: nothing was refunded"}, true
		}
		return Learned{}, false
	}
	if res == nil || ref == "" || (res.InvoiceID != "" && res.InvoiceID != invoice) {
		return Learned{}, false
	}
	if _, asked := res.Extra["refund_info"]; !asked {
		return Learned{}, false
	}
	refunds, rerr := res.Refunds()
	if rerr != nil {
		return Learned{}, false
	}
	code := res.StatusCode
	l := Learned{StatusCode: &code, OrderNo: res.OrderID, TransactionStatus: res.TransactionStatus}
	for _, r := range refunds {
		if r.RefundTransactionID == ref {
			l.Outcome = Succeeded
			l.Message = fmt.Sprintf("refund_info lists refund_transaction_id %s (%s): the refund was made", ref, r.Status)
			return l, true
		}
	}
	l.Outcome = NotFound
	l.Message = fmt.Sprintf("refund_info does not list refund_transaction_id %s: nothing was refunded", ref)
	return l, true
}

// UnresolvedRefunds returns the refund attempts of scope for invoice
// (every invoice when invoice is "") whose outcome is unknown and whose
// refund (its Ref) no later attempt settled: a --retry answered 104 or
// 100 tells the refund's story for every attempt of it.
func UnresolvedRefunds(attempts []Attempt, scope Scope, invoice string) []Attempt {
	last := map[string]Attempt{}
	for _, a := range attempts {
		if a.Intent.Ref != "" && scope.InScope(a) {
			last[a.Intent.Ref] = a
		}
	}
	var out []Attempt
	for _, a := range Unresolved(attempts, scope, invoice) {
		if a.Intent.Ref != "" && last[a.Intent.Ref].Class() == Unknown {
			out = append(out, a)
		}
	}
	return out
}

// RecordRefundsLearned appends a reconcile line for each refund attempt of
// scope for invoice whose outcome is unknown (UnresolvedRefunds), with
// what the check-status answer res (or its error err) teaches about its
// refund_transaction_id, and returns the attempts it settled (with their
// reconciliation). attempts must hold the invoice's attempts.
func RecordRefundsLearned(path string, attempts []Attempt, scope Scope, invoice string, res *gateway.CheckStatusResult, err error,
	via string, now time.Time) ([]Attempt, error) {
	var j *Journal
	var settled []Attempt
	for _, a := range UnresolvedRefunds(attempts, scope, invoice) {
		l, ok := LearnRefundFromStatus(invoice, a.Intent.Ref, res, err)
		if !ok {
			continue
		}
		if j == nil {
			var oerr error
			if j, oerr = Open(path); oerr != nil {
				return settled, oerr
			}
			defer j.Close()
		}
		if rerr := j.Reconcile([]Attempt{a}, scope, l, via, now); rerr != nil {
			return settled, rerr
		}
		if l.Settled() {
			a.Reconciled = &Entry{Type: TypeReconcile, Attempt: a.Intent.Attempt, Outcome: l.Outcome, StatusCode: l.StatusCode,
				OrderNo: l.OrderNo, Message: l.Message, TransactionStatus: l.TransactionStatus, Via: via, Time: now.UTC()}
			settled = append(settled, a)
		}
	}
	return settled, nil
}
