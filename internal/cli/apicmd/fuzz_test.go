package apicmd

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzAnswer: a gateway answer (outside input) never panics the reading of
// its status_code, order and invoice; an object parseObject accepts is
// written back as valid JSON that parses to the same members.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"status_code":100,"data":{"order_no":"VP1","invoice_id":"I"}}`,
		`{"status_code":"100","order_id":1234,"invoice_id":"I"}`,
		`{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]}}`, `[1]`, `{"x":1} {}`, `{"\u00e9":"\ud83d\ude00"}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = readAnswer(body)
		o, err := parseObject(body)
		if err != nil {
			return
		}
		out, err := o.MarshalJSON()
		if err != nil || !json.Valid(out) {
			t.Fatalf("%q written back as %q (%v)", body, out, err)
		}
		again, err := parseObject(out)
		if err != nil || !slices.EqualFunc(o, again, func(a, b member) bool { return a.key == b.key && string(a.value) == string(b.value) }) {
			t.Fatalf("%q: %q does not parse to the same members (%v)", body, out, err)
		}
	})
}
