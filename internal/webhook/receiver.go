package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HashHeader is the header a forwarded webhook carries: "valid" when its
// hash_key vouches for its body, "invalid" when it does not (forwarded only
// with ReceiverOptions.ForwardInvalid). A sender's own HashHeader (and any
// other X-Paycli- header) is dropped, so a handler can trust it.
const HashHeader = "X-Paycli-Hash"

// maxHandlerAnswer bounds the handler's answer passed back to the sender.
const maxHandlerAnswer = 1 << 20

// Verdict is what a webhook says and whether its hash_key vouches for it.
// It is the JSON shape of `paycli webhook verify` and, inside Event, of
// `webhook listen`: fields may be added, never renamed or removed. It
// never holds the hash_key.
type Verdict struct {
	// Kind is sale or refund; empty when the body did not parse.
	Kind      Kind     `json:"kind,omitempty"`
	InvoiceID string   `json:"invoice_id"`
	OrderID   string   `json:"order_id"`
	Status    string   `json:"status"`
	Amount    string   `json:"amount"`
	Currency  string   `json:"currency_code"`
	Encoding  Encoding `json:"encoding,omitempty"`
	// Hash is "valid" or "invalid".
	Hash string `json:"hash"`
	// Field is the field at fault when Hash is "invalid" (hash_key when
	// it is missing or does not decrypt); empty when the body did not parse.
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Valid reports whether the hash_key vouched for the body.
func (v Verdict) Valid() bool { return v.Hash == "valid" }

// Check parses a body and verifies it. body is nil when it did not parse.
func Check(contentType string, data []byte, appSecret string) (Verdict, *Body) {
	b, err := Parse(contentType, data)
	if err != nil {
		return Verdict{Hash: "invalid", Reason: err.Error()}, nil
	}
	s := b.Summary()
	v := Verdict{Kind: s.Kind, InvoiceID: s.InvoiceID, OrderID: s.OrderID, Status: s.Status, Amount: s.Amount,
		Currency: s.Currency, Encoding: b.Encoding, Hash: "valid"}
	if err := b.Verify(appSecret); err != nil {
		var ie *InvalidError
		if errors.As(err, &ie) {
			v.Field = ie.Field
		}
		v.Hash, v.Reason = "invalid", err.Error()
	}
	return v, b
}

// Event is one webhook a Receiver took in: the verdict, what became of it
// and what the sender was answered.
type Event struct {
	Time time.Time `json:"time"`
	Path string    `json:"path"`
	Verdict
	// Forwarded is true when the webhook was sent on to the handler
	// (whether or not the handler answered).
	Forwarded bool `json:"forwarded"`
	// Handler is the handler's answer; nil when not forwarded.
	Handler *HandlerResult `json:"handler,omitempty"`
	// Response is the HTTP status the sender was answered.
	Response int `json:"response"`
}

// HandlerResult is how the merchant's handler answered a forwarded webhook.
type HandlerResult struct {
	// Status is the handler's HTTP status; 0 when it did not answer.
	Status     int   `json:"status"`
	DurationMS int64 `json:"duration_ms"`
	// Error says why there was no answer (unreachable, timed out).
	Error string `json:"error,omitempty"`
}

// ReceiverOptions configure a Receiver.
type ReceiverOptions struct {
	// AppSecret checks the hash_keys.
	AppSecret string
	// ForwardTo is the merchant's handler; nil forwards nothing.
	ForwardTo *url.URL
	// ForwardInvalid forwards webhooks whose hash_key is invalid too.
	ForwardInvalid bool
	// Client sends the forwarded webhooks; its Timeout bounds the handler.
	Client *http.Client
	// Report is called once for every POST body taken in, from the
	// request's goroutine.
	Report func(Event)
	// Refused is called for a request refused before its body was read
	// (wrong method, too large, too slow, unsupported type), with a line
	// saying why.
	Refused func(string)
	// Received, when set, is called with each request and its body before
	// anything else is done with them (the --debug log).
	Received func(r *http.Request, body []byte)
	// Now is the clock; it is required.
	Now func() time.Time
}

// Receiver is the http.Handler of `paycli webhook listen`: it takes in
// webhooks (POST, form or JSON, at most MaxBodySize, any path), checks
// their hash_key, forwards them to the merchant's handler and answers the
// sender.
//
// The sender is answered:
//   - with the handler's status and body when the webhook was forwarded
//     and the handler answered; 502 when the handler could not be reached,
//     504 when it did not answer in time;
//   - not forwarded: 200 for a valid webhook, 400 for an invalid one (what
//     a handler that checks hash_keys answers);
//   - 405 (with Allow: POST) for any other method, 413 for a body over
//     MaxBodySize, 415 for a content type that is neither form nor JSON,
//     408 when the body did not arrive in time.
type Receiver struct{ opts ReceiverOptions }

// ForwardClient returns the client a Receiver forwards webhooks with: it
// goes straight to the handler, never through the environment's proxy (a
// webhook is for this machine's handler, not for a proxy to see), and does
// not follow redirects, since following a 302 would turn the POST into a
// GET of another URL; the redirect is the handler's answer, passed back as
// it is. timeout bounds the handler's answer; wrap, when not nil, wraps
// the transport (a logging transport, say).
func ForwardClient(timeout time.Duration, wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	var rt http.RoundTripper = tr
	if wrap != nil {
		rt = wrap(tr)
	}
	return &http.Client{Transport: rt, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// NewReceiver returns a Receiver.
func NewReceiver(opts ReceiverOptions) *Receiver {
	if opts.Now == nil {
		panic("webhook: ReceiverOptions.Now is required")
	}
	if opts.Client == nil {
		opts.Client = ForwardClient(10*time.Second, nil)
	}
	if opts.Report == nil {
		opts.Report = func(Event) {}
	}
	if opts.Refused == nil {
		opts.Refused = func(string) {}
	}
	return &Receiver{opts: opts}
}

func (rc *Receiver) refuse(w http.ResponseWriter, r *http.Request, code int, why string) {
	rc.opts.Refused(fmt.Sprintf("%s %s: %d %s", r.Method, Printable(r.URL.Path), code, why))
	http.Error(w, http.StatusText(code), code)
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := rc.opts.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rc.refuse(w, r, http.StatusMethodNotAllowed, "only POST is a webhook")
		return
	}
	if r.ContentLength > MaxBodySize {
		rc.refuse(w, r, http.StatusRequestEntityTooLarge, ErrTooLarge.Error())
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodySize))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		rc.refuse(w, r, http.StatusRequestEntityTooLarge, ErrTooLarge.Error())
		return
	case err != nil:
		rc.refuse(w, r, http.StatusRequestTimeout, "the body did not arrive: "+err.Error())
		return
	}
	if rc.opts.Received != nil {
		rc.opts.Received(r, data)
	}
	ct := r.Header.Get("Content-Type")
	if _, err := encodingOf(ct, data); errors.Is(err, ErrUnsupportedType) {
		rc.refuse(w, r, http.StatusUnsupportedMediaType, err.Error())
		return
	}

	verdict, _ := Check(ct, data, rc.opts.AppSecret)
	ev := Event{Time: start.UTC(), Path: r.URL.Path, Verdict: verdict}
	switch {
	case rc.opts.ForwardTo != nil && (verdict.Valid() || rc.opts.ForwardInvalid):
		ev.Forwarded = true
		ev.Handler, ev.Response = rc.forward(r, data, verdict.Hash, w)
	case verdict.Valid():
		ev.Response = http.StatusOK
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(ev.Response)
		_, _ = io.WriteString(w, "OK\n")
	default:
		ev.Response = http.StatusBadRequest
		// The reason is the listener's to print, not the sender's to learn.
		http.Error(w, "invalid webhook", ev.Response)
	}
	rc.opts.Report(ev)
}

