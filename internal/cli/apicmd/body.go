package apicmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
)

// field is one -f or -F flag, in the order given.
type field struct {
	key, value string
	typed      bool
}

// fieldsValue collects -f (raw) and -F (typed) into one ordered list, so
// that the body's keys come out in the order they were written.
type fieldsValue struct {
	typed bool
	list  *[]field
}

func (v fieldsValue) String() string { return "" }
func (v fieldsValue) Type() string   { return "key=value" }

func (v fieldsValue) Set(s string) error {
	key, value, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return fmt.Errorf("%q is not key=value", s)
	case key == "":
		return fmt.Errorf("%q has an empty key", s)
	case strings.ContainsAny(key, "[]"):
		// gh's nested keys (a[b]=c) are left out: a nested body goes
		// through --input, written as the JSON it is.
		return fmt.Errorf("key %q: nested keys are not supported; write the body as JSON and pass it with --input", key)
	}
	*v.list = append(*v.list, field{key: key, value: value, typed: v.typed})
	return nil
}

// member is one key of a JSON object with its value as written.
type member struct {
	key   string
	value json.RawMessage
}

// object is a JSON object whose keys keep their order and whose values
// keep their text (numbers are not rounded).
type object []member

func (o object) index(key string) int {
	for i, m := range o {
		if m.key == key {
			return i
		}
	}
	return -1
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// parseObject reads a body that must be one JSON object; a key given twice
// is refused, since the gateway would read one of the two and paycli
// cannot know which.
func parseObject(body []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the body is not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("the body is not valid JSON")
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("the body is not valid JSON")
		}
		if o.index(key) >= 0 {
			return nil, fmt.Errorf("the body holds the key %q twice", key)
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("the body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body holds more than one JSON value")
	}
	return o, nil
}

// integer is what -F turns into a JSON number, as gh does: other numbers
// (amounts such as 100.00) stay strings, written as they were typed.
var integer = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)

// fieldsObject builds the body of -f and -F: -f values are strings; -F
// values true, false, null and integers are JSON literals, @FILE (or @-)
// is the file's content as a string (read by read), anything else a
// string.
func fieldsObject(fields []field, read func(flag, value string) (string, error)) (object, error) {
	var o object
	for _, f := range fields {
		if o.index(f.key) >= 0 {
			return nil, cmdutil.UsageErrorf("the field %s is given twice", f.key)
		}
		v := f.value
		var raw []byte
		switch {
		case !f.typed:
			raw, _ = json.Marshal(v)
		case v == "true", v == "false", v == "null", integer.MatchString(v):
			raw = []byte(v)
		case strings.HasPrefix(v, "@"):
			text, err := read("field", v)
			if err != nil {
				return nil, err
			}
			raw, _ = json.Marshal(text)
		default:
			raw, _ = json.Marshal(v)
		}
		o = append(o, member{f.key, raw})
	}
	return o, nil
}

// text is the value of a body field as a hash_key plaintext holds it: a
// string as it is, a number as written; anything else cannot be hashed.
func (o object) text(key string) (string, bool, error) {
	i := o.index(key)
	if i < 0 {
		return "", false, nil
	}
	raw := bytes.TrimSpace(o[i].value)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return string(raw), true, nil
	}
	return "", true, fmt.Errorf("the field %s is %s, not a string or a number", key, kindOf(raw))
}

func kindOf(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "empty"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == 'n':
		return "null"
	}
	return "a boolean"
}

func jsonString(s string) (json.RawMessage, error) { return json.Marshal(s) }
