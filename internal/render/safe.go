package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/redact"
)

// Escape makes the characters of outside text (gateway answers, journal
// lines) that a terminal would act on visible, so that text cannot clear
// the screen, move the cursor, rewrite what was printed before it or
// reorder what follows it:
//
//   - line feed and carriage return become \n and \r;
//   - every other C0 control character but tab, and DEL, become \xNN (ESC
//     is \x1b); a tab is kept (tables lay it out as blanks);
//   - C1 control characters (U+0080–U+009F), the line and paragraph
//     separators and the bidirectional formatting characters (U+200E,
//     U+200F, U+202A–U+202E, U+2066–U+2069) become \uNNNN;
//   - a byte that is not UTF-8 becomes \xNN.
//
// Everything else, backslashes included, is kept as it is: the form is
// Go's and C's escape notation, for a person to read, not a quoting that
// can be reversed.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !needsEscape(r, size):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError || r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x200e || r == 0x200f || r == 0x2028 || r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// identifierFields are the fields of a gateway answer that hold the
// gateway's own references to a payment (order numbers, authorization and
// host references). They are digits that can pass the Luhn check by
// chance, and a person needs them whole to look the payment up with the
// gateway, so WriteFields does not mask them. invoice_id is not one of
// them: it is the merchant's input echoed back, and an invoice id that is
// a card number typed in the wrong place is a card number like any other.
var identifierFields = [...]string{
	"order_no", "order_id", "auth_code",
	"host_reference_id", "transaction_id", "reference_no",
	// paycli's own refund reference (RF and 24 hex digits), which the
	// journal and `refund --retry` name whole.
	"refund_transaction_id",
}

// MaskFields returns the fields with the card numbers in them masked, in
// each field's text and JSON value (redact.Cards: first 6 and last 4
// digits kept), but for the gateway's own references (identifierFields),
// kept whole. Whatever prints fields — a table, CSV, JSON, or a --jq filter
// over their JSON (cmdutil.JSONFlags) — prints these.
func MaskFields(fs []Field) []Field {
	masked := make([]Field, len(fs))
	for i, f := range fs {
		masked[i] = maskField(f)
	}
	return masked
}

// maskField masks the card numbers in a field of a gateway answer, in its
// text and in its JSON value.
func maskField(f Field) Field {
	if slices.Contains(identifierFields[:], f.Name) {
		return f
	}
	f.Text = redact.Cards(f.Text)
	f.JSON = maskJSON(f.JSON)
	return f
}

// maskJSON masks the card numbers in the strings of a JSON value, and a
// number that is one (written as a masked string).
func maskJSON(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] == 'n' || t[0] == 't' || t[0] == 'f' {
		return raw
	}
	if t[0] == '-' || isDigit(t[0]) {
		if m := redact.Cards(string(t)); m != string(t) {
			b, _ := json.Marshal(m)
			return b
		}
		return raw
	}
	if redact.Cards(string(t)) == string(t) && !bytes.Contains(t, []byte(`\u00`)) {
		// Nothing that looks like a card (escaped digits aside).
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(maskValue(v))
	if err != nil {
		return raw
	}
	return b
}

func maskValue(v any) any {
	switch v := v.(type) {
	case string:
		return redact.Cards(v)
	case json.Number:
		if m := redact.Cards(string(v)); m != string(v) {
			return m
		}
		return v
	case []any:
		for i := range v {
			v[i] = maskValue(v[i])
		}
		return v
	case map[string]any:
		for k, x := range v {
			v[k] = maskValue(x)
		}
		return v
	}
	return v
}
