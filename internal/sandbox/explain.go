package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/redact"
)

// requestRecord is what the request log keeps of one request beyond its
// method, path, HTTP status and time: what the handlers learn while they
// answer it. The answers stay as terse as the gateway's; the reasons a
// merchant's developer needs live here (docs/sandbox.md, Request log).
type requestRecord struct {
	invoice string
	// statusCode is the answer's status_code; hasCode is false for an
	// answer without one (a 401, a web page).
	statusCode int
	hasCode    bool
	// fault is the fault directive injected into the answer.
	fault string
	// requestID is the answer's X-Request-Id.
	requestID string
	// request and answer capture the bodies when the log keeps them.
	request, answer *bodyCapture
	// note is a remark on a request answered anyway (a JSON body labelled
	// text/plain).
	note string
	explanation
}

// explanation says why a request was refused, or what decided its
// outcome: a sentence, the field at fault, and what the request said (got)
// against what the sandbox expected (want). Values are masked when the
// entry is written (LogEntry), never here.
type explanation struct {
	why, field, got, want string
}

// recorder is a ResponseWriter that carries a request's record: the
// request log's writer, and the writers that stand between it and a
// handler (faults, the 3D error page) and pass the record on.
type recorder interface {
	requestRecord() *requestRecord
}

// recordOf finds the record of the request w answers, nil when the request
// is not logged.
func recordOf(w http.ResponseWriter) *requestRecord {
	for {
		switch v := w.(type) {
		case recorder:
			return v.requestRecord()
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}

// explain records why the request answered by w was refused (or what
// decided its outcome). The first explanation stands: the most specific
// one is given where the check fails, before any generic fallback.
func explain(w http.ResponseWriter, e explanation) {
	if rec := recordOf(w); rec != nil && rec.why == "" {
		rec.explanation = e
	}
}

// noteInvoice records the invoice a request is about.
func noteInvoice(w http.ResponseWriter, invoiceID string) {
	if rec := recordOf(w); rec != nil && invoiceID != "" {
		rec.invoice = invoiceID
	}
}

// noteStatus records the status_code of the answer; a refusal nothing
// explained yet is explained by the answer's own description.
func noteStatus(w http.ResponseWriter, code int, desc string) {
	rec := recordOf(w)
	if rec == nil {
		return
	}
	rec.statusCode, rec.hasCode = code, true
	if code != 100 && rec.why == "" {
		rec.why = desc
	}
}

// logWriter is the ResponseWriter the request log serves a request
// through: it notes the HTTP status and carries the record.
type logWriter struct {
	http.ResponseWriter
	status int
	rec    requestRecord
}

func (l *logWriter) requestRecord() *requestRecord { return &l.rec }

func (l *logWriter) WriteHeader(code int) {
	if l.status == 0 {
		l.status = code
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *logWriter) Write(p []byte) (int, error) {
	if l.status == 0 {
		l.status = http.StatusOK
	}
	if !l.rec.hasCode {
		l.rec.statusCode, l.rec.hasCode = statusCodeIn(p)
	}
	if l.rec.answer != nil {
		_, _ = l.rec.answer.Write(p)
	}
	return l.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (the faults
// hijack it).
func (l *logWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// statusCodeIn reads the first "status_code" of a JSON answer written
// without noteStatus (a map or struct answer); ok is false when there is
// none.
func statusCodeIn(body []byte) (code int, ok bool) {
	const key = `"status_code":`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(key):]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil
}

// shownValue is a request value as an explanation may quote it: secrets
// (keys, tokens, hash_keys) as redact.Secret shows them, a card number
// field masked whatever its check digit, and card numbers masked anywhere
// else (an invoice id that is a card number).
func shownValue(field, v string) string {
	switch field {
	case "merchant_key", "app_secret", "app_id", "hash_key", "wallet_transient_token", "token", "card_token":
		return redact.Secret(v)
	case "card_number", "cc_no", "credit_card":
		return redact.CardField(v)
	}
	return redact.Cards(v)
}

// hashCheck checks a request's hash_key against the named layout and the
// values the request is about: code is 0 when it matches, 90 when it does
// not decrypt with the app's secret, 68 when it was made with another
// layout or a field differs; e explains the refusal, naming the field and
// both values. from says, per field, where its expected value comes from
// when that is not the request's field of the same name ("the wallet
// token's amount").
func (g *Gateway) hashCheck(hashKey, layoutName string, values, from map[string]string) (code int, e explanation) {
	plain, code, e := g.decryptHash(hashKey, layoutName)
	if code != 0 {
		return code, e
	}
	return compareHash(plain, layoutName, values, from)
}

// decryptHash decrypts a hash_key with the app's secret: code 90 and its
// explanation when it cannot be.
func (g *Gateway) decryptHash(hashKey, layoutName string) (plain string, code int, e explanation) {
	plain, err := hashkey.Decrypt(g.opts.Credentials.AppSecret, hashKey)
	switch {
	case errors.Is(err, hashkey.ErrMalformed):
		layout, _ := hashkey.LookupLayout(layoutName)
		return "", 90, explanation{field: "hash_key", why: fmt.Sprintf("the hash_key is not one (%s); make it as docs/hash-keys.md says, with the %s layout %s",
			strings.TrimPrefix(err.Error(), hashkey.ErrMalformed.Error()+": "), layoutName, strings.Join(layout.Fields, "|"))}
	case err != nil:
		return "", 90, explanation{field: "hash_key", why: "the hash_key does not decrypt with this sandbox's app_secret: it was made with another app_secret " +
			"(paycli sandbox credentials shows this one), or damaged on the way (every '/' is sent as '__', and a '+' must survive URL encoding)"}
	}
	return plain, 0, explanation{}
}

// compareHash compares a decrypted hash_key with the values the request is
// about (hashCheck).
func compareHash(plain, layoutName string, values, from map[string]string) (code int, e explanation) {
	layout, _ := hashkey.LookupLayout(layoutName)
	parts := hashkey.Split(plain)
	field, err := layout.Mismatch(parts, values)
	if err != nil {
		return 68, explanation{field: "hash_key", got: fmt.Sprintf("%d fields", len(parts)), want: fmt.Sprintf("%d fields", len(layout.Fields)),
			why: fmt.Sprintf("the hash_key holds %d fields, the %s layout has %d: %s (was it made for another request?)",
				len(parts), layoutName, len(layout.Fields), strings.Join(layout.Fields, "|"))}
	}
	if field == "" {
		return 0, explanation{}
	}
	named, _ := layout.Named(parts)
	source := from[field]
	if source == "" {
		source = "the request's " + field
	}
	got, want := shownValue(field, named[field]), shownValue(field, values[field])
	return 68, explanation{field: field, got: got, want: want,
		why: fmt.Sprintf("hash_key mismatch on %s: the hash_key says %s, but %s is %s (the %s layout: %s)",
			field, quoteValue(got), source, quoteValue(want), layoutName, strings.Join(layout.Fields, "|"))}
}

// quoteValue shows a value in a sentence: as it is when it is a plain
// word or number, quoted otherwise (empty, blanks, punctuation).
func quoteValue(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '_')
	}) < 0 {
		return v
	}
	return strconv.Quote(v)
}
