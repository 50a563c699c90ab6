package money

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// TestAmountsAsPeopleWriteThem: a grouped amount or a decimal comma is
// refused with its plain reading when there is one, both readings when
// there are two, and the one message of its problem (issue 34, part 2,
// item 4).
func TestAmountsAsPeopleWriteThem(t *testing.T) {
	for _, tc := range []struct {
		in      string
		problem Problem
		message string
	}{
		{"1,250.50", NotPlain, `"1,250.50" is not a plain decimal; did you mean 1250.50?`},
		{"1.250,50", NotPlain, `"1.250,50" is not a plain decimal; did you mean 1250.50?`},
		{"1 250,50", NotPlain, `"1 250,50" is not a plain decimal; did you mean 1250.50?`},
		{"1\u00a0250.50", NotPlain, `"1\u00a0250.50" is not a plain decimal; did you mean 1250.50?`},
		{"1'250.50", NotPlain, `"1'250.50" is not a plain decimal; did you mean 1250.50?`},
		{"1250,50", NotPlain, `"1250,50" is not a plain decimal; did you mean 1250.50?`},
		{"1,5", NotPlain, `"1,5" is not a plain decimal; did you mean 1.5?`},
		{"9,999.99", NotPlain, `"9,999.99" is not a plain decimal; did you mean 9999.99?`},
		{"1234,567", NotPlain, `"1234,567" is not a plain decimal; did you mean 1234.567?`},
		{"1,2345", NotPlain, `"1,2345" is not a plain decimal; did you mean 1.2345?`},
		{"100,000,000,000,000,000,000", TooLong, `"100,000,000,000,000,000,000" has more than 20 digits before the point or 8 after it`},
		{"1,250,000", NotPlain, `"1,250,000" is not a plain decimal; did you mean 1250000?`},
		{"1.250.000,75", NotPlain, `"1.250.000,75" is not a plain decimal; did you mean 1250000.75?`},
		{"1 250", NotPlain, `"1 250" is not a plain decimal; did you mean 1250?`},
		{".5", NotPlain, `".5" is not a plain decimal; did you mean 0.5?`},
		{"5.", NotPlain, `"5." is not a plain decimal; did you mean 5?`},
		{"+5", NotPlain, `"+5" is not a plain decimal; did you mean 5?`},
		{"1,250", NotPlain, `"1,250" is not a plain decimal; write 1250 or 1.250 (a point for decimals, no grouping)`},
		{"12,345", NotPlain, `"12,345" is not a plain decimal; write 12345 or 12.345 (a point for decimals, no grouping)`},
		{"1,2,3", NotPlain, `"1,2,3" is not a plain decimal like 1250.50`},
		{"1,250,50", NotPlain, `"1,250,50" is not a plain decimal like 1250.50`},
		{"1.250.50", NotPlain, `"1.250.50" is not a plain decimal like 1250.50`},
		{"1,250.500,1", NotPlain, `"1,250.500,1" is not a plain decimal like 1250.50`},
		{"12,34,567", NotPlain, `"12,34,567" is not a plain decimal like 1250.50`},
		{"1,,250", NotPlain, `"1,,250" is not a plain decimal like 1250.50`},
		{",5", NotPlain, `",5" is not a plain decimal like 1250.50`},
		{"1e3", NotPlain, `"1e3" is not a plain decimal like 1250.50`},
		{"abc", NotPlain, `"abc" is not a plain decimal like 1250.50`},
		{"-5", Negative, `"-5" is not more than zero`},
		{"-1,250.50", Negative, `"-1,250.50" is not more than zero`},
		{"0", Zero, `"0" is not more than zero`},
		{"0,00", Zero, `"0,00" is not more than zero`},
		{"-0,00", Zero, `"-0,00" is not more than zero`},
		{"1," + strings.Repeat("000,", 7) + "000", TooLong, `"1,000,000,000,000,000,000,000,000" has more than 20 digits before the point or 8 after it`},
		{"4355 0845 4111 4358", NotPlain, `"4355 08** **** 4358" is not a plain decimal like 1250.50`},
	} {
		_, err := ParseAmount(tc.in)
		var ae *AmountError
		if !errors.As(err, &ae) || ae.Problem != tc.problem || ae.Text != tc.in || err.Error() != tc.message {
			t.Errorf("ParseAmount(%q) = %v (%#v)\nwant problem %d: %s", tc.in, err, err, tc.problem, tc.message)
		}
	}
}

