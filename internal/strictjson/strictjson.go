// Package strictjson decodes a JSON object from outside input strictly,
// where encoding/json is lenient in ways that can change what a line
// means: it matches keys case-insensitively ("INVOICE" fills invoice),
// keeps the last of duplicated keys, and silently replaces invalid UTF-8
// (and lone UTF-16 surrogate escapes) with U+FFFD, so an invoice id could
// be charged under a changed name.
//
// Unmarshal and UnmarshalKnown first check the whole text, then hand it to
// encoding/json for the values:
//
//   - it is valid UTF-8, and no \u escape is a lone surrogate;
//   - it is one JSON object, with nothing after it but white space;
//   - no object, at any depth, has the same key twice;
//   - every key of the objects decoded into structs is exactly one of the
//     struct's JSON names (case-sensitive); a key that differs from a name
//     only by case is always refused. Unmarshal refuses any other unknown
//     key; UnmarshalKnown ignores it (for claims that may carry more than
//     paycli reads).
//
// Errors are *Error values that name the problem, never quoting the input
// beyond a key name.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Error says what makes the input unacceptable.
type Error struct {
	// Offset is the byte offset of the problem, -1 when it has none.
	Offset int64
	// Reason is e.g. `duplicate key "invoice"` or `invalid UTF-8`.
	Reason string
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s at byte %d", e.Reason, e.Offset)
	}
	return e.Reason
}

func fail(offset int64, format string, args ...any) error {
	return &Error{Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

// BOM is the UTF-8 byte order mark some editors put at the start of a file.
var BOM = []byte("\xef\xbb\xbf")

// TrimBOM returns b without a leading UTF-8 byte order mark. A reader of a
// file of JSON lines calls it on the first line only: a BOM anywhere else
// is not white space and is refused as invalid JSON.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, BOM) }

// Unmarshal decodes the JSON object data into v (a pointer to a struct)
// after the checks in the package documentation; unknown keys are refused.
func Unmarshal(data []byte, v any) error { return unmarshal(data, v, false) }

// UnmarshalKnown is Unmarshal that ignores unknown keys, except those that
// differ from a known name only by case.
func UnmarshalKnown(data []byte, v any) error { return unmarshal(data, v, true) }

func unmarshal(data []byte, v any, allowUnknown bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("strictjson: Unmarshal needs a non-nil pointer, got %T", v)
	}
	if err := Check(data); err != nil {
		return err
	}
	if err := checkKeys(data, rv.Type().Elem(), "", allowUnknown); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fail(typeErr.Offset, "%s is a JSON %s, not the %s it should be", keyName(typeErr.Field), typeErr.Value, typeErr.Type)
		}
		return &Error{Offset: -1, Reason: err.Error()}
	}
	return nil
}

func keyName(field string) string {
	if field == "" {
		return "the value"
	}
	return fmt.Sprintf("%q", field)
}

// Check reports whether data is one JSON object that is valid UTF-8, has
// no lone surrogate escape and no duplicate key at any depth.
func Check(data []byte) error {
	if i := invalidUTF8(data); i >= 0 {
		return fail(int64(i), "invalid UTF-8")
	}
	if i := loneSurrogate(data); i >= 0 {
		return fail(int64(i), "a \\u escape that is half of a UTF-16 surrogate pair (not a character)")
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return fail(-1, "empty input, want a JSON object")
	}
	if trimmed[0] != '{' {
		return fail(int64(len(data)-len(trimmed)), "not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walk(dec, ""); err != nil {
		return err
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return fail(int64(len(data)-len(rest)), "text after the JSON object")
	}
	return nil
}

// walk reads one value from dec, refusing duplicate keys in its objects.
func walk(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(dec, err)
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			start := dec.InputOffset()
			kt, err := dec.Token()
			if err != nil {
				return syntaxError(dec, err)
			}
			key := kt.(string)
			if seen[key] {
				return fail(start, "duplicate key %q", join(path, key))
			}
			seen[key] = true
			if err := walk(dec, join(path, key)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := walk(dec, path+"[]"); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	if err != nil {
		return syntaxError(dec, err)
	}
	return nil
}

func syntaxError(dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return fail(syn.Offset, "invalid JSON (%s)", syn.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fail(dec.InputOffset(), "truncated JSON")
	}
	return fail(dec.InputOffset(), "invalid JSON (%v)", err)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// invalidUTF8 returns the offset of the first byte that is not valid
// UTF-8, -1 when there is none.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate returns the offset of a \u escape inside a string that is
// half of a surrogate pair without its other half, -1 when there is none.
// encoding/json would decode it to U+FFFD.
func loneSurrogate(b []byte) int {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if b[i+1] != 'u' {
				i++ // \" \\ and the rest: skip the escaped byte
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				continue // a syntax error, reported by the decoder
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				// A high half must be followed by a low half.
				if i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					if lo, ok := hex4(b, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
						i += 11
						continue
					}
				}
				return i
			case utf16.IsSurrogate(r):
				return i
			}
			i += 5
		}
	}
	return -1
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkKeys checks the keys of the objects in raw that decode into struct
// types against their JSON names. Types with their own UnmarshalJSON
// decide for themselves; maps and interfaces take any key.
func checkKeys(raw []byte, t reflect.Type, path string, allowUnknown bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return nil // not an object: json.Unmarshal reports the type error
		}
		fields := map[string]reflect.Type{}
		jsonNames(t, fields)
		for key, val := range members {
			ft, known := fields[key]
			if known {
				if err := checkKeys(val, ft, join(path, key), allowUnknown); err != nil {
					return err
				}
				continue
			}
			for name := range fields {
				if strings.EqualFold(name, key) {
					return fail(-1, "key %q is not %q: key names are case-sensitive", join(path, key), join(path, name))
				}
			}
			if !allowUnknown {
				return fail(-1, "unknown key %q", join(path, key))
			}
		}
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil
		}
		for _, e := range elems {
			if err := checkKeys(e, t.Elem(), path+"[]", allowUnknown); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonNames adds the JSON names of t's fields as encoding/json sees them,
// with embedded structs' fields promoted.
func jsonNames(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				jsonNames(ft, into)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
}
