package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/contact"
)

// LinkPath is where a payment link's page is served under Base, followed
// by the link's id. Like the 3D challenge, it is the sandbox's stand-in
// for a page of the gateway's, not part of the merchant API.
const LinkPath = "/__sandbox/link/"

// maxLinkInstallments bounds a link's max_installment.
const maxLinkInstallments = 12

// linkAnswer is the answer of /purchase/link, with the fields the
// gateway's PHP SDK reads (PaymentLinkMapper) at the top level.
type linkAnswer struct {
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description"`
	SuccessMessage    string `json:"success_message"`
	Link              string `json:"link"`
	OrderID           string `json:"order_id"`
}

// purchaseLink serves POST /purchase/link: merchant_key, name, surname,
// currency_code and invoice, a JSON object (or a string holding one, as
// the SDK sends it) with invoice_id, total, items, max_installment,
// return_url, cancel_url, invoice_description, bill_*, transaction_type
// and a hash_key with the link layout
// total|currency_code|merchant_key|invoice_id. Checks: fields (1),
// merchant_key (14), the invoice's fields (1, bill_email and bill_phone
// included), currency (1, 12), hash_key
// (90, 68), items (12), an invoice already used by any payment (3). The
// sale is stored at once, waiting for the buyer (so the invoice is
// taken), and the answer's link opens its page.
func (g *Gateway) purchaseLink(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFieldsNested(w, r, "invoice")
	if !ok || !f.requireFields(w, opPurchaseLink.required...) || !g.verifyMerchant(w, f) {
		return
	}
	inv, msg := objectFields(f.get("invoice"), "items")
	if msg != "" {
		writeStatus(w, 1, "The invoice must be a JSON object of the invoice's fields.")
		return
	}
	if !inv.requireFields(w, linkInvoiceFields...) {
		return
	}
	invoiceID := inv.get("invoice_id")
	if !checkInvoiceID(w, invoiceID) {
		return
	}
	currency, ok := g.linkCurrency(w, f, inv)
	if !ok {
		return
	}
	total, ok := parseAmount(w, "total", inv.get("total"), currency)
	if !ok {
		return
	}
	terms, ok := readLinkTerms(w, inv)
	if !ok || !checkLinkContact(w, inv) {
		return
	}
	if !g.verifyHash(w, inv, "link", "invoice", map[string]string{"total": inv.get("total"), "currency_code": currency,
		"merchant_key": g.opts.Credentials.MerchantKey, "invoice_id": invoiceID}) {
		return
	}
	if items := inv.get("items"); items != "" && !checkItems(w, items, total) {
		return
	}
	id, err := newCardToken()
	if err != nil {
		writeInternal(w, err)
		return
	}
	release, ok := g.reserveFresh(w, invoiceID)
	if !ok {
		return
	}
	defer release()
	now := g.opts.Now()
	sale := Sale{InvoiceID: invoiceID, OrderID: g.opts.NewOrderID(), Kind: KindLink, TransactionType: terms.transactionType,
		State: StateAwaitingPayment, Amount: total.StringFixed(minorUnit(currency)), Currency: currency, Installment: 1,
		ThreeD: &terms.threeD, Link: &Link{ID: id, Description: terms.description, MaxInstallment: terms.maxInstallment},
		SaleWebHookKey: inv.get("sale_web_hook_key"), CreatedAt: now, UpdatedAt: now}
	if !g.commitSale(w, sale) {
		return
	}
	writeJSON(w, http.StatusOK, linkAnswer{StatusCode: 100, StatusDescription: "Payment link created",
		SuccessMessage: "Payment link created", Link: "http://" + r.Host + Base + LinkPath + id, OrderID: sale.OrderID})
}

// linkCurrency is a link's currency, from the request or its invoice,
// refused unless the merchant accepts it.
func (g *Gateway) linkCurrency(w http.ResponseWriter, f, inv fields) (string, bool) {
	currency := f.get("currency_code")
	if currency == "" {
		currency = inv.get("currency_code")
	}
	if !isUpperAlpha(currency, 3) {
		writeStatus(w, 1, "The currency code must be 3 letters.")
		return "", false
	}
	if _, known := g.opts.Schedule.Currencies[currency]; !known {
		writeStatus(w, 12, fmt.Sprintf("Invalid currency: %s is not accepted", currency))
		return "", false
	}
	return currency, true
}

// linkTerms are what a payment link offers its buyer besides the amount.
type linkTerms struct {
	maxInstallment  int
	threeD          ThreeD
	transactionType string
	description     string
}