// TestShownTextIsBounded: a long text is cut in an error, never in the
// middle of a character.
func TestShownTextIsBounded(t *testing.T) {
	for _, tc := range []struct {
		text string
		cut  bool
	}{{strings.Repeat("x", 40), false}, {strings.Repeat("x", 41), true}} {
		_, err := ParseAmount(tc.text)
		if msg := err.Error(); strings.Contains(msg, "…") != tc.cut || strings.Contains(msg, strings.Repeat("x", 41)) {
			t.Errorf("%d bytes: %q", len(tc.text), msg)
		}
	}
	_, err := ParseAmount(strings.Repeat("é", 30))
	if msg := err.Error(); !utf8.ValidString(msg) || !strings.Contains(msg, "…") || len(msg) > 90 {
		t.Errorf("error %q", msg)
	}
}

// TestRoundIsHalfAwayFromZero pins the one rounding rule of money shown
// to a person (docs/commissions.md): halves go away from zero, the rest
// to the nearest minor unit, and Shown writes exactly the minor unit's
// decimals.
func TestRoundIsHalfAwayFromZero(t *testing.T) {
	for _, tc := range []struct {
		in    string
		minor int32
		want  string
	}{
		{"58.1483", 2, "58.15"}, {"58.1449", 2, "58.14"}, {"2.345", 2, "2.35"}, {"2.355", 2, "2.36"},
		{"-2.345", 2, "-2.35"}, {"-2.344", 2, "-2.34"}, {"0.005", 2, "0.01"}, {"0.0049", 2, "0.00"},
		{"1192.3517", 2, "1192.35"}, {"7", 2, "7.00"}, {"12.5", 0, "13"}, {"11.5", 0, "12"}, {"1.0005", 3, "1.001"},
	} {
		if got := Shown(decimal.RequireFromString(tc.in), tc.minor); got != tc.want {
			t.Errorf("Shown(%s, %d) = %s, want %s", tc.in, tc.minor, got, tc.want)
		}
		if got := Round(decimal.RequireFromString(tc.in), tc.minor); got.StringFixed(tc.minor) != tc.want {
			t.Errorf("Round(%s, %d) = %s, want %s", tc.in, tc.minor, got, tc.want)
		}
	}
}

// FuzzParseAmount: whatever the text, ParseAmount either reads a positive
// plain decimal or names one problem in one line that shows no card
// number; a reading it suggests is itself an amount with the text's digits
// in the same order.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1,250.50", "1.250,50", "1,250", "-5", "0", "+5", ".5", "1 250", "4355084541114358", "1e3", "50.00", " 7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAmount(s)
		if err == nil {
			if !d.IsPositive() || !parseable(strings.TrimSpace(s)) {
				t.Fatalf("ParseAmount(%q) = %s", s, d)
			}
			return
		}
		var ae *AmountError
		if !errors.As(err, &ae) || ae.Text != s {
			t.Fatalf("ParseAmount(%q): %#v", s, err)
		}
		msg := err.Error()
		if strings.ContainsAny(msg, "\n\r") || !utf8.ValidString(msg) {
			t.Fatalf("message %q", msg)
		}
		if len(ae.Readings) > 0 && ae.Problem != NotPlain || len(ae.Readings) > 2 {
			t.Fatalf("ParseAmount(%q): readings %q with problem %d", s, ae.Readings, ae.Problem)
		}
		digits := func(s string) string {
			return strings.TrimLeft(strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, s), "0")
		}
		for _, r := range ae.Readings {
			got, rerr := ParseAmount(r)
			if rerr != nil || !got.IsPositive() {
				t.Fatalf("ParseAmount(%q) suggests %q, which reads as %v", s, r, rerr)
			}
			if digits(r) != digits(s) {
				t.Fatalf("ParseAmount(%q) suggests %q: other digits", s, r)
			}
		}
		if len(ae.Readings) == 2 && slices.Equal(ae.Readings[:1], ae.Readings[1:]) {
			t.Fatalf("ParseAmount(%q): the same reading twice", s)
		}
	})
}
