package contact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEmail(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"ayse@example.com", true},
		{"a.b+c@mail.example.com.tr", true},
		{"", false},
		{"ayse", false},
		{"ayse@example", false},
		{"Ayşe <ayse@example.com>", false},
		{"<ayse@example.com>", false},
		{" ayse@example.com", false},
		{"ayse@@example.com", false},
		{strings.Repeat("a", 250) + "@example.com", false},
	} {
		if err := Email(tc.in); (err == nil) != tc.ok {
			t.Errorf("Email(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

func TestPhone(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"905555555555", "905555555555"},
		{"+90 555 555 55 55", "905555555555"},
		{"(0555) 555-55.55", "05555555555"},
		{"5555555555", "5555555555"},
		{"", ""},
		{"555 55 55", ""},
		{"+90 555 555 55 55 55 55", ""},
		{"90+5555555555", ""},
		{"++905555555555", ""},
		{"0555 555 55 55 ext 2", ""},
		{"٠٥٥٥٥٥٥٥٥٥٥", ""},
	} {
		got, err := Phone(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("Phone(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestErrorsNeverQuote(t *testing.T) {
	if err := Email("secret-name@nodot"); err == nil || strings.Contains(err.Error(), "secret-name") {
		t.Errorf("Email error: %v", err)
	}
	if _, err := Phone("5551234x"); err == nil || strings.Contains(err.Error(), "5551234") {
		t.Errorf("Phone error: %v", err)
	}
}

// FuzzPhone: what Phone accepts is its digits, 10 to 15 of them, and the
// text it came from holds them in order.
func FuzzPhone(f *testing.F) {
	for _, s := range []string{"905555555555", "+90 (555) 555-55.55", "", "+", "٠٥٥٥", "12345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Phone(s)
		if err != nil {
			if got != "" {
				t.Fatalf("Phone(%q) = %q with an error", s, got)
			}
			return
		}
		if len(got) < MinPhoneDigits || len(got) > MaxPhoneDigits || strings.Trim(got, "0123456789") != "" {
			t.Fatalf("Phone(%q) = %q", s, got)
		}
		if strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s) != got {
			t.Fatalf("Phone(%q) = %q: not the text's digits", s, got)
		}
	})
}

// FuzzEmail: an accepted address is valid UTF-8, of bounded length, with
// one @ before a domain holding a dot, and no blank or angle bracket.
func FuzzEmail(f *testing.F) {
	for _, s := range []string{"ayse@example.com", "a <b@c.d>", "\"a b\"@example.com", "a@b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Email(s) != nil {
			return
		}
		at := strings.LastIndex(s, "@")
		if !utf8.ValidString(s) || len(s) > MaxEmail || at < 1 || !strings.Contains(s[at:], ".") || strings.ContainsAny(s, "<>\n\r") {
			t.Fatalf("Email accepted %q", s)
		}
	})
}
