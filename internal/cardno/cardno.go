// Package cardno reads card numbers as people type them, checks their
// Luhn digit and makes one. It never prints a number: callers mask what
// they show (first 6 and last 4 digits at most).
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
	return luhnSum(digits, false)%10 == 0
}

// CheckDigit is the digit that, written after payload (only '0'-'9'),
// makes a number that passes the Luhn check.
func CheckDigit(payload string) byte {
	return byte('0' + (10-luhnSum(payload, true)%10)%10)
}

// luhnSum is the Luhn sum of digits: every second digit from the right is
// doubled, starting with the rightmost when doubleLast (digits lack their
// check digit) and with the one left of it otherwise.
func luhnSum(digits string, doubleLast bool) int {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if (i%2 == 0) == doubleLast {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum
}
