// Package cardno reads card numbers as people type them and checks their
// Luhn digit. It never prints a number: callers mask what they show
// (first 6 and last 4 digits at most).
package cardno

import "strings"

// Digits returns s without the blanks or dashes that group a card number
// ("4355 0843 5508 4358", "4355-0843-5508-4358"): one separator between
// two digits. ok is false when s holds anything else, a separator at
// either end or two in a row.
func Digits(s string) (digits string, ok bool) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	prevDigit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
			prevDigit = true
		case (c == ' ' || c == '-') && prevDigit && i+1 < len(s):
			prevDigit = false
		default:
			return "", false
		}
	}
	return b.String(), s != ""
}

// Luhn reports whether digits (only '0'-'9') pass the Luhn check, as every
// card number does.
func Luhn(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
