package pgjournal

import (
	"bytes"
	"encoding/json"
	"strings"
)

// PostgreSQL refuses a NUL in text and in jsonb, yet a gateway's answer
// may hold one (its description, a reason text). A line with a NUL in any
// of its strings is stored escaped, reversibly: in each string of that
// line a backslash is doubled and a NUL becomes backslash-zero, and the
// line carries "nul_escaped": true; readers undo it (readableLine). A line
// without a NUL is stored as it is.
const nulEscapedKey = "nul_escaped"

// storableText is a column's text with its NULs escaped the same way; the
// columns are keys for lookups, the line (jsonb) the record.
func storableText(s string) string {
	if !strings.ContainsRune(s, 0) {
		return s
	}
	return escapeNUL(s)
}

func escapeNUL(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\x00", `\0`).Replace(s)
}

func unescapeNUL(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			case '0':
				b.WriteByte(0)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// storableLine is the JSON line data as the journal stores it.
func storableLine(data []byte) ([]byte, error) {
	if !bytes.Contains(data, []byte(`\u0000`)) {
		return data, nil
	}
	v, err := decodeAny(data)
	if err != nil {
		return nil, err
	}
	if !hasNUL(v) {
		return data, nil // a backslash and "u0000" in a text, not a NUL
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return data, nil
	}
	obj = mapStrings(obj, escapeNUL).(map[string]any)
	obj[nulEscapedKey] = true
	return json.Marshal(obj)
}

// readableLine undoes storableLine.
func readableLine(data []byte) []byte {
	if !bytes.Contains(data, []byte(nulEscapedKey)) {
		return data
	}
	v, err := decodeAny(data)
	obj, ok := v.(map[string]any)
	if err != nil || !ok || obj[nulEscapedKey] != true {
		return data
	}
	delete(obj, nulEscapedKey)
	out, err := json.Marshal(mapStrings(obj, unescapeNUL))
	if err != nil {
		return data
	}
	return out
}

func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) || hasNUL(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasNUL(x) {
				return true
			}
		}
	}
	return false
}

// mapStrings applies f to every string of v, keys included.
func mapStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[f(k)] = mapStrings(x, f)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = mapStrings(x, f)
		}
		return v
	}
	return v
}
