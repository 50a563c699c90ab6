package apicmd

import (
	"testing"
)

// FuzzAnswer: a gateway answer (outside input) never panics the reading of
// its status_code, order and description (gateway.FuzzObject covers the
// body object itself).
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
	})
}
