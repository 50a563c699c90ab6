// Package invoiceid is the one rule for an invoice id that paycli sends:
// every command checks its --invoice flag and every batch line with Check,
// so that an id refused by one command is refused by all of them, the same
// way, before anything is sent or journaled (exit 2).
//
// An invoice id is the merchant's key for a payment: it goes into hash_key
// plaintexts (joined with '|'), the journal, the terminal and the gateway's
// own records, where an id that only looks like another would be a second
// payment. So Check refuses, rather than repairs, anything that can look
// different from what it is: nothing is trimmed or replaced silently.
package invoiceid

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the gateway's limit on an invoice id, in characters.
const MaxLen = 100

// ErrInvalid is matched (errors.Is) by every error Check returns.
var ErrInvalid = errors.New("invalid invoice id")

// Error says what is wrong with an invoice id; its message never holds the
// id itself, which may be anything.
type Error struct {
	// Reason is e.g. "it holds an invisible character (U+200B) at character 4".
	Reason string
}

func (e *Error) Error() string { return "the invoice id " + e.Reason }

// Is matches ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

func invalid(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// Check returns nil for an acceptable invoice id, else an *Error saying
// why not. An id must be non-empty, at most MaxLen characters (not bytes),
// valid UTF-8, and hold no '|' (the hash_key separator), no control
// character, no format character (Unicode Cf: zero-width spaces and
// joiners, bidirectional overrides such as U+202E, the byte order mark),
// no line or paragraph separator (U+2028, U+2029), no unassigned or
// private-use code point, no white space but the plain space (U+0020; NBSP
// and its kin look like it and are not), and no leading or trailing space.
func Check(id string) error {
	if id == "" {
		return invalid("is empty")
	}
	if !utf8.ValidString(id) {
		return invalid("is not valid UTF-8 (at byte %d)", firstInvalid(id))
	}
	n := 0
	var first, last rune
	for _, r := range id {
		n++
		if n == 1 {
			first = r
		}
		last = r
		if what := refused(r); what != "" {
			why := ""
			if r == '|' {
				why = ": it separates the fields of a hash_key"
			}
			return invalid("holds %s (U+%04X) at character %d%s", what, r, n, why)
		}
	}
	switch {
	case n > MaxLen:
		return invalid("is %d characters long; the gateway allows at most %d", n, MaxLen)
	case first == ' ':
		return invalid("starts with a space; remove it")
	case last == ' ':
		return invalid("ends with a space; remove it")
	}
	return nil
}

// refused names what is wrong with one character of an id, "" when it is
// acceptable.
func refused(r rune) string {
	switch {
	case r == '|':
		return "'|'"
	case r == '\u2028' || r == '\u2029':
		return "a line or paragraph separator"
	case unicode.IsControl(r):
		return "a control character"
	case unicode.Is(unicode.Cf, r):
		return "an invisible formatting character"
	case unicode.IsSpace(r) && r != ' ':
		// NBSP and its kin look like a space and are not one.
		return "white space other than a plain space"
	case unicode.Is(unicode.Co, r):
		return "a private-use character"
	case !unicode.IsPrint(r) && !unicode.IsSpace(r):
		// Unassigned code points and the like: nothing a person can read.
		return "a character that is not printable"
	}
	return ""
}

func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}
