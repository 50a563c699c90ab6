package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/paycli/paycli/internal/redact"
)

// RequestIDHeader is on every answer: the client's own id when it sent a
// sane one (SaneRequestID), else one the sandbox made. The request log
// keeps it, so an answer can be matched to its log line (`paycli sandbox
// logs --request-id`).
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds an echoed request id.
const maxRequestIDLen = 128

// SaneRequestID reports whether a client's request id is echoed: 1 to 128
// characters of letters, digits and . _ : - (a UUID, a ULID, a trace id).
// Anything else (blanks, quotes, control bytes) is replaced, so that the
// id can go in a header and a log line as it is.
func SaneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// NewRequestIDs returns a generator of request ids, "req_" and 20 hex
// digits read from random (crypto/rand.Reader when nil): ids need no clock,
// and two sandboxes never make the same.
func NewRequestIDs(random io.Reader) func() string {
	if random == nil {
		random = rand.Reader
	}
	return func() string {
		var b [10]byte
		if _, err := io.ReadFull(random, b[:]); err != nil {
			// crypto/rand does not fail on the platforms paycli runs on;
			// an id is a diagnostic aid, never a reason to refuse.
			return "req_unavailable"
		}
		return "req_" + hex.EncodeToString(b[:])
	}
}

// requestID sets the request id of the answer to r, and returns it.
func (g *Gateway) requestID(w http.ResponseWriter, r *http.Request) string {
	id := r.Header.Get(RequestIDHeader)
	if !SaneRequestID(id) {
		id = g.opts.NewRequestID()
	}
	w.Header().Set(RequestIDHeader, id)
	return id
}

// maxLoggedBody bounds each body the request log keeps (`serve --bodies`);
// a longer one is cut, and the entry says so.
const maxLoggedBody = 8 << 10

// bodyCapture keeps the first maxLoggedBody bytes written to it.
type bodyCapture struct {
	buf bytes.Buffer
	n   int64
}

func (c *bodyCapture) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if room := maxLoggedBody - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// teeBody is a request body that copies what the handler reads of it.
type teeBody struct {
	io.ReadCloser
	to *bodyCapture
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	_, _ = t.to.Write(p[:n])
	return n, err
}

// maskedBody is a body as the request log keeps it: JSON and form bodies
// with secret fields masked (redact.IsSecretField: keys, hash_keys,
// tokens, the payer's e-mail, security codes), card fields masked to
// their first six and last four digits (redact.IsCardField) and card
// numbers masked anywhere else; other bodies (the web pages, which hold
// hash_keys in their forms) only described. Empty for no body.
func maskedBody(contentType string, c *bodyCapture) string {
	if c == nil || c.n == 0 {
		return ""
	}
	data := c.buf.Bytes()
	cut := ""
	if c.n > int64(len(data)) {
		cut = fmt.Sprintf(" …(%d bytes in all)", c.n)
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(data)
	switch {
	case cut == "" && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil && !dec.More() {
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			// Masked again once encoded: an escape (\u0001) next to
			// digits can make a run that looks like a card.
			if enc.Encode(redact.JSONValue(v, "", maskField)) == nil {
				if masked := redact.Cards(strings.TrimSpace(out.String())); json.Valid([]byte(masked)) {
					return masked
				}
			}
		}
	case mt == "application/x-www-form-urlencoded" && cut == "":
		if q, err := url.ParseQuery(string(data)); err == nil {
			masked := url.Values{}
			for k, vs := range q {
				for _, v := range vs {
					masked.Add(redact.Cards(k), maskField(k, v))
				}
			}
			// Masked again once encoded: a %-escape next to digits can
			// make a run that looks like a card.
			return redact.Cards(masked.Encode())
		}
	}
	if mt == "" {
		mt = "no Content-Type"
	}
	return redact.Cards(fmt.Sprintf("(%s, %d bytes, not kept: only JSON and form bodies are, masked)", mt, c.n))
}

// maskField masks one field's value by its name, and card numbers in any.
func maskField(name, v string) string {
	switch {
	case redact.IsSecretField(name) || strings.EqualFold(name, "card_token"):
		return redact.Secret(v)
	case redact.IsCardField(name) || strings.EqualFold(name, "credit_card"):
		return redact.CardField(v)
	}
	return redact.Cards(v)
}

// captureBodies makes the log writer keep the request's and the answer's
// bodies, when the log keeps them.
func (g *Gateway) captureBodies(lw *logWriter, r *http.Request) {
	if !g.opts.LogBodies {
		return
	}
	lw.rec.request, lw.rec.answer = &bodyCapture{}, &bodyCapture{}
	if r.Body != nil {
		r.Body = teeBody{ReadCloser: r.Body, to: lw.rec.request}
	}
}