// readLinkTerms reads a link's terms from its invoice object; a refused
// one is answered (1) and ok is false.
func readLinkTerms(w http.ResponseWriter, inv fields) (linkTerms, bool) {
	t := linkTerms{maxInstallment: 1}
	if v := inv.get("max_installment"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLinkInstallments {
			writeStatus(w, 1, fmt.Sprintf("The max installment must be a whole number from 1 to %d.", maxLinkInstallments))
			return t, false
		}
		t.maxInstallment = n
	}
	t.threeD = ThreeD{CompletedBy: CompletedByApp, ReturnURL: inv.get("return_url"), CancelURL: inv.get("cancel_url")}
	if !webURL(t.threeD.ReturnURL) || !webURL(t.threeD.CancelURL) {
		writeStatus(w, 1, "The return url and cancel url must be http or https URLs.")
		return t, false
	}
	t.transactionType = inv.get("transaction_type")
	switch t.transactionType {
	case "":
		t.transactionType = TypeAuth
	case TypeAuth, TypePreAuth:
	default:
		writeStatus(w, 1, "The selected transaction type is invalid (Auth or PreAuth).")
		return t, false
	}
	t.description = inv.get("invoice_description")
	if utf8.RuneCountInString(t.description) > 255 {
		writeStatus(w, 1, "The invoice description may not be longer than 255 characters.")
		return t, false
	}
	return t, true
}

// checkLinkContact refuses (1) a link invoice's bill_email that is not one
// plain address, or a bill_phone that is not 10 to 15 digits, as the SDK's
// sample sends it ("905555555555"): the readings of internal/contact.
func checkLinkContact(w http.ResponseWriter, inv fields) bool {
	if email := inv.get("bill_email"); email != "" && contact.Email(email) != nil {
		explain(w, explanation{field: "bill_email", why: "malformed field bill_email: not one plain e-mail address (name@example.com, without a display name)"})
		writeStatus(w, 1, "The bill email must be a valid email address.")
		return false
	}
	if phone := inv.get("bill_phone"); phone != "" {
		if digits, err := contact.Phone(phone); err != nil || digits != phone {
			explain(w, explanation{field: "bill_phone", why: "malformed field bill_phone: not 10 to 15 digits with the country code, without blanks or a plus sign (905555555555)"})
			writeStatus(w, 1, "The bill phone must be 10 to 15 digits.")
			return false
		}
	}
	return true
}

// linkView is what the link page shows.
type linkView struct {
	Action, InvoiceID, Description, Amount, Currency, Holder, Error string
	Installments                                                    []int
}

func linkViewOf(sale Sale) linkView {
	v := linkView{Action: Base + LinkPath + sale.Link.ID, InvoiceID: sale.InvoiceID, Description: sale.Link.Description,
		Amount: sale.Amount, Currency: sale.Currency}
	for n := 1; n <= sale.Link.MaxInstallment; n++ {
		v.Installments = append(v.Installments, n)
	}
	return v
}

// linkSale finds the sale of the link named by the request's path,
// answering a page itself when ok is false.
func (g *Gateway) linkSale(w http.ResponseWriter, r *http.Request) (sale Sale, ok bool) {
	invoiceID, found, err := g.opts.Store.InvoiceOfLink(r.PathValue("id"))
	if err == nil && found {
		sale, found, err = g.opts.Store.Get(invoiceID)
	}
	switch {
	case err != nil:
		explain(w, explanation{why: "the sandbox itself failed (its store): " + err.Error()})
		writePage(w, http.StatusInternalServerError, linkDonePage, map[string]string{"Title": "Sandbox error", "Text": err.Error()})
		return sale, false
	case !found:
		explain(w, explanation{why: "no payment link with this id in this sandbox (unknown, or forgotten by a reset)"})
		writePage(w, http.StatusNotFound, linkDonePage, map[string]string{"Title": "No such payment link",
			"Text": "This sandbox has no payment link at this address (a `paycli sandbox reset` forgets every link)."})
		return sale, false
	}
	return sale, true
}

// linkPage serves GET of a payment link: the card form while the link
// waits for its buyer, the challenge again while its 3D step is open, and
// what became of the payment after.
func (g *Gateway) linkPage(w http.ResponseWriter, r *http.Request) {
	sale, ok := g.linkSale(w, r)
	if !ok {
		return
	}
	switch sale.State {
	case StateAwaitingPayment:
		writePage(w, http.StatusOK, linkPage, linkViewOf(sale))
	case StateAwaiting3D:
		writePage(w, http.StatusOK, challengePage, challengeView(sale))
	default:
		writeLinkDone(w, sale)
	}
}

