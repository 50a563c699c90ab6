package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type card struct {
	BIN   string `json:"bin"`
	Last4 string `json:"last4"`
}

type line struct {
	Invoice string          `json:"invoice"`
	Amount  json.Number     `json:"amount,omitempty"`
	Full    bool            `json:"full"`
	Card    *card           `json:"card"`
	Cards   []card          `json:"cards"`
	Meta    map[string]any  `json:"meta"`
	Raw     json.RawMessage `json:"raw"`
	Skipped string          `json:"-"`
}

func TestUnmarshal(t *testing.T) {
	var l line
	in := `{"invoice":"İŞLEM-1 \ud83d\ude00","amount":150.00,"card":{"bin":"435508","last4":"4358"},"cards":[{"bin":"1"}],"meta":{"Any":1,"any":2},"raw":{"x":1,"X":2}}`
	if err := Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	if l.Invoice != "İŞLEM-1 😀" || l.Amount != "150.00" || l.Card.Last4 != "4358" || len(l.Cards) != 1 || len(l.Meta) != 2 {
		t.Errorf("decoded as %+v", l)
	}
}

func TestRefused(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"case variant", `{"INVOICE":"A"}`, `key "INVOICE" is not "invoice": key names are case-sensitive`},
		{"escaped case variant", `{"\u0049nvoice":"A"}`, `key "Invoice" is not "invoice"`},
		{"nested case variant", `{"invoice":"A","card":{"BIN":"1"}}`, `key "card.BIN" is not "card.bin"`},
		{"case variant in array", `{"cards":[{"bin":"1"},{"Last4":"1"}]}`, `key "cards[].Last4"`},
		{"unknown", `{"invoice":"A","amonut":"1"}`, `unknown key "amonut"`},
		{"ignored field name", `{"Skipped":"x"}`, `unknown key "Skipped"`},
		{"duplicate", `{"invoice":"A","invoice":"B"}`, `duplicate key "invoice" at byte 14`},
		{"duplicate via escape", `{"invoice":"A","\u0069nvoice":"B"}`, `duplicate key "invoice"`},
		{"nested duplicate", `{"card":{"bin":"1","bin":"2"}}`, `duplicate key "card.bin"`},
		{"duplicate in a free map", `{"meta":{"a":1,"a":2}}`, `duplicate key "meta.a"`},
		{"duplicate in raw", `{"raw":[{"a":1,"a":2}]}`, `duplicate key "raw[].a"`},
		{"invalid UTF-8", "{\"invoice\":\"INV\xff1\"}", "invalid UTF-8 at byte 15"},
		{"overlong UTF-8", "{\"invoice\":\"\xc0\xaf\"}", "invalid UTF-8 at byte 12"},
		{"UTF-8 surrogate", "{\"invoice\":\"\xed\xa0\x80\"}", "invalid UTF-8"},
		{"lone high surrogate", `{"invoice":"A\ud800"}`, `half of a UTF-16 surrogate pair (not a character) at byte 13`},
		{"lone low surrogate", `{"invoice":"\udc00x"}`, "surrogate"},
		{"reversed pair", `{"invoice":"\ude00\ud83d"}`, "surrogate"},
		{"surrogate in key", `{"\ud800":1}`, "surrogate"},
		{"BOM", "\xef\xbb\xbf{\"invoice\":\"A\"}", "not a JSON object at byte 0"},
		{"array", `[{"invoice":"A"}]`, "not a JSON object"},
		{"empty", ` `, "empty input"},
		{"two values", `{"invoice":"A"} {}`, "text after the JSON object at byte 16"},
		{"trailing garbage", `{"invoice":"A"}x`, "text after the JSON object at byte 15"},
		{"truncated", `{"invoice":"A"`, "truncated JSON"},
		{"wrong type", `{"invoice":1}`, `"invoice" is a JSON number, not the string it should be`},
		{"nested wrong type", `{"card":{"bin":5}}`, `"card.bin" is a JSON number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l line
			err := Unmarshal([]byte(tt.in), &l)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestEscapesThatAreFine(t *testing.T) {
	for _, in := range []string{`{"invoice":"a\\ud800"}`, `{"invoice":"\"\\\\ud800\""}`, `{"invoice":"\u00e9\ud83d\ude00\\"}`} {
		var l line
		if err := Unmarshal([]byte(in), &l); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestUnmarshalKnown(t *testing.T) {
	var c card
	if err := UnmarshalKnown([]byte(`{"bin":"435508","last4":"4358","sub":"x","aud":["a"]}`), &c); err != nil || c.BIN != "435508" {
		t.Fatalf("%+v, %v", c, err)
	}
	for _, in := range []string{`{"bin":"1","Bin":"2"}`, `{"BIN":"1"}`, `{"bin":"1","bin":"1"}`, "{\"sub\":\"\xff\"}"} {
		if err := UnmarshalKnown([]byte(in), &c); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

func TestTrimBOM(t *testing.T) {
	if got := string(TrimBOM([]byte("\xef\xbb\xbf{}"))); got != "{}" {
		t.Errorf("TrimBOM = %q", got)
	}
	if got := string(TrimBOM([]byte("{}"))); got != "{}" {
		t.Errorf("TrimBOM = %q", got)
	}
	var l line
	if err := Unmarshal(TrimBOM([]byte("\xef\xbb\xbf{\"invoice\":\"A\"}")), &l); err != nil || l.Invoice != "A" {
		t.Errorf("%+v, %v", l, err)
	}
}

// FuzzUnmarshal: whatever Unmarshal accepts, encoding/json reads the same
// way, is valid UTF-8 with no replacement character that was not in the
// input, and has no duplicate or case-variant keys.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{"invoice":"A","amount":"1"}`, `{"INVOICE":"A"}`, `{"invoice":"A","invoice":"B"}`, "{\"invoice\":\"\xff\"}",
		`{"invoice":"\ud800"}`, `{"card":{"bin":"1","last4":"2"},"cards":[{"bin":"3"}]}`, `{"meta":{"a":{"b":[1,2]}}}`, `{"raw":"\\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var l line
		if err := Unmarshal(data, &l); err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		if !strings.Contains(string(data), "\ufffd") && !strings.Contains(strings.ToLower(string(data)), `\ufffd`) && strings.ContainsRune(l.Invoice, '\ufffd') {
			t.Fatalf("%q decoded to an invoice with U+FFFD: %q", data, l.Invoice)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
		}
		names := map[string]bool{"invoice": true, "amount": true, "full": true, "card": true, "cards": true, "meta": true, "raw": true}
		for k := range m {
			if !names[k] {
				t.Fatalf("accepted unknown key %q", k)
			}
		}
	})
}
