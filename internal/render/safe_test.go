package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/redact"
)

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain Şükrü – 1.75%", "plain Şükrü – 1.75%"},
		{"\x1b[2J", `\x1b[2J`},
		{"a\nb\rc\td", `a\nb\rc` + "\td"},
		{"\x00\x07\x7f", `\x00\x07\x7f`},
		{"\u009b31m", `\u009b31m`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"bad \xff byte", `bad \xff byte`},
		{`back\slash`, `back\slash`},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A gateway answer with an escape sequence in order_no and a full card
// number in credit_card_no (and in an unknown field) must reach neither
// the terminal nor a script as such; order_no stays whole.
func TestWriteFieldsEscapesAndMasks(t *testing.T) {
	str := func(name, v string) Field {
		b, _ := json.Marshal(v)
		return Field{Name: name, JSON: b, Text: v}
	}
	fs := []Field{
		str("order_no", "VP\x1b[2J4111111111111111"),
		str("credit_card_no", "4355084355084358"),
		{Name: "card_seen", JSON: json.RawMessage(`{"pan":5555555555554444,"list":["4111 1111 1111 1111"]}`), Text: "5555555555554444"},
		str("note\x1b]0;title\x07", "ok"),
	}
	var table bytes.Buffer
	if err := WriteFields(&table, Table, TableOptions{}, fs); err != nil {
		t.Fatal(err)
	}
	got := table.String()
	for _, bad := range []string{"\x1b", "\x07", "4355084355084358", "5555555555554444"} {
		if strings.Contains(got, bad) {
			t.Errorf("table holds %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{`VP\x1b[2J4111111111111111`, "435508******4358", "555555******4444", `note\x1b]0;title\x07`} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}

	var doc bytes.Buffer
	if err := WriteFields(&doc, JSON, TableOptions{}, fs); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(doc.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v["order_no"] != "VP\x1b[2J4111111111111111" {
		t.Errorf("JSON order_no = %q, want it whole (JSON escapes the ESC itself)", v["order_no"])
	}
	if v["credit_card_no"] != "435508******4358" {
		t.Errorf("JSON credit_card_no = %q", v["credit_card_no"])
	}
	if !strings.Contains(doc.String(), `"pan": "555555******4444"`) || !strings.Contains(doc.String(), `"4111 11** **** 1111"`) {
		t.Errorf("JSON card_seen not masked:\n%s", doc.String())
	}
	if bytes.Contains(doc.Bytes(), []byte("\x1b")) {
		t.Errorf("JSON holds a raw ESC:\n%s", doc.String())
	}
}

// TestWriteFieldsMasksACardInvoiceID: invoice_id is the merchant's input
// echoed back, not a gateway reference: an invoice id that is a card
// number is masked in every format, while order_no stays whole.
func TestWriteFieldsMasksACardInvoiceID(t *testing.T) {
	fs := []Field{StringField("invoice_id", "4111111111111111"), StringField("order_no", "VP4012888888881881")}
	for _, format := range []Format{Table, JSON, CSV} {
		var b bytes.Buffer
		if err := WriteFields(&b, format, TableOptions{}, fs); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); strings.Contains(got, "4111111111111111") || !strings.Contains(got, "411111******1111") ||
			!strings.Contains(got, "VP4012888888881881") {
			t.Errorf("format %v:\n%s", format, got)
		}
	}
}

// TestMaskFields: what a --jq filter is given is masked as WriteFields
// prints it: invoice_id masked, order_no whole, the input left as it was.
func TestMaskFields(t *testing.T) {
	fs := []Field{StringField("invoice_id", "4111111111111111"), StringField("order_no", "VP4012888888881881"),
		{Name: "seen", JSON: json.RawMessage(`{"pan":5555555555554444}`), Text: "5555555555554444"},
		StringField("refund_transaction_id", "RF4012888888881881aaaaaaaa")}
	got := string(MarshalFields(MaskFields(fs)))
	if want := `{"invoice_id":"411111******1111","order_no":"VP4012888888881881","seen":{"pan":"555555******4444"},"refund_transaction_id":"RF4012888888881881aaaaaaaa"}`; got != want {
		t.Errorf("MaskFields: %s, want %s", got, want)
	}
	if fs[0].Text != "4111111111111111" || string(fs[2].JSON) != `{"pan":5555555555554444}` {
		t.Errorf("MaskFields changed its input: %+v", fs)
	}
}

func TestWriteTableEscapesCells(t *testing.T) {
	var buf bytes.Buffer
	err := WriteTable(&buf, TableOptions{}, []string{"A\x1b[31m", "B"}, [][]string{{"x\x1b[2Jy", "line\nbreak"}, {"", ""}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("\x1b")) || !strings.Contains(buf.String(), `x\x1b[2Jy  line\nbreak`) {
		t.Errorf("table:\n%q", buf.String())
	}
}

// FuzzEscapeAndMask: whatever the text, Escape leaves no character a
// terminal acts on, and masking keeps the text's length and its
// non-digits.
func FuzzEscapeAndMask(f *testing.F) {
	f.Add("VP\x1b[2J 4355 0843 5508 4358\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q, not UTF-8", s, e)
		}
		for _, r := range e {
			if needsEscape(r, utf8.RuneLen(r)) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, e, r)
			}
		}
		m := redact.Cards(s)
		if len(m) != len(s) {
			t.Fatalf("redact.Cards(%q) = %q changed the length", s, m)
		}
		for i := range len(s) {
			if m[i] != s[i] && (!isDigit(s[i]) || m[i] != '*') {
				t.Fatalf("redact.Cards(%q) = %q changed byte %d", s, m, i)
			}
		}
	})
}

// Colour comes from the options, after escaping: a cell's own escape
// sequence is shown, the colour asked for is applied.
func TestWriteTableColoursAfterEscaping(t *testing.T) {
	p := Palette{Enabled: true}
	opts := TableOptions{Palette: p, Colour: func(row, col int) func(string) string {
		if col == 1 {
			return p.Green
		}
		return nil
	}}
	var buf bytes.Buffer
	if err := WriteTable(&buf, opts, []string{"INVOICE", "OUTCOME"}, [][]string{{"INV\x1b[2J", "succeeded"}}); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if !strings.Contains(got, `INV\x1b[2J`) || !strings.Contains(got, p.Green("succeeded")) {
		t.Errorf("table:\n%q", got)
	}
	var plain bytes.Buffer
	opts.Palette = Palette{}
	if err := WriteTable(&plain, opts, []string{"INVOICE", "OUTCOME"}, [][]string{{"INV", "succeeded"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("colour without a palette:\n%q", plain.String())
	}
}
