package invoiceid

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckAccepts(t *testing.T) {
	for _, id := range []string{"INV-1001", "a", "İŞLEM-1", "Şükrü Çağlar 2026/11", "订单-1", "😀", strings.Repeat("ş", MaxLen), "A B"} {
		if err := Check(id); err != nil {
			t.Errorf("Check(%q) = %v", id, err)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	tests := []struct{ id, want string }{
		{"", "is empty"},
		{"INV\xff1", "is not valid UTF-8 (at byte 3)"},
		{"A|B", "holds '|'"},
		{"A\nB", "holds a control character (U+000A) at character 2"},
		{"A\tB", "control character"},
		{"A\x00", "control character"},
		{"A\u0085B", "control character"},
		{"A\u200bB", "invisible formatting character (U+200B)"},
		{"\u202eINV", "invisible formatting character (U+202E) at character 1"},
		{"INV\ufeff", "U+FEFF"},
		{"A\u00adB", "U+00AD"},
		{"A\u2028B", "line or paragraph separator (U+2028)"},
		{"A\u2029", "U+2029"},
		{"A\ue000", "private-use"},
		{"A\U000e0001", "U+E0001"},
		{"A\u0378", "not printable"},
		{" INV", "starts with a space; remove it"},
		{"INV ", "ends with a space; remove it"},
		{"\u00a0INV", "white space other than a plain space (U+00A0) at character 1"},
		{"INV\u00a0", "white space other than a plain space (U+00A0) at character 4"},
		{"x\u00a0y", "U+00A0"},
		{"INV\u3000", "U+3000"},
		{"INV\u2007", "U+2007"},
		{strings.Repeat("ş", MaxLen+1), "is 101 characters long; the gateway allows at most 100"},
	}
	for _, tt := range tests {
		err := Check(tt.id)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Check(%q) = %v, want ErrInvalid", tt.id, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%q) = %q\nwant it to contain %q", tt.id, err, tt.want)
		}
		if strings.ContainsAny(err.Error(), "\n\u202e\u200b") {
			t.Errorf("the message %q repeats a character it refuses", err)
		}
	}
}

// FuzzCheck: an accepted id is valid UTF-8, short enough, has no '|' and
// no leading or trailing space; messages are one line.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"INV-1", "A|B", "\u202e", " x", "x\u00a0", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := Check(id)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("message %q is not one line", err)
			}
			return
		}
		if !utf8.ValidString(id) || utf8.RuneCountInString(id) > MaxLen || strings.Contains(id, "|") || strings.TrimSpace(id) != id || id == "" {
			t.Fatalf("Check accepted %q", id)
		}
	})
}
