package sandbox

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// Who completes a 3D payment after its challenge: the gateway itself
// ("app", the default) or the merchant, with /payment/complete.
const (
	CompletedByApp      = "app"
	CompletedByMerchant = "merchant"
)

// ChallengePath is where the sandbox's 3D challenge is answered: POST
// order_id and decision ("approve" or "decline"). It is the sandbox's own
// stand-in for the card issuer's page, not part of the gateway's API.
const ChallengePath = "/__sandbox/3d/challenge"

// paySmart3D serves POST /api/paySmart3D (a browser form, or JSON): the
// card payment is checked as paySmart2D checks it, stored waiting for its
// challenge, and answered with an HTML page holding the challenge. The
// sale's outcome is decided when the challenge is answered.
func (g *Gateway) paySmart3D(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFieldsNested(w, r, "items")
	if !ok {
		return
	}
	by := f.get("payment_completed_by")
	switch by {
	case "":
		by = CompletedByApp
	case CompletedByApp, CompletedByMerchant:
	default:
		writeStatus(w, 1, "The selected payment completed by is invalid (app or merchant).")
		return
	}
	returnURL, cancelURL := f.get("return_url"), f.get("cancel_url")
	for _, u := range []string{returnURL, cancelURL} {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			writeStatus(w, 1, "The return url and cancel url must be http or https URLs.")
			return
		}
	}
	now := g.opts.Now()
	p, ok := g.readCardPayment(w, f, now)
	if !ok {
		return
	}
	release, ok := g.reserveFresh(w, p.invoiceID)
	if !ok {
		return
	}
	defer release()
	sale := g.newCardSale(p, KindCard3D, now)
	sale.State = StateAwaiting3D
	sale.ThreeD = &ThreeD{CompletedBy: by, ReturnURL: returnURL, CancelURL: cancelURL}
	if !g.commitSale(w, sale) {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = challengePage.Execute(w, map[string]string{"Action": Base + ChallengePath, "OrderID": sale.OrderID,
		"Amount": sale.Amount, "Currency": sale.Currency, "Card": maskCard(sale.CardBIN, sale.CardLast4)})
}

var challengePage = template.Must(template.New("challenge").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>paycli sandbox: 3D Secure challenge</title></head>
<body><h1>paycli sandbox: 3D Secure challenge</h1>
<p>This is a sandbox; no money moves. Pay {{.Amount}} {{.Currency}} with {{.Card}}?</p>
<form method="post" action="{{.Action}}"><input type="hidden" name="order_id" value="{{.OrderID}}">
<button name="decision" value="approve">Approve</button> <button name="decision" value="decline">Decline</button></form>
</body></html>
`))

// challengeResult is what reaches the merchant's return_url (approved) or
// cancel_url (declined) after the challenge.
type challengeResult struct {
	URL                string `json:"url"`
	StatusCode         int    `json:"status_code"`
	StatusDescription  string `json:"status_description"`
	SipayStatus        int    `json:"sipay_status"`
	OrderNo            string `json:"order_no"`
	OrderID            string `json:"order_id"`
	InvoiceID          string `json:"invoice_id"`
	Status             string `json:"status"`
	Total              string `json:"total"`
	CurrencyCode       string `json:"currency_code"`
	TransactionType    string `json:"transaction_type"`
	PaymentStatus      int    `json:"payment_status"`
	PaymentCompletedBy string `json:"payment_completed_by"`
	HashKey            string `json:"hash_key"`
}

// challenge answers a sale's 3D challenge: decline fails the sale;
// approve runs the simulated provider, and a sale the merchant completes
// then waits for /payment/complete. The result is committed before the
// answer. A client asking for JSON (Accept: application/json) gets the
// result as JSON; a browser gets a page that posts it to return_url or
// cancel_url.
func (g *Gateway) challenge(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, "order_id", "decision") {
		return
	}
	decision := f.get("decision")
	if decision != "approve" && decision != "decline" {
		writeStatus(w, 1, "The decision must be approve or decline.")
		return
	}
	invoiceID, found, err := g.opts.Store.InvoiceOfOrder(f.get("order_id"))
	if err != nil {
		writeInternal(w, err)
		return
	}
	if !found {
		writeStatus(w, 31, "Transaction not found")
		return
	}
	now := g.opts.Now()
	var code int
	var desc string
	sale, err := g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
		if s.State != StateAwaiting3D {
			return &refusal{117, "The 3D challenge of this sale was already answered."}
		}
		s.UpdatedAt = now
		if decision == "decline" {
			s.State = StateFailed
			s.PaymentReasonCode, s.PaymentReasonCodeDetail = "3D", "3D Secure authentication failed"
			code, desc = 41, "Payment failed: 3D Secure authentication failed"
			return nil
		}
		code, desc = decide(s, testCardOf(s.CardBIN, s.CardLast4))
		if s.State == StateCompleted && s.ThreeD.CompletedBy == CompletedByMerchant {
			s.State = StateAwaitingCompletion
			desc = "3D Secure approved; the merchant completes the payment"
		}
		return nil
	})
	if err != nil {
		writeRefusal(w, err)
		return
	}
	hk, err := g.saleHash(sale)
	if err != nil {
		writeInternal(w, err)
		return
	}
	res := challengeResult{URL: sale.ThreeD.ReturnURL, StatusCode: code, StatusDescription: desc, OrderNo: sale.OrderID,
		OrderID: sale.OrderID, InvoiceID: sale.InvoiceID, Total: sale.Amount, CurrencyCode: sale.Currency,
		TransactionType: sale.TransactionType, PaymentCompletedBy: sale.ThreeD.CompletedBy, HashKey: hk, Status: "0"}
	if sale.State == StateCompleted {
		res.SipayStatus, res.PaymentStatus, res.Status = 1, 1, "1"
	}
	if code != 100 {
		res.URL = sale.ThreeD.CancelURL
	}
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		writeJSON(w, http.StatusOK, res)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = resultPage.Execute(w, res)
}

var resultPage = template.Must(template.New("result").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>paycli sandbox: 3D Secure result</title></head>
<body><h1>paycli sandbox: {{.StatusDescription}}</h1><p>This is a sandbox; no money moves.</p>
<form method="post" action="{{.URL}}">
<input type="hidden" name="status_code" value="{{.StatusCode}}"><input type="hidden" name="status_description" value="{{.StatusDescription}}">
<input type="hidden" name="sipay_status" value="{{.SipayStatus}}"><input type="hidden" name="order_no" value="{{.OrderNo}}">
<input type="hidden" name="order_id" value="{{.OrderID}}"><input type="hidden" name="invoice_id" value="{{.InvoiceID}}">
<input type="hidden" name="status" value="{{.Status}}"><input type="hidden" name="total" value="{{.Total}}">
<input type="hidden" name="currency_code" value="{{.CurrencyCode}}"><input type="hidden" name="transaction_type" value="{{.TransactionType}}">
<input type="hidden" name="payment_status" value="{{.PaymentStatus}}"><input type="hidden" name="payment_completed_by" value="{{.PaymentCompletedBy}}">
<input type="hidden" name="hash_key" value="{{.HashKey}}">
<button>Return to the merchant</button></form></body></html>
`))
