package redact

import (
	"strings"
	"testing"
)

func TestCards(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"4355084355084358", "435508******4358"},
		{"card 4355 0843 5508 4358 used", "card 4355 08** **** 4358 used"},
		{"5406-6754-0667-5403", "5406-67**-****-5403"},
		{"4355084355084357", "4355084355084357"}, // fails the Luhn check
		{"4111111111111111 and 5555555555554444", "411111******1111 and 555555******4444"},
		{"ref 1234 4111111111111111", "ref 1234 411111******1111"},
		{"123456789012", "123456789012"}, // too short
		{"amount 1000.50, 2026-11-22", "amount 1000.50, 2026-11-22"},
		// The reviewer's strings: a digit group just before the card made
		// one run of more than 19 digits, left whole.
		{"Card 7 4355084332124350 is blocked", "Card 7 435508******4350 is blocked"},
		// Here a longer window passes the check too ("77 4355…" is 18
		// digits): both middles are masked, more than the card's.
		{"Card 77 4355-0843-3212-4350", "Card 77 4355-****-****-4350"},
		{"12 34 4355 0843 3212 4350 56", "12 34 4355 **** **** **50 56"},
		// Glued to other digits: a group of more than 19 digits hides it.
		{"41111111111111111111111", "411111******11111111111"},
		// A '*' glued before or after a card must not hide it (found by
		// fuzzing a gateway answer).
		{"0 *4355084355084358A", "0 *435508******4358A"},
		{"4355084355084358*", "435508******4358*"},
		// A snapshot build's version holds a 14-digit date; it is no card.
		{"paycli/0.0.0-20261122160903-0123abcd4567", "paycli/0.0.0-20261122160903-0123abcd4567"},
	} {
		if got := Cards(tt.in); got != tt.want {
			t.Errorf("Cards(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCardField(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"4355084355084357", "435508******4357"}, // masked though it fails the Luhn check
		{"4355 0843 5508 4357", "4355 08** **** 4357"},
		{"43550843550843", "435508****0843"},
		{"123456789012", "************"},
		{"", ""},
	} {
		if got := CardField(tt.in); got != tt.want {
			t.Errorf("CardField(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// luhnWindowLeft reports a window of masked text s that a card could be
// in (see Cards) whose digits all survive and pass the Luhn check. It is
// written apart from maskLuhnWindows, the plain way: split into runs and
// groups (a masked digit still counts in them), try every window.
func luhnWindowLeft(s string) (string, bool) {
	digitOrMask := func(c byte) bool { return isDigit(c) || c == '*' }
	for i := 0; i < len(s); {
		if !digitOrMask(s[i]) {
			i++
			continue
		}
		end := i
		for end < len(s) && (digitOrMask(s[end]) || (s[end] == ' ' || s[end] == '-') && end+1 < len(s) && digitOrMask(s[end+1])) {
			end++
		}
		var groups []string
		for _, g := range strings.FieldsFunc(s[i:end], func(r rune) bool { return r == ' ' || r == '-' }) {
			// the edge between masked and plain digits also starts a group
			for len(g) > 0 {
				k := 1
				for k < len(g) && (g[k] == '*') == (g[0] == '*') {
					k++
				}
				groups = append(groups, g[:k])
				g = g[k:]
			}
		}
		var digits []byte
		var starts, ends []bool // may a window start / end at this digit
		for _, g := range groups {
			for k := range len(g) {
				digits = append(digits, g[k])
				starts = append(starts, k == 0 || len(g) > 19)
				ends = append(ends, k == len(g)-1 || len(g) > 19)
			}
		}
		for a := range digits {
			for b := a + 13; b <= a+19 && b <= len(digits); b++ {
				w := digits[a:b]
				if starts[a] && ends[b-1] && allDigits(w) && luhnValid(w) {
					return string(w), true
				}
			}
		}
		i = end
	}
	return "", false
}

// FuzzCards: whatever the text, no card number survives masking (also one
// glued to a '*'), and masking keeps the text's length and every byte but
// the masked digits; masking masked text changes nothing.
func FuzzCards(f *testing.F) {
	f.Add("Card 7 4355084332124350 is blocked")
	f.Add("12 34 4355 0843 3212 4350 56")
	f.Add("41111111111111111111111")
	f.Add("paycli/0.0.0-20261122160903-0123abcd4567")
	f.Fuzz(func(t *testing.T, s string) {
		m := Cards(s)
		if w, ok := luhnWindowLeft(m); ok {
			t.Fatalf("Cards(%q) = %q leaves the card number %s", s, m, w)
		}
		if len(m) != len(s) {
			t.Fatalf("Cards(%q) = %q changed the length", s, m)
		}
		for i := range len(s) {
			if m[i] != s[i] && (!isDigit(s[i]) || m[i] != '*') {
				t.Fatalf("Cards(%q) = %q changed byte %d", s, m, i)
			}
		}
		if again := Cards(m); again != m {
			t.Fatalf("Cards is not idempotent: %q -> %q -> %q", s, m, again)
		}
	})
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func TestHasCard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"4111111111111111", true},
		{"INV 4355-0843-5508-4358", true},
		{"4355084355084357", false}, // fails the Luhn check
		{"INV-1001", false},
		{"411111******1111", false}, // masked already
		{"", false},
	} {
		if got := HasCard(tt.in); got != tt.want {
			t.Errorf("HasCard(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestInvoice(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"4111111111111111", "411111******1111"},
		{"INV-4111111111111111", "INV-411111******1111"},
		{"INV-1001", "INV-1001"},
		{"4111111111111112", "4111111111111112"}, // fails the Luhn check
	} {
		if got := Invoice(tt.in); got != tt.want {
			t.Errorf("Invoice(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSecret(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"short-secret":                     "••••••••",
		"9c4b2e7f1a6d3c8e5b0f2a4d6c8e1b3f": "9c4b••••1b3f",
		"ÇağlarŞükrüİşlem":                 "Çağl••••şlem",
	} {
		if got := Secret(in); got != want {
			t.Errorf("Secret(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCardText: a card masked with any number of asterisks, or whole, is
// shown one way (435508******4358); other text only has its cards masked.
func TestCardText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"435508****4358", "435508******4358"},
		{"435508******4358", "435508******4358"},
		{" 4355084355084358 ", "435508******4358"},
		{"4355 0843 5508 4358", "4355 08** **** 4358"},
		{"unknown", "unknown"},
		{"", ""},
	} {
		if got := CardText(tt.in); got != tt.want {
			t.Errorf("CardText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzCardText: whatever a gateway or a journal line wrote as a card, what
// is shown leaves no card number, and showing it again changes nothing.
func FuzzCardText(f *testing.F) {
	f.Add("435508****4358")
	f.Add("4355084355084358")
	f.Add("4355 0843 5508 4358")
	f.Add("5406******5403 7")
	f.Fuzz(func(t *testing.T, s string) {
		m := CardText(s)
		if w, ok := luhnWindowLeft(m); ok {
			t.Fatalf("CardText(%q) = %q leaves the card number %s", s, m, w)
		}
		if again := CardText(m); again != m {
			t.Fatalf("CardText is not idempotent: %q -> %q -> %q", s, m, again)
		}
	})
}
