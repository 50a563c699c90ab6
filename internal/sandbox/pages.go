package sandbox

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
)

// The sandbox's web pages (the 3D challenge, its result, and the payment
// link page) stand in for the card issuer's and the gateway's pages. They
// work without JavaScript and load nothing from elsewhere: each is one
// HTML document with its style inline, sized for a phone, and says that
// it is a sandbox. Everything they echo is escaped (esc, pageURL).
//
// They are written in Go rather than with html/template: a template
// package in the binary makes reflect's MethodByName reachable, which keeps
// the linker from dropping the methods nothing calls, and the sandbox is
// linked into every paycli command (about 3 MiB of the binary, and a part
// of its start-up; docs/performance.md).

// page writes a page of data to b; data of another type is an error.
type page func(b *bytes.Buffer, data any) error

// esc escapes s for HTML text and quoted attribute values, as
// html/template does: & < > " ' and + (which UTF-7 could misread) become
// character references, and a NUL the replacement character.
func esc(s string) string {
	if !strings.ContainsAny(s, "&<>\"'+\x00") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		case '+':
			b.WriteString("&#43;")
		case 0:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageURL is u fit for an action attribute, as html/template writes one: a
// URL with a scheme other than http, https or mailto becomes "#ZgotmplZ"
// (the merchant's return_url and cancel_url were checked when the payment
// began; this only keeps the page safe whatever it is given), and the
// bytes a URL may not hold are percent-encoded.
func pageURL(u string) string {
	if scheme, _, ok := strings.Cut(u, ":"); ok && !strings.Contains(scheme, "/") {
		switch strings.ToLower(scheme) {
		case "http", "https", "mailto":
		default:
			return "#ZgotmplZ"
		}
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~!#$&*+,/:;=?@[]", c) >= 0,
			c == '%' && i+2 < len(u) && isHexDigit(u[i+1]) && isHexDigit(u[i+2]):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return esc(b.String())
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// writeHead opens a page titled title, with the sandbox's banner.
func writeHead(b *bytes.Buffer, title string) {
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>paycli sandbox: `)
	b.WriteString(esc(title))
	b.WriteString(`</title>
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
`)
}

// pageData is data as the page's own type, or the error of a page given
// another.
func pageData[T any](name string, data any) (T, error) {
	d, ok := data.(T)
	if !ok {
		return d, fmt.Errorf("the %s page was given %T", name, data)
	}
	return d, nil
}

// challengePage is the 3D Secure challenge: Approve or Decline. Its data
// is challengeView's.
func challengePage(b *bytes.Buffer, data any) error {
	v, err := pageData[map[string]string]("challenge", data)
	if err != nil {
		return err
	}
	writeHead(b, "3D Secure challenge")
	fmt.Fprintf(b, `
<h1>3D Secure challenge</h1>
<dl><dt>Amount</dt><dd>%s %s</dd><dt>Installments</dt><dd>%s</dd><dt>Card</dt><dd>%s</dd><dt>Order</dt><dd>%s</dd></dl>
<p>Approve to authenticate the payment as the card holder would at the bank, or decline to fail it.</p>
<form method="post" action="%s"><input type="hidden" name="order_id" value="%s">
<button id="approve" class="go" name="decision" value="approve">Approve</button>
<button id="decline" class="stop" name="decision" value="decline">Decline</button></form>
</main></body></html>
`, esc(v["Amount"]), esc(v["Currency"]), esc(v["Installments"]), esc(v["Card"]), esc(v["OrderID"]), pageURL(v["Action"]), esc(v["OrderID"]))
	return nil
}

// resultPage carries the 3D result to the merchant's return_url (or
// cancel_url): the buyer presses Continue, as a browser without
// JavaScript would after the gateway's auto-submitting form.
func resultPage(b *bytes.Buffer, data any) error {
	r, err := pageData[challengeResult]("result", data)
	if err != nil {
		return err
	}
	writeHead(b, "3D Secure result")
	fmt.Fprintf(b, `
<h1>%s</h1>
<dl><dt>Invoice</dt><dd>%s</dd><dt>Order</dt><dd>%s</dd><dt>Amount</dt><dd>%s %s</dd></dl>
<p>Continue to return to the merchant's site.</p>
<form method="post" action="%s">
<input type="hidden" name="status_code" value="%d"><input type="hidden" name="status_description" value="%s">
<input type="hidden" name="sipay_status" value="%d"><input type="hidden" name="order_no" value="%s">
<input type="hidden" name="order_id" value="%s"><input type="hidden" name="invoice_id" value="%s">
<input type="hidden" name="status" value="%s"><input type="hidden" name="total" value="%s">
<input type="hidden" name="currency_code" value="%s"><input type="hidden" name="transaction_type" value="%s">
<input type="hidden" name="payment_status" value="%d"><input type="hidden" name="payment_completed_by" value="%s">
<input type="hidden" name="hash_key" value="%s">
<button id="continue" class="go">Continue</button></form>
</main></body></html>
`, esc(r.StatusDescription), esc(r.InvoiceID), esc(r.OrderID), esc(r.Total), esc(r.CurrencyCode), pageURL(r.URL),
		r.StatusCode, esc(r.StatusDescription), r.SipayStatus, esc(r.OrderNo), esc(r.OrderID), esc(r.InvoiceID),
		esc(r.Status), esc(r.Total), esc(r.CurrencyCode), esc(r.TransactionType), r.PaymentStatus, esc(r.PaymentCompletedBy), esc(r.HashKey))
	return nil
}

// threeDErrorPage is the answer to a 3D payment refused once the sandbox
// knows where the buyer goes back to: like the gateway's, a form posted to
// the merchant's cancel_url carrying invoice_id, error_code, status_code
// and status_description. The gateway's submits itself with a script;
// this one has a Continue button, as the sandbox's pages run no script.
func threeDErrorPage(b *bytes.Buffer, data any) error {
	v, err := pageData[threeDRefusal]("3derror", data)
	if err != nil {
		return err
	}
	writeHead(b, "payment refused")
	fmt.Fprintf(b, `
<h1>The payment was refused</h1>
<p>%s</p>
<dl><dt>Invoice</dt><dd>%s</dd><dt>Code</dt><dd>%d</dd></dl>
<p>Continue to return to the merchant's site.</p>
<form method="post" action="%s">
<input type="hidden" name="invoice_id" value="%s"><input type="hidden" name="error_code" value="%d">
<input type="hidden" name="status_code" value="%d"><input type="hidden" name="status_description" value="%s">
<button id="continue" class="go">Continue</button></form>
</main></body></html>
`, esc(v.StatusDescription), esc(v.InvoiceID), v.StatusCode, pageURL(v.URL), esc(v.InvoiceID), v.StatusCode, v.StatusCode, esc(v.StatusDescription))
	return nil
}

// threeDRefusal is the 3D error page's data.
type threeDRefusal struct {
	URL, InvoiceID, StatusDescription string
	StatusCode                        int
}

// linkPage is a payment link's page: the buyer enters a card.
func linkPage(b *bytes.Buffer, data any) error {
	v, err := pageData[linkView]("link", data)
	if err != nil {
		return err
	}
	writeHead(b, "payment link")
	fmt.Fprintf(b, "\n<h1>Pay %s %s</h1>\n<dl><dt>Invoice</dt><dd>%s</dd>", esc(v.Amount), esc(v.Currency), esc(v.InvoiceID))
	if v.Description != "" {
		fmt.Fprintf(b, "<dt>For</dt><dd>%s</dd>", esc(v.Description))
	}
	b.WriteString("</dl>\n")
	if v.Error != "" {
		fmt.Fprintf(b, `<p class="error" role="alert">%s</p>`, esc(v.Error))
	}
	fmt.Fprintf(b, `
<form method="post" action="%s">
<label for="holder">Name on the card</label><input id="holder" name="cc_holder_name" autocomplete="cc-name" required value="%s">
<label for="number">Card number</label><input id="number" name="cc_no" inputmode="numeric" autocomplete="cc-number" required>
<div class="row"><div><label for="month">Month</label><input id="month" name="expiry_month" inputmode="numeric" placeholder="MM" required></div>
<div><label for="year">Year</label><input id="year" name="expiry_year" inputmode="numeric" placeholder="YYYY" required></div>
<div><label for="cvv">CVV</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required></div></div>
<label for="inst">Installments</label><select id="inst" name="installments_number">`, pageURL(v.Action), esc(v.Holder))
	for _, n := range v.Installments {
		fmt.Fprintf(b, "<option>%d</option>", n)
	}
	b.WriteString(`</select>
<button id="pay" class="go">Pay</button></form>
<p class="small">Test cards are listed in paycli's docs/sandbox.md; 4355 0843 5508 4358 is approved.</p>
</main></body></html>
`)
	return nil
}

// linkDonePage answers a link that can no longer be paid: its data holds
// the Title and the Text.
func linkDonePage(b *bytes.Buffer, data any) error {
	v, err := pageData[map[string]string]("link done", data)
	if err != nil {
		return err
	}
	writeHead(b, "payment link")
	fmt.Fprintf(b, "\n<h1>%s</h1><p>%s</p>\n</main></body></html>\n", esc(v["Title"]), esc(v["Text"]))
	return nil
}

// writePage renders a page, answering a sandbox error if it cannot.
func writePage(w http.ResponseWriter, status int, p page, data any) {
	var buf bytes.Buffer
	if err := p(&buf, data); err != nil {
		http.Error(w, "sandbox page error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action *")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
