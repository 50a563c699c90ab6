package sandbox

import "unicode/utf8"

// flatObject reads a JSON object whose members are all strings without
// escapes (every body paycli, the SDKs and the load generator send to
// walletPay) without encoding/json, which was a tenth of a payment's CPU.
// ok is false for anything else — a number, a nested value, an escape,
// bytes that are not UTF-8, text after the object — which objectFields
// then reads the general way, with its messages; where ok is true the
// fields are those objectFields finds (FuzzFlatObject).
func flatObject(s string) (f fields, ok bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return nil, false
	}
	f = make(fields, 8)
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return f, skipSpace(s, i+1) == len(s)
	}
	for {
		key, j, ok := plainString(s, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(s, j)
		if i >= len(s) || s[i] != ':' {
			return nil, false
		}
		val, j, ok := plainString(s, skipSpace(s, i+1))
		if !ok {
			return nil, false
		}
		f[key] = val // the last of a repeated name wins, as in encoding/json
		i = skipSpace(s, j)
		switch {
		case i < len(s) && s[i] == ',':
			i = skipSpace(s, i+1)
		case i < len(s) && s[i] == '}':
			return f, skipSpace(s, i+1) == len(s)
		default:
			return nil, false
		}
	}
}

// plainString reads the JSON string at s[i:] if it holds no escape and no
// control character and is UTF-8, returning its text and where it ends.
func plainString(s string, i int) (text string, end int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			text = s[i+1 : j]
			return text, j + 1, utf8.ValidString(text)
		case c == '\\' || c < 0x20:
			return "", j, false
		}
	}
	return "", len(s), false
}

// skipSpace skips JSON white space from i.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
