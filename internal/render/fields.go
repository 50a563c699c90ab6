package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Field is one named value of an object shown field by field (a payment's
// result, a transaction's status), kept in order.
type Field struct {
	Name string
	// JSON is the value's JSON encoding; Text is how a table or CSV shows it.
	JSON json.RawMessage
	Text string
}

// MarshalFields encodes fields as one JSON object, in their order.
func MarshalFields(fs []Field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteByte(':')
		if len(f.JSON) == 0 {
			b.WriteString("null")
		} else {
			b.Write(f.JSON)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// OmitEmpty drops the fields holding an empty string from what a table
// shows: a field the gateway left empty says nothing a person needs, and
// a table of them hides the fields that matter. Every other format keeps
// every field, so a script sees the answer whole and CSV/TSV columns stay
// the same from one answer to the next.
func OmitEmpty(fs []Field, format Format) []Field {
	if format != Table {
		return fs
	}
	out := make([]Field, 0, len(fs))
	for _, f := range fs {
		if string(bytes.TrimSpace(f.JSON)) != `""` {
			out = append(out, f)
		}
	}
	return out
}

// StringField is a JSON string.
func StringField(name, v string) Field {
	b, _ := json.Marshal(v)
	return Field{Name: name, JSON: b, Text: v}
}

// IntField is a JSON integer.
func IntField(name string, v int) Field {
	s := strconv.Itoa(v)
	return Field{Name: name, JSON: json.RawMessage(s), Text: s}
}

// Decimal is a number as the gateway wrote it (commission.Value): its
// digits, and whether it is a number at all.
type Decimal interface {
	Available() bool
	String() string
}

// NumberField writes a decimal as a JSON number with the gateway's digits
// ("12.3500" stays 12.3500); a value that is not a number is null.
func NumberField(name string, v Decimal) Field {
	if !v.Available() {
		return Field{Name: name, JSON: json.RawMessage("null"), Text: v.String()}
	}
	return Field{Name: name, JSON: json.RawMessage(v.String()), Text: v.String()}
}

// ValueField keeps a value exactly as the gateway wrote it, through its own
// JSON encoding: "150.00" stays a string, 150.00 a number with its digits.
func ValueField(name string, v interface {
	json.Marshaler
	fmt.Stringer
}) Field {
	b, err := v.MarshalJSON()
	if err != nil {
		b = []byte("null")
	}
	return Field{Name: name, JSON: b, Text: v.String()}
}

// ExtraFields lists fields no struct names, sorted by name, as the gateway
// wrote them; a string shows as its text and null as nothing.
func ExtraFields(extra map[string]json.RawMessage) []Field {
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	slices.Sort(names)
	fs := make([]Field, 0, len(names))
	for _, k := range names {
		raw := extra[k]
		text := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		} else if text == "null" {
			text = ""
		}
		fs = append(fs, Field{Name: k, JSON: raw, Text: text})
	}
	return fs
}
