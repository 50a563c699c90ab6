package sandbox

import (
	"bytes"
	"html/template"
	"net/http"
	"sync"
)

// The sandbox's web pages (the 3D challenge, its result, and the payment
// link page) stand in for the card issuer's and the gateway's pages. They
// work without JavaScript and load nothing from elsewhere: each is one
// HTML document with its style inline, sized for a phone, and says that
// it is a sandbox. html/template escapes everything they echo.
const pageHead = `{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>paycli sandbox: {{.}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:1rem;background:#f4f4f6;color:#111;line-height:1.4}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:.5rem;padding:1rem 1.25rem;box-shadow:0 1px 3px #0002}
.banner{background:#ffe08a;border:1px solid #c9a227;border-radius:.375rem;padding:.5rem .75rem;font-weight:600}
h1{font-size:1.25rem;margin:.75rem 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem}
dt{color:#555}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}
input,select{width:100%;box-sizing:border-box;font-size:1rem;padding:.6rem;border:1px solid #999;border-radius:.375rem}
.row{display:flex;gap:.5rem}.row>div{flex:1}
button{font-size:1.05rem;padding:.8rem 1rem;border:0;border-radius:.375rem;margin-top:1rem;width:100%;cursor:pointer}
.go{background:#1b6e3a;color:#fff}.stop{background:#a32020;color:#fff}
.error{background:#fde2e2;border:1px solid #a32020;border-radius:.375rem;padding:.5rem .75rem}
.small{color:#555;font-size:.875rem}
</style></head><body><main>
<p class="banner">This is a sandbox: paycli's local test copy of the payment gateway. No real card is charged and no money moves.</p>
{{end}}`

// parsePage parses a page's template. Each page is parsed the first time
// it is shown (sync.OnceValue), not when paycli starts: every paycli
// command links the sandbox.
func parsePage(name, body string) *template.Template {
	return template.Must(template.Must(template.New(name).Parse(pageHead)).Parse(body))
}

// challengePage is the 3D Secure challenge: Approve or Decline.
var challengePage = sync.OnceValue(func() *template.Template {
	return parsePage("challenge", `{{template "head" "3D Secure challenge"}}
<h1>3D Secure challenge</h1>
<dl><dt>Amount</dt><dd>{{.Amount}} {{.Currency}}</dd><dt>Installments</dt><dd>{{.Installments}}</dd><dt>Card</dt><dd>{{.Card}}</dd><dt>Order</dt><dd>{{.OrderID}}</dd></dl>
<p>Approve to authenticate the payment as the card holder would at the bank, or decline to fail it.</p>
<form method="post" action="{{.Action}}"><input type="hidden" name="order_id" value="{{.OrderID}}">
<button id="approve" class="go" name="decision" value="approve">Approve</button>
<button id="decline" class="stop" name="decision" value="decline">Decline</button></form>
</main></body></html>
`)
})

// resultPage carries the 3D result to the merchant's return_url (or
// cancel_url): the buyer presses Continue, as a browser without
// JavaScript would after the gateway's auto-submitting form.
var resultPage = sync.OnceValue(func() *template.Template {
	return parsePage("result", `{{template "head" "3D Secure result"}}
<h1>{{.StatusDescription}}</h1>
<dl><dt>Invoice</dt><dd>{{.InvoiceID}}</dd><dt>Order</dt><dd>{{.OrderID}}</dd><dt>Amount</dt><dd>{{.Total}} {{.CurrencyCode}}</dd></dl>
<p>Continue to return to the merchant's site.</p>
<form method="post" action="{{.URL}}">
<input type="hidden" name="status_code" value="{{.StatusCode}}"><input type="hidden" name="status_description" value="{{.StatusDescription}}">
<input type="hidden" name="sipay_status" value="{{.SipayStatus}}"><input type="hidden" name="order_no" value="{{.OrderNo}}">
<input type="hidden" name="order_id" value="{{.OrderID}}"><input type="hidden" name="invoice_id" value="{{.InvoiceID}}">
<input type="hidden" name="status" value="{{.Status}}"><input type="hidden" name="total" value="{{.Total}}">
<input type="hidden" name="currency_code" value="{{.CurrencyCode}}"><input type="hidden" name="transaction_type" value="{{.TransactionType}}">
<input type="hidden" name="payment_status" value="{{.PaymentStatus}}"><input type="hidden" name="payment_completed_by" value="{{.PaymentCompletedBy}}">
<input type="hidden" name="hash_key" value="{{.HashKey}}">
<button id="continue" class="go">Continue</button></form>
</main></body></html>
`)
})

// linkPage is a payment link's page: the buyer enters a card.
var linkPage = sync.OnceValue(func() *template.Template {
	return parsePage("link", `{{template "head" "payment link"}}
<h1>Pay {{.Amount}} {{.Currency}}</h1>
<dl><dt>Invoice</dt><dd>{{.InvoiceID}}</dd>{{with .Description}}<dt>For</dt><dd>{{.}}</dd>{{end}}</dl>
{{with .Error}}<p class="error" role="alert">{{.}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="holder">Name on the card</label><input id="holder" name="cc_holder_name" autocomplete="cc-name" required value="{{.Holder}}">
<label for="number">Card number</label><input id="number" name="cc_no" inputmode="numeric" autocomplete="cc-number" required>
<div class="row"><div><label for="month">Month</label><input id="month" name="expiry_month" inputmode="numeric" placeholder="MM" required></div>
<div><label for="year">Year</label><input id="year" name="expiry_year" inputmode="numeric" placeholder="YYYY" required></div>
<div><label for="cvv">CVV</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required></div></div>
<label for="inst">Installments</label><select id="inst" name="installments_number">{{range .Installments}}<option>{{.}}</option>{{end}}</select>
<button id="pay" class="go">Pay</button></form>
<p class="small">Test cards are listed in paycli's docs/sandbox.md; 4355 0843 5508 4358 is approved.</p>
</main></body></html>
`)
})

// linkDonePage answers a link that can no longer be paid.
var linkDonePage = sync.OnceValue(func() *template.Template {
	return parsePage("linkdone", `{{template "head" "payment link"}}
<h1>{{.Title}}</h1><p>{{.Text}}</p>
</main></body></html>
`)
})

// writePage renders a page, answering a sandbox error if it cannot.
func writePage(w http.ResponseWriter, status int, p func() *template.Template, data any) {
	var buf bytes.Buffer
	if err := p().Execute(&buf, data); err != nil {
		http.Error(w, "sandbox page error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action *")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
