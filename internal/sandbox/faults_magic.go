package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/shopspring/decimal"
)

// MagicFault is a fault a client triggers with a value it sends anyway:
// a payment's or lookup's amount, or the card number of a card payment.
// An SDK cannot send the X-Paycli-Fault header, but it can send these, and
// they act whether or not the sandbox runs with --faults (docs/sandbox.md,
// Faults by magic values). Each amount's whole part is the HTTP status it
// acts out (499: the client sees the connection close, as nginx logs it).
type MagicFault struct {
	// Name is how docs and the log call it.
	Name string
	// Amount is the magic amount (with its currency's decimals) and Card
	// the magic card number (Luhn-valid, BIN 435508).
	Amount, Card string
	// What says what the client meets.
	What  string
	fault fault
}

// HangFor bounds a hang fault: the connection is held until the client
// gives up, the server stops, or this long has passed.
const HangFor = 10 * time.Minute

// SlowFor is how long a slow fault waits before answering.
const SlowFor = 3 * time.Second

// MagicFaults are the sandbox's fault amounts and cards.
var MagicFaults = []MagicFault{
	{Name: "500", Amount: "500.50", Card: "4355080000005004", What: "HTTP 500 with a JSON error body; nothing is handled or stored",
		fault: fault{status: 500, truncate: -1}},
	{Name: "503", Amount: "503.50", Card: "4355080000005038", What: "HTTP 503 with an HTML page, as a load balancer answers; nothing is handled or stored",
		fault: fault{status: 503, html: true, truncate: -1}},
	{Name: "hang", Amount: "408.50", Card: "4355080000004080", What: "no answer: the connection is held until the client's timeout (at most 10 minutes), then closed; nothing is handled or stored",
		fault: fault{hang: true, truncate: -1}},
	{Name: "drop", Amount: "499.50", Card: "4355080000004999", What: "the request is handled (a payment is made and stored), then the connection drops halfway through the answer's body",
		fault: fault{truncate: -2}},
	{Name: "slow", Amount: "200.50", Card: "4355080000002001", What: "answered normally after 3 seconds",
		fault: fault{delay: SlowFor, truncate: -1}},
}

// magicUse says which of a request's fields may hold a magic value, for
// an operation's path; refuse marks an operation in which they mean
// nothing (refused with status_code 1 naming the field).
type magicUse struct {
	amounts, cards []string
	// invoiceAmounts are fields of the JSON object in the "invoice" field
	// (a payment link's).
	invoiceAmounts []string
	// walletToken: the amount is the wallet token's.
	walletToken bool
	refuse      bool
}

// magicUseOf is the use of magic values of a request's operation.
func magicUseOf(r *http.Request) (magicUse, bool) {
	if r.Method != http.MethodPost {
		return magicUse{}, false
	}
	// The money and lookup calls, and making a link (sent once like a
	// payment), act the values out; saving a card refuses them.
	switch path := r.URL.Path; {
	case path == Base+"/api/walletPay":
		return magicUse{walletToken: true}, true
	case path == Base+"/api/paySmart2D", path == Base+"/api/paySmart3D":
		return magicUse{amounts: []string{"total"}, cards: []string{"cc_no"}}, true
	case path == Base+"/api/payByCardToken", path == Base+"/api/confirmPayment":
		return magicUse{amounts: []string{"total"}}, true
	case path == Base+"/api/refund":
		return magicUse{amounts: []string{"amount"}}, true
	case path == Base+"/api/getpos":
		return magicUse{amounts: []string{"amount"}, cards: []string{"credit_card"}}, true
	case path == Base+"/api/saveCard":
		return magicUse{cards: []string{"card_number"}, refuse: true}, true
	case path == Base+"/purchase/link":
		return magicUse{invoiceAmounts: []string{"total"}}, true
	case strings.HasPrefix(path, Base+LinkPath):
		return magicUse{cards: []string{"cc_no"}}, true
	}
	return magicUse{}, false
}

// mayHoldMagic is a quick look for a magic value in a body, so that most
// requests are not read twice.
func mayHoldMagic(body []byte) bool {
	return bytes.Contains(body, []byte("4355")) || // the BIN, however the card is grouped
		mayHoldMagicAmount(body)
}

// mayHoldMagicAmount is mayHoldMagic for the amounts only.
func mayHoldMagicAmount(body []byte) bool {
	for _, m := range MagicFaults {
		if bytes.Contains(body, []byte(m.Amount[:len(m.Amount)-1])) {
			return true
		}
	}
	return false
}

