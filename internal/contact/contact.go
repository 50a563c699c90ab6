// Package contact reads a customer's e-mail address and phone number as
// the gateway takes them (bill_email, bill_phone): one reading for every
// command that sends them, so that what the gateway would refuse is
// refused first, naming the field. It is a leaf: it reads no clock and
// calls nothing.
package contact

import (
	"errors"
	"net/mail"
	"strings"
)

// Limits of what the gateway takes.
const (
	// MaxEmail is the longest address a mail server takes (RFC 5321).
	MaxEmail = 254
	// MinPhoneDigits and MaxPhoneDigits bound a phone number's digits: a
	// Turkish national number has 10, an international one at most 15
	// (E.164); the official SDK's sample sends "905555555555".
	MinPhoneDigits = 10
	MaxPhoneDigits = 15
)

// Email checks an e-mail address: one plain address, name@example.com,
// without a display name or angle brackets, whose domain has a dot. The
// error never quotes the address: errors may end up in logs.
func Email(s string) error {
	switch {
	case s == "":
		return errors.New("the e-mail is empty")
	case len(s) > MaxEmail:
		return errors.New("the e-mail is longer than 254 characters")
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || !strings.Contains(s[strings.LastIndex(s, "@"):], ".") {
		return errors.New("not an e-mail address like name@example.com")
	}
	return nil
}

// Phone reads a phone number written with optional blanks, dashes, dots,
// parentheses and one leading plus sign, and returns its digits, as the
// gateway takes bill_phone ("905555555555"). The error never quotes the
// number.
func Phone(s string) (string, error) {
	var digits strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '+' && i == 0:
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", errors.New("a phone number holds only digits, blanks, dashes, dots, parentheses and a leading +")
		}
	}
	if n := digits.Len(); n < MinPhoneDigits || n > MaxPhoneDigits {
		return "", errors.New("a phone number has 10 to 15 digits, with its country code: +90 555 555 55 55")
	}
	return digits.String(), nil
}
