package gateway

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzObject: a request body ParseObject accepts (outside input: `paycli
// api --input`) is written back as valid JSON that parses to the same
// members, and every member reads as text or refuses to, without panicking.
func FuzzObject(f *testing.F) {
	for _, s := range []string{
		`{"status_code":100,"data":{"order_no":"VP1","invoice_id":"I"}}`,
		`{"status_code":"100","order_id":1234,"invoice_id":"I"}`,
		`{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]}}`, `[1]`, `{"x":1} {}`, `{"\u00e9":"\ud83d\ude00"}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o, err := ParseObject(body)
		if err != nil {
			return
		}
		for _, m := range o {
			_, _, _ = o.Text(m.Key)
		}
		out, err := o.MarshalJSON()
		if err != nil || !json.Valid(out) {
			t.Fatalf("%q written back as %q (%v)", body, out, err)
		}
		again, err := ParseObject(out)
		if err != nil || !slices.EqualFunc(o, again, func(a, b Member) bool { return a.Key == b.Key && string(a.Value) == string(b.Value) }) {
			t.Fatalf("%q: %q does not parse to the same members (%v)", body, out, err)
		}
	})
}