// findMagic reads r's fields (restoring its body for the handler) and
// returns the magic fault they trigger, the field that holds it and its
// value.
func (g *Gateway) findMagic(r *http.Request, use magicUse) (m *MagicFault, field, value, invoiceID string) {
	m, field, value, f := g.findMagicIn(r, use)
	return m, field, value, f.get("invoice_id")
}

func (g *Gateway) findMagicIn(r *http.Request, use magicUse) (m *MagicFault, field, value string, f fields) {
	body, complete := peekBody(r, g.opts.MaxBodyBytes)
	if !complete {
		return nil, "", "", nil // over the limit: the handler answers 413
	}
	if use.walletToken {
		// walletPay is the hot path: the token is found by a scan, and
		// its claims read only when they may hold a fault amount.
		amount := walletTokenAmount(walletTokenIn(body))
		if amount == "" {
			return nil, "", "", nil
		}
		f = peekFields(r.Header.Get("Content-Type"), body)
		m, field, value := magicAmount("wallet_transient_token.amount", amount)
		return m, field, value, f
	}
	if !mayHoldMagic(body) {
		return nil, "", "", nil
	}
	f = peekFields(r.Header.Get("Content-Type"), body)
	for _, name := range use.cards {
		if m := magicCard(f.get(name)); m != nil {
			return m, name, f.get(name), f
		}
	}
	for _, name := range use.amounts {
		if m, _, _ := magicAmount(name, f.get(name)); m != nil {
			return m, name, f.get(name), f
		}
	}
	if len(use.invoiceAmounts) > 0 {
		inv, _ := objectFields(f.get("invoice"), "items")
		for _, name := range use.invoiceAmounts {
			if m, _, _ := magicAmount(name, inv.get(name)); m != nil {
				return m, "invoice." + name, inv.get(name), f
			}
		}
	}
	return nil, "", "", f
}

// magicAmount finds the fault of an amount equal to a magic one (500.5 is
// 500.50).
func magicAmount(field, v string) (*MagicFault, string, string) {
	d, err := decimal.NewFromString(strings.TrimSpace(v))
	if err != nil {
		return nil, "", ""
	}
	for i := range MagicFaults {
		if d.Equal(decimal.RequireFromString(MagicFaults[i].Amount)) {
			return &MagicFaults[i], field, v
		}
	}
	return nil, "", ""
}

// magicCard finds the fault of a magic card number (blanks and dashes
// between groups allowed).
func magicCard(v string) *MagicFault {
	digits, ok := cardno.Digits(strings.TrimSpace(v))
	if !ok {
		return nil
	}
	for i := range MagicFaults {
		if digits == MagicFaults[i].Card {
			return &MagicFaults[i]
		}
	}
	return nil
}

// walletTokenIn finds the wallet token in a walletPay body, JSON or form
// ("" when it is not found; walletPay then refuses the body itself).
func walletTokenIn(body []byte) string {
	const name = "wallet_transient_token"
	i := bytes.Index(body, []byte(name))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(body[i+len(name):], "\" \t\r\n:=")
	end := bytes.IndexAny(rest, "\"&, \t\r\n}")
	if end < 0 {
		end = len(rest)
	}
	return string(rest[:end])
}

// walletTokenAmount reads the amount claim of a wallet token without
// checking it (walletPay checks it; a fault acts first); "" when the
// claims cannot hold a fault amount.
func walletTokenAmount(token string) string {
	first := strings.IndexByte(token, '.')
	last := strings.LastIndexByte(token, '.')
	if first < 0 || last <= first {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(token[first+1 : last])
	if err != nil || !mayHoldMagicAmount(payload) {
		return ""
	}
	var claims struct {
		Amount json.RawMessage `json:"amount"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return strings.Trim(string(claims.Amount), `"`)
}

// peekBody reads r's body, at most max bytes, and puts it back for the
// handler; complete is false when the body is longer. Reading it whole
// also lets net/http notice a client that goes away while a fault waits.
// A complete body is kept with the request, so that peeking again or the
// handler's readBody takes it without another read or copy.
func peekBody(r *http.Request, max int64) (body []byte, complete bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	if pb, ok := r.Body.(*peekedBody); ok && pb.Len() == len(pb.data) && int64(len(pb.data)) <= max {
		return pb.data, true
	}
	var err error
	if n := r.ContentLength; n > 0 && n <= max {
		// Sized as announced (+1: EOF is read without growing).
		buf := bytes.NewBuffer(make([]byte, 0, n+1))
		_, err = buf.ReadFrom(io.LimitReader(r.Body, max+1))
		body = buf.Bytes()
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, max+1))
	}
	rest := r.Body
	complete = err == nil && int64(len(body)) <= max
	if complete {
		r.Body = &peekedBody{Reader: bytes.NewReader(body), data: body, Closer: rest}
		return body, true
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	return body, false
}

// peekedBody is a request body peekBody read whole, put back for the
// handler.
type peekedBody struct {
	*bytes.Reader
	data []byte
	io.Closer
}

// take returns the body whole if nothing has read it since it was
// peeked, and marks it read.
func (pb *peekedBody) take() ([]byte, bool) {
	if pb.Len() != len(pb.data) {
		return nil, false
	}
	pb.Reader = bytes.NewReader(nil)
	return pb.data, true
}

// peekFields reads a body's fields as readFields would, leniently (a
// malformed body has none: the handler refuses it).
func peekFields(contentType string, body []byte) fields {
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") {
		f, _ := objectFields(trimmed, "items", "invoice")
		return f
	}
	q, _ := url.ParseQuery(trimmed)
	f := fields{}
	for k, v := range q {
		f[k] = v[0]
	}
	return f
}

