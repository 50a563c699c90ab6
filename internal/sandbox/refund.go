package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shopspring/decimal"
)

// refusal is an application answer a store update chose: the update wrote
// nothing, and the request is answered with code and desc.
type refusal struct {
	code int
	desc string
}

func (r *refusal) Error() string { return fmt.Sprintf("%d %s", r.code, r.desc) }

// writeRefusal answers err when it is a refusal, or as an internal error
// (31 for an unknown invoice).
func writeRefusal(w http.ResponseWriter, err error) {
	var rf *refusal
	switch {
	case errors.As(err, &rf):
		writeStatus(w, rf.code, rf.desc)
	case errors.Is(err, ErrNotFound):
		writeStatus(w, 31, "Transaction not found")
	default:
		writeInternal(w, err)
	}
}

// refundAnswer is the answer of /api/refund: its fields at the top level.
type refundAnswer struct {
	StatusCode        int      `json:"status_code"`
	StatusDescription string   `json:"status_description"`
	OrderNo           wireText `json:"order_no"`
	InvoiceID         wireText `json:"invoice_id"`
	RefNo             string   `json:"ref_no"`
	RefNumber         string   `json:"ref_number"`
}

// refund serves POST /api/refund. Checks run in this order: fields,
// app_id and app_secret (30), merchant_key (14), hash_key with the refund
// layout amount|invoice_id|merchant_key (90, 68), amount (1); then, in the
// transaction that records the refund: a refund_transaction_id used before
// (104), an unknown invoice (31), a sale not refundable in its state (49),
// more decimals than the sale's currency (1), a partial refund where the
// merchant may not make them (110), more than what remains refundable
// (49). An amount ending in .01 is queued for approval (101); anything else
// is refunded (100). Every answered refund is committed before its
// answer, and racing refunds of one sale are serialized by the store.
func (g *Gateway) refund(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opRefund.required...) {
		return
	}
	if f.get("app_id") != g.opts.Credentials.AppID || f.get("app_secret") != g.opts.Credentials.AppSecret {
		writeStatus(w, 30, "Invalid credentials")
		return
	}
	invoiceID := f.get("invoice_id")
	if !g.verifyMerchant(w, f) || !g.verifyHash(w, f, "refund", "request", map[string]string{
		"amount": f.get("amount"), "invoice_id": invoiceID, "merchant_key": g.opts.Credentials.MerchantKey}) {
		return
	}
	amount, ok := parseAmount(w, "amount", f.get("amount"), "")
	if !ok {
		return
	}
	rtid := f.get("refund_transaction_id")
	if len(rtid) > maxInvoiceIDLen {
		writeStatus(w, 1, fmt.Sprintf("The refund transaction id may not be longer than %d characters.", maxInvoiceIDLen))
		return
	}
	now := g.opts.Now()
	var answer refundAnswer
	_, err := g.opts.Store.Update(invoiceID, func(s *Sale, tx *Tx) error {
		if rtid != "" && tx.RefundInvoice(rtid) != "" {
			return &refusal{104, "The refund transaction id was already used; this refund was already made"}
		}
		return g.applyRefund(s, tx, amount, rtid, f.get("refund_web_hook_key"), now, &answer)
	})
	if err != nil {
		writeRefusal(w, err)
		return
	}
	g.dialect.shapeRefund(&answer)
	writeJSON(w, http.StatusOK, answer)
}

// applyRefund checks and records one refund of s inside a store update.
func (g *Gateway) applyRefund(s *Sale, tx *Tx, amount decimal.Decimal, rtid, webHookKey string, now time.Time, answer *refundAnswer) error {
	minor := minorUnit(s.Currency)
	switch {
	case s.State == StatePending || s.State == StateProcessing || s.State == StateAwaiting3D || s.State == StateAwaitingCompletion:
		return &refusal{49, "Refund failed: the sale is not completed yet"}
	case s.State != StateCompleted:
		return &refusal{49, "Refund failed: the sale was not charged"}
	case s.PreAuth != nil && s.PreAuth.State == PreAuthOpen:
		return &refusal{49, "Refund failed: the pre-authorization is not captured; cancel it with confirmPayment"}
	case s.PreAuth != nil && s.PreAuth.State == PreAuthCancelled:
		return &refusal{49, "Refund failed: the pre-authorization was cancelled"}
	case !amount.Equal(amount.Round(minor)):
		return &refusal{1, fmt.Sprintf("The amount has more decimals than %s has (%d).", s.Currency, minor)}
	}
	remaining := s.Refundable()
	if g.opts.NoPartialRefunds && (len(s.Refunds) > 0 || !amount.Equal(s.Charged())) {
		return &refusal{110, "Partial refund is not allowed for this merchant"}
	}
	if !remaining.IsPositive() {
		return &refusal{49, "Refund failed: the sale is already fully refunded"}
	}
	if amount.GreaterThan(remaining) {
		return &refusal{49, fmt.Sprintf("Refund failed: the amount is more than the refundable %s %s", remaining.StringFixed(minor), s.Currency)}
	}
	n := len(s.Refunds) + 1
	if rtid == "" {
		rtid = fmt.Sprintf("SBX-R-%s-%d", s.OrderID, n)
	}
	_, ref := providerReferences(fmt.Sprintf("%s/refund/%d", s.OrderID, n))
	rf := Refund{TransactionID: rtid, Amount: amount.StringFixed(minor), Status: RefundCompleted, RefNo: ref,
		WebHookKey: webHookKey, CreatedAt: now}
	*answer = refundAnswer{StatusCode: 100, StatusDescription: "Refund completed successfully",
		OrderNo: textOf(s.OrderID), InvoiceID: textOf(s.InvoiceID), RefNo: ref, RefNumber: ref}
	if cents := amount.Sub(amount.Floor()); cents.Equal(decimal.New(1, -2)) {
		rf.Status = RefundPendingApproval
		answer.StatusCode, answer.StatusDescription = 101, "Refund request created; it waits for approval"
	}
	s.Refunds = append(s.Refunds, rf)
	if webHookKey != "" {
		s.RefundWebHookKey = webHookKey
	}
	s.UpdatedAt = now
	return tx.UseRefundID(rtid, s.InvoiceID)
}