// hopHeaders are a connection's own and are not forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length"}

// forward sends the webhook to the handler and answers the sender with the
// handler's answer.
func (rc *Receiver) forward(r *http.Request, data []byte, hash string, w http.ResponseWriter) (*HandlerResult, int) {
	// The handler's call outlives neither the sender's nor the listener's.
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, rc.opts.ForwardTo.String(), bytes.NewReader(data))
	if err != nil {
		http.Error(w, http.StatusText(http.StatusBadGateway), http.StatusBadGateway)
		return &HandlerResult{Error: err.Error()}, http.StatusBadGateway
	}
	for name, values := range r.Header {
		if strings.HasPrefix(strings.ToLower(name), "x-paycli-") {
			continue
		}
		req.Header[name] = append([]string(nil), values...)
	}
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	req.Header.Set(HashHeader, hash)

	start := rc.opts.Now()
	resp, err := rc.opts.Client.Do(req)
	res := &HandlerResult{}
	if err != nil {
		res.DurationMS = rc.opts.Now().Sub(start).Milliseconds()
		code := http.StatusBadGateway
		res.Error = "handler unreachable: " + errorText(err)
		var ne net.Error
		if r.Context().Err() != nil {
			// Nobody is left to answer; the status is for the report.
			res.Error = "the sender hung up before the handler answered"
			return res, code
		}
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			code = http.StatusGatewayTimeout
			res.Error = "handler did not answer in time"
			if t := rc.opts.Client.Timeout; t > 0 {
				res.Error += " (" + t.String() + ")"
			}
		}
		http.Error(w, http.StatusText(code), code)
		return res, code
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxHandlerAnswer))
	res.DurationMS = rc.opts.Now().Sub(start).Milliseconds()
	res.Status = resp.StatusCode
	if err != nil {
		res.Error = "handler's answer broke off: " + errorText(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
	return res, resp.StatusCode
}

// errorText is an HTTP client error without the URL the client repeats
// (it is printed once, with the listener's address).
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// Printable makes outside text safe for one line of a terminal: control
// characters (escape sequences, newlines) are shown escaped.
func Printable(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