// serveMagic serves r, acting out a magic value it holds; handled is false
// when it holds none (the caller serves it).
func (g *Gateway) serveMagic(next http.Handler, w http.ResponseWriter, r *http.Request) (handled bool) {
	use, ok := magicUseOf(r)
	if !ok {
		return false
	}
	m, field, value, invoiceID := g.findMagic(r, use)
	if m == nil {
		return false
	}
	noteInvoice(w, invoiceID)
	shown := shownValue(field, value)
	if use.refuse {
		explain(w, explanation{field: field, got: shown, why: fmt.Sprintf("%s %s is the sandbox's %s fault value: fault values act only on payments, refunds, captures and getpos, not on %s; use another value",
			field, quoteValue(shown), m.Name, r.URL.Path)})
		writeStatus(w, 1, fmt.Sprintf("The %s %s is a sandbox fault value and means nothing here.", strings.ReplaceAll(field, "_", " "), shown))
		return true
	}
	if rec := recordOf(w); rec != nil {
		rec.fault = fmt.Sprintf("%s (%s %s)", m.Name, field, shown)
	}
	if m.fault.status != 0 || m.fault.hang {
		explain(w, explanation{field: field, got: shown, why: fmt.Sprintf("%s %s is the sandbox's %s fault value: %s", field, quoteValue(shown), m.Name, m.What)})
	}
	ft := m.fault
	if ft.delay > 0 {
		ft.delay = g.opts.SlowFor
	}
	if ft.truncate == -2 {
		ft.truncate = -1
		ft.dropHalf = true
	}
	serveFault(next, w, r, ft)
	return true
}

// hang holds the request until the client gives up or the server stops
// (or HangFor passes), then closes the connection without an answer.
func hang(w http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(HangFor)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-stoppingOf(r.Context()):
	case <-t.C:
	}
	cutOff(w, r, "hang")
}

// stoppingKey carries, in a Server's request contexts, the channel closed
// when the server starts to stop.
type stoppingKey struct{}

// stoppingOf is the channel closed when the server serving ctx's request
// starts to stop (nil, never closed, outside a Server).
func stoppingOf(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(stoppingKey{}).(chan struct{})
	return ch
}

// isStopping reports whether the server serving ctx's request is stopping.
func isStopping(ctx context.Context) bool {
	ch := stoppingOf(ctx)
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// cutOff ends a request a fault was holding when its wait ends early (the
// client went away, or the server is stopping): the log says so, and the
// connection is closed without an answer.
func cutOff(w http.ResponseWriter, r *http.Request, what string) {
	cause := "the client went away (its timeout)"
	switch {
	case errors.Is(context.Cause(r.Context()), errStopping), isStopping(r.Context()):
		cause = "the sandbox was stopping"
	case r.Context().Err() == nil:
		cause = "the fault's time was up"
	}
	if rec := recordOf(w); rec != nil {
		if rec.why == "" {
			rec.why = fmt.Sprintf("cut off during the %s fault: %s; nothing was answered", what, cause)
		} else {
			rec.why += fmt.Sprintf("; cut off: %s", cause)
		}
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// errStopping is the cause with which a Server cancels the requests it
// serves when it stops, so that faults holding them end at once.
var errStopping = errors.New("the sandbox is stopping")
