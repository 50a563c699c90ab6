package commission

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

func TestValueDecode(t *testing.T) {
	tests := []struct {
		json      string
		available bool
		decimal   string // when available
		text      string
	}{
		{`"1.5000"`, true, "1.5", "1.5000"},
		{`"0.0000"`, true, "0", "0.0000"},
		{`0.25`, true, "0.25", "0.25"},
		{`0`, true, "0", "0"},
		{`3`, true, "3", "3"},
		{`-1.25`, true, "-1.25", "-1.25"},
		{`1e2`, true, "100", "1e2"},
		{`"2.50 "`, true, "2.5", "2.50 "},
		{`"+1.5"`, true, "1.5", "+1.5"},
		{`".25"`, true, "0.25", ".25"},
		{`"x"`, false, "", "x"},
		{`"X"`, false, "", "X"},
		{`"-"`, false, "", "-"},
		// A marker with blanks around it is still a marker, kept as written.
		{`" x "`, false, "", " x "},
		{`" - "`, false, "", " - "},
		{`""`, false, "", ""},
		{`null`, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			var v Value
			if err := json.Unmarshal([]byte(tt.json), &v); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.json, err)
			}
			if v.Available() != tt.available {
				t.Errorf("Available() = %v, want %v", v.Available(), tt.available)
			}
			if d, ok := v.Decimal(); ok && !d.Equal(decimal.RequireFromString(tt.decimal)) {
				t.Errorf("Decimal() = %s, want %s", d, tt.decimal)
			}
			if v.String() != tt.text {
				t.Errorf("String() = %q, want %q", v.String(), tt.text)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.json {
				t.Errorf("re-encoded as %s, want %s", out, tt.json)
			}
		})
	}
}

func TestValueDecodeErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{`"n/a"`, `commission value: "n/a" is neither a number nor a not-offered marker (x, X, -)`},
		{`"1,5"`, `"1,5" is neither a number`},
		{`"NaN"`, `"NaN" is neither a number`},
		{`"1e9999"`, `"1e9999" is neither a number`},
		{`"0x10"`, `"0x10" is neither`},
		{`"."`, `"." is neither`},
		{`true`, `got a boolean ("true")`},
		{`{}`, `got an object`},
		{`[1]`, `got an array`},
		{`"` + strings.Repeat("9", 100) + `"`, `"99999999999999999999999999999999"… is neither`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			var v Value
			err := json.Unmarshal([]byte(tt.json), &v)
			if err == nil {
				t.Fatalf("Unmarshal(%s) = %v, want an error", tt.json, v)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseValueAndNewValue(t *testing.T) {
	v, err := ParseValue("1.5000")
	if err != nil || !v.Available() || v.String() != "1.5000" {
		t.Fatalf("ParseValue = %v, %v", v, err)
	}
	if b, _ := json.Marshal(v); string(b) != `"1.5000"` {
		t.Errorf("ParseValue re-encodes as %s", b)
	}
	n := NewValue(decimal.RequireFromString("2.75"))
	if b, _ := json.Marshal(n); string(b) != `"2.75"` {
		t.Errorf("NewValue encodes as %s", b)
	}
	var zero Value
	if b, _ := json.Marshal(zero); string(b) != "null" || zero.Available() || !zero.IsNull() {
		t.Errorf("zero Value: %s available=%v", b, zero.Available())
	}
}

// FuzzValue checks the decoder never panics, that an accepted value
// re-encodes to exactly its input token, and that the re-encoded token
// decodes to the same value. Seeds are in testdata/fuzz/FuzzValue.
func FuzzValue(f *testing.F) {
	for _, s := range []string{`"1.5000"`, `0.25`, `"x"`, `null`, `""`, `"-"`, `1e3`, `"abc"`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Value
		if err := v.UnmarshalJSON(data); err != nil {
			if !utf8.ValidString(err.Error()) && utf8.Valid(data) {
				t.Fatalf("error message is not valid UTF-8: %q", err)
			}
			return
		}
		out, err := v.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var again Value
		if err := again.UnmarshalJSON(out); err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", out, err)
		}
		if again.Available() != v.Available() || again.String() != v.String() {
			t.Fatalf("round trip changed %q into %q", v.String(), again.String())
		}
		if d1, ok := v.Decimal(); ok {
			if d2, _ := again.Decimal(); !d1.Equal(d2) {
				t.Fatalf("round trip changed %s into %s", d1, d2)
			}
		}
		if !json.Valid(out) && json.Valid(data) {
			t.Fatalf("valid input %q re-encoded as invalid JSON %q", data, out)
		}
	})
}