func writeLinkDone(w http.ResponseWriter, sale Sale) {
	text := "The payment of invoice " + sale.InvoiceID + " through this link "
	switch sale.State {
	case StateCompleted:
		text += "went through."
	case StateFailed:
		text += "failed: " + sale.PaymentReasonCodeDetail + "."
	case StateAwaiting3D:
		text += "is waiting for its 3D Secure step."
	default:
		text += "is " + sale.State + "."
	}
	writePage(w, http.StatusOK, linkDonePage, map[string]string{"Title": "This link was used", "Text": text})
}

// payLink serves the POST of a link's card form: the card is checked and
// priced as a payment's (the installments at most the link's
// max_installment), the link's sale takes the card and waits for its 3D
// challenge, committed before the challenge page is answered. A form with
// a mistake is shown again saying what is wrong (never echoing the card
// number).
func (g *Gateway) payLink(w http.ResponseWriter, r *http.Request) {
	sale, ok := g.linkSale(w, r)
	if !ok {
		return
	}
	if sale.State != StateAwaitingPayment {
		writeLinkDone(w, sale)
		return
	}
	now := g.opts.Now()
	view := linkViewOf(sale)
	p, msg := g.readLinkForm(w, r, sale, &view, now)
	if msg != "" {
		view.Error = msg
		explain(w, explanation{why: "the payment link's card form was refused: " + msg})
		writePage(w, http.StatusBadRequest, linkPage, view)
		return
	}
	g.takeLinkCard(w, sale.InvoiceID, g.newCardSale(p, KindLink, now))
}

// readLinkForm reads the card form of a link's page into the payment it
// makes, priced as a card payment's; msg says what is wrong with it, for
// the form shown again. view gets the holder's name as typed.
func (g *Gateway) readLinkForm(w http.ResponseWriter, r *http.Request, sale Sale, view *linkView, now time.Time) (p cardPayment, msg string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.opts.MaxBodyBytes))
	if err != nil {
		return p, "The form could not be read."
	}
	q, err := url.ParseQuery(string(body))
	if err != nil {
		return p, "The form could not be read."
	}
	f := fields{}
	for k, v := range q {
		f[k] = v[0]
	}
	view.Holder = f.get("cc_holder_name")
	if view.Holder == "" {
		return p, "The name on the card is required."
	}
	c, msg := readCard(f, now)
	if msg != "" {
		return p, msg
	}
	n, err := strconv.Atoi(f.get("installments_number"))
	if err != nil || n < 1 || n > sale.Link.MaxInstallment {
		return p, fmt.Sprintf("Choose from 1 to %d installments.", sale.Link.MaxInstallment)
	}
	total, _ := decimal.NewFromString(sale.Amount)
	opts, _, err := g.opts.Schedule.options(sale.Currency, c.bin, total, false)
	if err != nil {
		return p, "The sandbox could not price this card: " + err.Error()
	}
	option, offered := findOption(opts, n)
	if !offered {
		return p, fmt.Sprintf("%d installments are not offered for this card (offered: %s).", n, offeredCounts(opts))
	}
	return cardPayment{invoiceID: sale.InvoiceID, currency: sale.Currency, total: total, installment: n,
		txType: sale.TransactionType, card: c.card, bin: c.bin, last4: c.last4, holder: c.holder, option: option,
		webHookKey: sale.SaleWebHookKey}, ""
}

// takeLinkCard puts the priced card sale in the place of the link's
// waiting sale, unless a buyer did first, and answers the 3D challenge.
func (g *Gateway) takeLinkCard(w http.ResponseWriter, invoiceID string, priced Sale) {
	sale, err := g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
		if s.State != StateAwaitingPayment {
			return &refusal{117, "The link was already used."}
		}
		next := priced
		next.OrderID, next.CreatedAt, next.Link, next.ThreeD = s.OrderID, s.CreatedAt, s.Link, s.ThreeD
		next.State = StateAwaiting3D
		*s = next
		return nil
	})
	var rf *refusal
	switch {
	case errors.As(err, &rf):
		current, _, gerr := g.opts.Store.Get(invoiceID)
		if gerr != nil {
			explain(w, explanation{why: "the sandbox itself failed (its store): " + gerr.Error()})
			writePage(w, http.StatusInternalServerError, linkDonePage, map[string]string{"Title": "Sandbox error", "Text": gerr.Error()})
			return
		}
		writeLinkDone(w, current)
		return
	case err != nil:
		explain(w, explanation{why: "the sandbox itself failed (its store): " + err.Error()})
		writePage(w, http.StatusInternalServerError, linkDonePage, map[string]string{"Title": "Sandbox error", "Text": err.Error()})
		return
	}
	writePage(w, http.StatusOK, challengePage, challengeView(sale))
}
