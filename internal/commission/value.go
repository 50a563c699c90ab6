// Package commission holds the gateway's commission model: the entries of a
// commission lookup, the flexible decimal values they carry, and the kinds
// of entry (regular, saved-card-token, foreign-card).
//
// Real gateways write the same field in several ways ("1.5000", 0.25, "x",
// "-", null), add fields from one deployment to the next, and sometimes
// leave the title out. This package accepts all of that, keeps what it does
// not understand, and refuses only values that are neither a number nor a
// "not offered" marker.
package commission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Value is a commission figure as the gateway wrote it: a decimal that may
// be "not offered".
//
// It decodes from a JSON string holding a number ("1.5000"), a JSON number
// (0.25), or a not-offered marker: "x", "X", "-", "" or null. Anything else
// is a decode error that says what it saw.
//
// A Value remembers the exact JSON token it was decoded from. MarshalJSON
// writes that token back unchanged, so a decode/encode round trip is
// byte-for-byte faithful: "1.5000" stays the string "1.5000", 0.25 stays the
// number 0.25, "x" stays "x" and null stays null. String returns the text
// without JSON quoting ("1.5000", "0.25", "x", ""), which is what output
// that promises to keep the gateway's precision should print.
type Value struct {
	raw       string // the JSON token; "" (never a token) means null/absent
	text      string // raw without JSON string quotes
	dec       decimal.Decimal
	available bool
}

// maxNumberLen bounds the text of a number: no commission needs more, and it
// keeps hostile input (a million-digit exponent) from costing anything.
const maxNumberLen = 64

// notOffered lists the markers that mean "not offered"; null means the same.
var notOffered = [...]string{"x", "X", "-", ""}

// NewValue returns an available Value for d, written as d.String().
func NewValue(d decimal.Decimal) Value {
	s := d.String()
	raw, _ := json.Marshal(s)
	return Value{raw: string(raw), text: s, dec: d, available: true}
}

// ParseValue reads the text of a value (without JSON quoting), as found in
// a JSON string: a number or a not-offered marker.
func ParseValue(s string) (Value, error) {
	raw, _ := json.Marshal(s)
	return parseText(string(raw), s, true)
}

// Available reports whether the value is a number; false for the
// not-offered markers and null.
func (v Value) Available() bool { return v.available }

// Decimal returns the number and whether there is one.
func (v Value) Decimal() (decimal.Decimal, bool) { return v.dec, v.available }

// String returns the value's text exactly as the gateway wrote it, without
// JSON quotes: "1.5000", "0.25", "x", "-", or "" for null.
func (v Value) String() string { return v.text }

// IsNull reports whether the value was JSON null or absent.
func (v Value) IsNull() bool { return v.raw == "" }

// MarshalJSON writes back the JSON token the value was decoded from; a zero
// Value is null.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.raw == "" {
		return []byte("null"), nil
	}
	return []byte(v.raw), nil
}

// UnmarshalJSON accepts a numeric string, a number, a not-offered marker or
// null.
func (v *Value) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return fmt.Errorf("commission value: empty JSON")
	case bytes.Equal(data, []byte("null")):
		*v = Value{}
		return nil
	case data[0] == '"':
		raw := string(data)
		s, err := unquoteString(raw)
		if err != nil {
			return fmt.Errorf("commission value: %w", err)
		}
		parsed, err := parseText(raw, s, true)
		if err != nil {
			return err
		}
		*v = parsed
		return nil
	case data[0] == '-' || (data[0] >= '0' && data[0] <= '9'):
		text := string(data)
		parsed, err := parseText(text, text, false)
		if err != nil {
			return err
		}
		*v = parsed
		return nil
	}
	return fmt.Errorf("commission value: expected a number, a numeric string or a not-offered marker (x, X, -), got %s", describeJSON(data))
}

// parseText reads s, the text of a value; raw is the JSON token it came
// from and quoted says whether that token was a string.
func parseText(raw, s string, quoted bool) (Value, error) {
	if quoted {
		for _, m := range notOffered {
			if strings.TrimSpace(s) == m {
				return Value{raw: raw, text: s}, nil
			}
		}
	}
	num := strings.TrimSpace(s)
	if !isNumber(num) {
		return Value{}, fmt.Errorf("commission value: %s is neither a number nor a not-offered marker (x, X, -)", quote(s))
	}
	d, err := decimal.NewFromString(num)
	if err != nil {
		return Value{}, fmt.Errorf("commission value: %s is not a usable number", quote(s))
	}
	return Value{raw: raw, text: s, dec: d, available: true}, nil
}

// isNumber accepts JSON's number grammar, plus a leading '+' and a bare
// leading or trailing '.', which gateways write in strings ("+1.5", ".25",
// "3."); exponents are limited to three digits.
func isNumber(s string) bool {
	if len(s) == 0 || len(s) > maxNumberLen {
		return false
	}
	i := 0
	if s[i] == '-' || s[i] == '+' {
		i++
	}
	intDigits := digits(s[i:])
	i += intDigits
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = digits(s[i:])
		i += fracDigits
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		n := digits(s[i:])
		if n == 0 || n > 3 {
			return false
		}
		i += n
	}
	return i == len(s)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// quote shows a value the gateway sent, shortened so that an error line
// stays one line.
func quote(s string) string {
	const max = 32
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}

// describeJSON names a JSON token for an error message: its kind, and a
// scalar's text.
func describeJSON(data []byte) string {
	switch kind := describeShape(data); kind {
	case "nothing", "an object", "an array":
		return kind
	case "a boolean":
		return kind + " (" + quote(string(data)) + ")"
	}
	return quote(string(data))
}
