package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shopspring/decimal"
)

// confirmAnswer is the answer of /api/confirmPayment, at the top level.
type confirmAnswer struct {
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description"`
	TransactionStatus string `json:"transaction_status"`
	OrderID           string `json:"order_id"`
	InvoiceID         string `json:"invoice_id"`
	Amount            string `json:"amount"`
}

// confirmPayment serves POST /api/confirmPayment: status 1 captures an
// open pre-authorization (all of it, or total when given, at most the held
// amount), status 2 cancels it. Checks: fields, status (1), merchant_key
// (14), hash_key with the confirm layout merchant_key|invoice_id|status
// (90, 68); then in the transaction that records the result: an unknown
// invoice (31), a sale that is not a pre-authorization or not authorized
// (1), one already captured or cancelled (117: never captured twice,
// never captured after a cancel), a total above the held amount or with
// more decimals than the currency (1).
func (g *Gateway) confirmPayment(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opConfirmPayment.required...) {
		return
	}
	status := f.get("status")
	if status != "1" && status != "2" {
		writeStatus(w, 1, "The selected status is invalid (1 capture, 2 cancel).")
		return
	}
	invoiceID := f.get("invoice_id")
	if !g.verifyMerchant(w, f) || !g.verifyHash(w, f, "confirm", "request", map[string]string{
		"merchant_key": g.opts.Credentials.MerchantKey, "invoice_id": invoiceID, "status": status}) {
		return
	}
	var total decimal.Decimal
	if t := f.get("total"); t != "" && status == "1" {
		if total, ok = parseAmount(w, "total", t, ""); !ok {
			return
		}
	}
	now := g.opts.Now()
	sale, err := g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
		return confirm(s, status == "1", total, now)
	})
	if err != nil {
		writeRefusal(w, err)
		return
	}
	answer := confirmAnswer{StatusCode: 100, OrderID: sale.OrderID, InvoiceID: sale.InvoiceID}
	if sale.PreAuth.State == PreAuthCaptured {
		answer.StatusDescription, answer.TransactionStatus, answer.Amount = "Pre-authorization captured", "Completed", sale.PreAuth.Captured
	} else {
		answer.StatusDescription, answer.TransactionStatus, answer.Amount = "Pre-authorization cancelled", "Cancelled", "0"
	}
	writeJSON(w, http.StatusOK, answer)
}

// confirm captures (total zero: all of it) or cancels an open
// pre-authorization.
func confirm(s *Sale, capture bool, total decimal.Decimal, now time.Time) error {
	p := s.PreAuth
	switch {
	case p == nil:
		return &refusal{1, "The transaction is not a pre-authorization."}
	case s.State != StateCompleted:
		return &refusal{1, "The pre-authorization is not authorized (it failed or is still pending)."}
	case p.State == PreAuthCaptured:
		return &refusal{117, "The pre-authorization was already captured."}
	case p.State == PreAuthCancelled:
		return &refusal{117, "The pre-authorization was cancelled."}
	}
	held, _ := decimal.NewFromString(p.Held)
	minor := minorUnit(s.Currency)
	if capture {
		if total.IsZero() {
			total = held
		}
		if !total.Equal(total.Round(minor)) {
			return &refusal{1, fmt.Sprintf("The total has more decimals than %s has (%d).", s.Currency, minor)}
		}
		if total.GreaterThan(held) {
			return &refusal{1, fmt.Sprintf("The total is more than the pre-authorized %s %s.", p.Held, s.Currency)}
		}
		p.State, p.Captured = PreAuthCaptured, total.StringFixed(minor)
	} else {
		p.State = PreAuthCancelled
	}
	p.ResolvedAt = now
	s.UpdatedAt = now
	return nil
}

// pendingSaleRef is the data of payment/complete's 31: the sale asked for.
type pendingSaleRef struct {
	InvoiceID string `json:"invoice_id"`
	OrderID   string `json:"order_id"`
}

// completePayment serves POST /payment/complete (not under /api): the
// merchant completes (status "complete") or cancels ("cancel") a 3D sale
// made with payment_completed_by "merchant" whose challenge was approved.
// Checks: fields, status (1), merchant_key (14), hash_key with the complete
// layout merchant_key|invoice_id|order_id|status (90, 68); then an unknown
// invoice or an order id that is not the invoice's (31), a sale that is
// not waiting for the merchant (1), or one already completed or cancelled
// (117). The answer's data carries the sale (the SDK reads it there) with
// status_code and status_description, as QNBpay documents it; a 31's data
// names the invoice_id and order_id asked for.
func (g *Gateway) completePayment(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opCompletePayment.required...) {
		return
	}
	status := f.get("status")
	if status != "complete" && status != "cancel" {
		writeStatus(w, 1, "The selected status is invalid (complete or cancel).")
		return
	}
	invoiceID, orderID := f.get("invoice_id"), f.get("order_id")
	if !g.verifyMerchant(w, f) || !g.verifyHash(w, f, "complete", "request", map[string]string{
		"merchant_key": g.opts.Credentials.MerchantKey, "invoice_id": invoiceID, "order_id": orderID, "status": status}) {
		return
	}
	now := g.opts.Now()
	var code int
	var desc string
	sale, err := g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
		if s.OrderID != orderID {
			return &refusal{31, "Pending sale not found against order_id " + orderID}
		}
		switch {
		case s.ThreeD == nil || s.ThreeD.CompletedBy != CompletedByMerchant:
			return &refusal{1, "The sale is not a 3D payment completed by the merchant."}
		case s.State == StateAwaiting3D:
			return &refusal{1, "The 3D challenge of this sale was not answered yet."}
		case s.State != StateAwaitingCompletion:
			return &refusal{117, "The sale was already completed or cancelled."}
		}
		s.UpdatedAt = now
		if status == "cancel" {
			s.State = StateCancelled
			code, desc = 100, "Payment cancelled"
			return nil
		}
		// The provider approved at the challenge; completing only releases it.
		s.State = StateCompleted
		code, desc = 100, "Payment successfully completed"
		if s.PreAuth != nil {
			// Nothing is charged yet: the amount is held until
			// /api/confirmPayment captures or cancels it.
			desc = "Pre-authorization successfully completed: the amount is held until it is captured or cancelled"
		}
		return nil
	})
	var rf *refusal
	switch {
	case errors.Is(err, ErrNotFound) || errors.As(err, &rf) && rf.code == 31:
		// The documented answer names the sale it did not find under data.
		desc := "Pending sale not found against order_id " + orderID
		noteStatus(w, 31, desc)
		writeJSON(w, http.StatusOK, statusBody{StatusCode: 31, StatusDescription: desc, Data: pendingSaleRef{InvoiceID: invoiceID, OrderID: orderID}})
		return
	case err != nil:
		writeRefusal(w, err)
		return
	}
	res, err := g.cardResultOf(sale, code, desc)
	if err != nil {
		writeInternal(w, err)
		return
	}
	res.StatusCode, res.StatusDescription = &code, desc
	// The status is the one check status shows for the sale from now on.
	res.Status = "Completed"
	switch {
	case sale.State == StateCancelled:
		res.Status = "Cancelled"
	case sale.State != StateCompleted:
		res.Status = "Failed"
	case sale.PreAuth != nil:
		res.Status = "Pre-Authorized"
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: 100, StatusDescription: desc, Data: res})
}
