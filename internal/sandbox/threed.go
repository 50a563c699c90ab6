package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
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
	g.serve3D(w, r, func(w http.ResponseWriter, f fields, t ThreeD) {
		now := g.opts.Now()
		if p, ok := g.readCardPayment(w, f, now, nil); ok {
			g.start3D(w, p, t, KindCard3D, now)
		}
	})
}

// serve3D reads a 3D payment's fields and its targets (read3DTargets) and
// runs pay with them, its refusals posted to the cancel_url
// (refusedTo3DCancel): what every 3D payment path does around its own
// reading of the card.
func (g *Gateway) serve3D(w http.ResponseWriter, r *http.Request, pay func(http.ResponseWriter, fields, ThreeD)) {
	f, ok := g.readFieldsNested(w, r, "items")
	if !ok {
		return
	}
	t, ok := read3DTargets(w, f)
	if !ok {
		return
	}
	g.refusedTo3DCancel(w, t, f.get("invoice_id"), func(w http.ResponseWriter) { pay(w, f, t) })
}

// refusedTo3DCancel runs serve, a 3D payment whose buyer goes back to
// t.CancelURL, and answers what serve answered, except a refusal: that is
// the page that posts it to the cancel_url (error_code and status_code,
// e.g. 13 for items that do not add up to the total), as the gateway
// answers a 3D payment it refuses, as text/html whatever the client's
// Accept header asks (omnipay-sipay recorded it so).
func (g *Gateway) refusedTo3DCancel(w http.ResponseWriter, t ThreeD, invoiceID string, serve func(http.ResponseWriter)) {
	buf := &bufferedResponse{header: http.Header{}, code: http.StatusOK, rec: recordOf(w)}
	serve(buf)
	var refusal statusBody
	if buf.code == http.StatusOK && strings.HasPrefix(buf.header.Get("Content-Type"), "application/json") &&
		json.Unmarshal(buf.body.Bytes(), &refusal) == nil && refusal.StatusCode != 100 {
		writePage(w, http.StatusOK, threeDErrorPage, threeDRefusal{URL: t.CancelURL, InvoiceID: invoiceID,
			StatusCode: refusal.StatusCode, StatusDescription: refusal.StatusDescription})
		return
	}
	maps.Copy(w.Header(), buf.header)
	w.WriteHeader(buf.code)
	_, _ = w.Write(buf.body.Bytes())
}

// payByCardToken serves POST /api/payByCardToken: a 3D payment with a card
// saved for a customer (card_token and customer_number instead of the
// card's fields), answered like paySmart3D with the challenge page (the
// gateway's PHP SDK reads this answer as HTML).
func (g *Gateway) payByCardToken(w http.ResponseWriter, r *http.Request) {
	g.serve3D(w, r, func(w http.ResponseWriter, f fields, t ThreeD) {
		if !f.requireFields(w, savedCardFields...) {
			return
		}
		card, err := g.opts.Store.Card(f.get("card_token"), f.get("customer_number"))
		if errors.Is(err, ErrCardNotFound) {
			explain(w, explanation{field: "card_token", why: "the card_token is not a saved card of this customer_number: unknown, deleted, or saved for another customer"})
			writeStatus(w, 1, "The card token is not a saved card of this customer.")
			return
		} else if err != nil {
			writeInternal(w, err)
			return
		}
		now := g.opts.Now()
		if p, ok := g.readCardPayment(w, f, now, &card); ok {
			g.start3D(w, p, t, KindCardToken, now)
		}
	})
}

// read3DTargets reads who completes a 3D payment and where the buyer's
// browser goes after the challenge, answering 1 when ok is false.
func read3DTargets(w http.ResponseWriter, f fields) (t ThreeD, ok bool) {
	completedBy, ok := f.choice(w, "payment_completed_by", "The selected payment completed by is invalid (app or merchant).")
	if !ok {
		return t, false
	}
	t.CompletedBy = cmp.Or(completedBy, CompletedByApp)
	t.ReturnURL, t.CancelURL = f.get("return_url"), f.get("cancel_url")
	for _, name := range threeDTargets {
		if !webURL(f.get(name)) {
			explain(w, explanation{field: name, got: f.get(name), why: fmt.Sprintf("malformed field %s: not an absolute http or https URL (the buyer's browser goes back to it)", name)})
			break
		}
	}
	if !webURL(t.ReturnURL) || !webURL(t.CancelURL) {
		writeStatus(w, 1, "The return url and cancel url must be http or https URLs.")
		return t, false
	}
	return t, true
}

// webURL reports whether u is an absolute http or https URL.
func webURL(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != ""
}

// start3D stores a checked 3D payment waiting for its challenge (committed
// before the answer; 3 for an invoice already used by any kind of payment)
// and answers the challenge page.
func (g *Gateway) start3D(w http.ResponseWriter, p cardPayment, t ThreeD, kind string, now time.Time) {
	release, ok := g.reserveFresh(w, p.invoiceID)
	if !ok {
		return
	}
	defer release()
	sale := g.newCardSale(p, kind, now)
	sale.State = StateAwaiting3D
	sale.ThreeD = &t
	if !g.commitSale(w, sale) {
		return
	}
	writePage(w, http.StatusOK, challengePage, challengeView(sale))
}

// challengeView is what the challenge page shows of a sale.
func challengeView(sale Sale) map[string]string {
	return map[string]string{"Action": Base + ChallengePath, "OrderID": sale.OrderID,
		"Amount": sale.Amount, "Currency": sale.Currency, "Card": maskCard(sale.CardBIN, sale.CardLast4),
		"Installments": strconv.Itoa(sale.Installment)}
}

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
	if !ok || !f.requireFields(w, opChallenge.required...) {
		return
	}
	decision, ok := f.choice(w, "decision", "The decision must be approve or decline.")
	if !ok {
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
	var desc, why string
	sale, err := g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
		if s.State != StateAwaiting3D {
			return &refusal{117, "The 3D challenge of this sale was already answered."}
		}
		s.UpdatedAt = now
		if decision == "decline" {
			s.State = StateFailed
			s.PaymentReasonCode, s.PaymentReasonCodeDetail = "3D", "3D Secure authentication failed"
			code, desc = 41, "Payment failed: 3D Secure authentication failed"
			why = "declined at the 3D challenge: the Decline button was pressed"
			return nil
		}
		code, desc, why = decide(s, testCardOf(s.CardBIN, s.CardLast4))
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
	explain(w, explanation{why: why})
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		writeJSON(w, http.StatusOK, res)
		return
	}
	writePage(w, http.StatusOK, resultPage, res)
}
