package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
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

// isInteger reports whether -F turns s into a JSON number, as gh does:
// an integer of at most 18 digits, without leading zeros. Other numbers
// (amounts such as 100.00) stay strings, written as they were typed.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "0" {
		return true
	}
	if s == "" || len(s) > 18 || s[0] == '0' {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fieldsObject builds the body of -f and -F: -f values are strings; -F
// values true, false, null and integers are JSON literals, @FILE (or @-)
// is the file's content as a string (read by read), anything else a
// string.
func fieldsObject(fields []field, read func(flag, value string) (string, error)) (gateway.Object, error) {
	var o gateway.Object
	for _, f := range fields {
		if o.Index(f.key) >= 0 {
			return nil, cmdutil.UsageErrorf("the field %s is given twice", f.key)
		}
		v := f.value
		var raw []byte
		switch {
		case !f.typed:
			raw, _ = json.Marshal(v)
		case v == "true", v == "false", v == "null", isInteger(v):
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
		o = append(o, gateway.Member{Key: f.key, Value: raw})
	}
	return o, nil
}
