// Package webhook reads, checks and makes the gateway's webhook calls: the
// POSTs it sends the merchant after a sale or a refund, each signed with a
// hash_key (see docs/webhooks.md and docs/protocol.md).
//
// Parse reads a body, form-encoded or JSON, keeping every value as the text
// that arrived. Body.Verify decrypts its hash_key with the app_secret and
// checks that each field the hash_key holds equals the field in the body.
// Sign makes a body with a valid hash_key, as the gateway would. Nothing
// here prints, logs or talks to the network.
package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"
)

// MaxBodySize bounds a webhook body. The gateway's callbacks are a few
// hundred bytes; anything far larger is not one of them.
const MaxBodySize = 64 << 10

// Encoding is how a body was written.
type Encoding string

const (
	Form Encoding = "form" // application/x-www-form-urlencoded
	JSON Encoding = "json" // application/json
)

// ContentType returns the Content-Type header for the encoding.
func (e Encoding) ContentType() string {
	if e == JSON {
		return "application/json"
	}
	return "application/x-www-form-urlencoded"
}

// ErrTooLarge is returned for a body over MaxBodySize.
var ErrTooLarge = fmt.Errorf("body is larger than %d KiB", MaxBodySize>>10)

// ErrUnsupportedType is returned for a content type that is neither form
// nor JSON (multipart, XML, ...).
var ErrUnsupportedType = errors.New("unsupported content type")

// ParseError says why a body is not a webhook body.
type ParseError struct{ Reason string }

func (e *ParseError) Error() string { return "not a webhook body: " + e.Reason }

func parseErrorf(format string, args ...any) error {
	return &ParseError{Reason: fmt.Sprintf(format, args...)}
}

// Body is one parsed webhook body: its fields, in the order they arrived,
// with the text of each value as sent (a JSON number keeps its digits:
// 150.00 stays "150.00").
type Body struct {
	Encoding Encoding
	names    []string
	values   map[string]string
}

// Get returns a field's value and whether the body has it.
func (b *Body) Get(name string) (string, bool) {
	v, ok := b.values[name]
	return v, ok
}

// Names returns the body's field names in the order they arrived.
func (b *Body) Names() []string { return append([]string(nil), b.names...) }

// Fields returns a copy of the body's fields.
func (b *Body) Fields() map[string]string {
	m := make(map[string]string, len(b.values))
	for k, v := range b.values {
		m[k] = v
	}
	return m
}

func (b *Body) add(name, value string) error {
	if name == "" {
		return parseErrorf("a field has no name")
	}
	if _, dup := b.values[name]; dup {
		// A handler reads one of the two and a hash check may read the
		// other: a body that says two things is refused, not guessed at.
		return parseErrorf("field %q appears more than once", name)
	}
	b.names = append(b.names, name)
	b.values[name] = value
	return nil
}

// Parse reads a webhook body. The content type picks the encoding; when it
// is empty or says neither form nor JSON (text/plain, octet-stream) the
// body is sniffed: a body whose first non-blank character is "{" is JSON,
// anything else a form. A field given twice is refused.
func Parse(contentType string, data []byte) (*Body, error) {
	if len(data) > MaxBodySize {
		return nil, ErrTooLarge
	}
	enc, err := encodingOf(contentType, data)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, parseErrorf("body is not UTF-8")
	}
	b := &Body{Encoding: enc, values: map[string]string{}}
	if enc == JSON {
		err = b.parseJSON(data)
	} else {
		err = b.parseForm(data)
	}
	if err != nil {
		return nil, err
	}
	if len(b.names) == 0 {
		return nil, parseErrorf("no fields")
	}
	return b, nil
}

func encodingOf(contentType string, data []byte) (Encoding, error) {
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err == nil {
			switch {
			case mt == "application/json" || strings.HasSuffix(mt, "+json"):
				return JSON, nil
			case mt == "application/x-www-form-urlencoded":
				return Form, nil
			case strings.HasPrefix(mt, "multipart/"), strings.Contains(mt, "xml"):
				return "", fmt.Errorf("%w %s: send form or JSON", ErrUnsupportedType, mt)
			}
		}
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return JSON, nil
	}
	return Form, nil
}

func (b *Body) parseForm(data []byte) error {
	text := strings.TrimRight(string(data), "\r\n")
	for part := range strings.SplitSeq(text, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return parseErrorf("bad form encoding in %q", clip(k))
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return parseErrorf("bad form encoding in the value of %q", clip(key))
		}
		if !utf8.ValidString(key) || !utf8.ValidString(val) {
			return parseErrorf("field %q is not UTF-8 once decoded", clip(strings.ToValidUTF8(key, "?")))
		}
		if err := b.add(key, val); err != nil {
			return err
		}
	}
	return nil
}

// parseJSON reads one JSON object. Strings are kept unescaped, numbers
// and booleans as their literal text, null as absent; a nested object or
// array is kept as its compact JSON text (no webhook field that is hashed
// is one).
func (b *Body) parseJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return parseErrorf("invalid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return parseErrorf("JSON body is not an object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return parseErrorf("invalid JSON: %v", err)
		}
		key := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return parseErrorf("invalid JSON in %q: %v", clip(key), err)
		}
		val, present, err := scalarText(raw)
		if err != nil {
			return parseErrorf("invalid JSON in %q: %v", clip(key), err)
		}
		if seen[key] {
			return parseErrorf("field %q appears more than once", key)
		}
		seen[key] = true
		if !present {
			continue
		}
		if err := b.add(key, val); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return parseErrorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); err == nil {
		return parseErrorf("more than one JSON value")
	}
	return nil
}

func scalarText(raw json.RawMessage) (string, bool, error) {
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, true, err
	case 'n':
		return "", false, nil
	case '{', '[':
		var buf bytes.Buffer
		err := json.Compact(&buf, raw)
		return buf.String(), true, err
	}
	return string(raw), true, nil // number, true, false: as written
}

// clip shortens outside text quoted in an error.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
