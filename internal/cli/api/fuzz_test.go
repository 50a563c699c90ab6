package api

import (
	"regexp"
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

// integerPattern is what -F has always turned into a JSON number (gh's
// rule); isInteger must say the same without compiling it at start-up.
var integerPattern = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)

func TestIsIntegerAsThePattern(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "10", "007", "-01", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "", "-", "--1", "+1", "1.0", "1e3", " 1", "1 ", "١", "0x1", "9a"} {
		if got, want := isInteger(s), integerPattern.MatchString(s); got != want {
			t.Errorf("isInteger(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}

func FuzzIsInteger(f *testing.F) {
	for _, s := range []string{"0", "-12", "007", "1.5", "123456789012345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isInteger(s), integerPattern.MatchString(s); got != want {
			t.Errorf("isInteger(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
