package redact

import (
	"strings"

	"github.com/paycli/paycli/internal/cardno"
)

// A card number in outside text is a run of 13 to 19 digits that passes the
// Luhn check, written together or in groups split by single blanks or
// dashes ("4355 0843 5508 4358", "5406-6754-0667-5403"). Masking keeps its
// first 6 and last 4 digits, as card schemes allow to show, and turns the
// digits between into '*'; separators and every other byte stay, so the
// text keeps its length and layout.
//
// A card is found even when another digit group sits next to it ("Card 7
// 4355084332124350"): every window of whole consecutive groups holding 13
// to 19 digits is tried, not only the whole run. A group of more than 19
// digits cannot be a card by itself, so one glued to other digits may hide
// inside it: there every 13 to 19 digit window is tried. Other digit runs
// (amounts, dates, order numbers that fail the check, the date in a
// version string) are left alone: masking them hides what the reader needs
// and protects nothing.

// Cards masks every card number in s. Masking may open a new window (the
// edge after a masked digit can start one), so it is repeated until
// nothing changes: each pass only turns digits into '*', so it ends, and
// masking masked text changes nothing.
func Cards(s string) string {
	if digitCount(s) < 13 {
		return s // no card fits: most texts (and every short id) leave here
	}
	for {
		out := maskRuns(s, func(run []byte, digits []int) { maskLuhnWindows(run, digits) })
		if out == s {
			return out
		}
		s = out
	}
}

// HasCard reports whether s holds a card number: whether Cards would mask
// any of it. A value that does is shown masked, so it cannot be printed in
// a command line meant to be pasted back (the masked text names another
// value); the printer says where to find it instead.
func HasCard(s string) bool { return Cards(s) != s }

// Invoice is an invoice id as paycli shows it: any card number in it
// masked (Cards). An invoice id is the merchant's input, and one that is a
// card number typed in the wrong place is a card number like any other.
// Whatever names an invoice for a person or a script — a message, a
// summary, a table, a result's invoice_id — shows it through here, where
// it puts the id in, so that the gateway's references beside it (order
// numbers, which can pass the Luhn check by chance) stay whole. Lookups and
// the journal keep the id whole, and a command line meant to be pasted
// never names such an id (cmdutil.InvoiceCommandLine).
func Invoice(id string) string { return Cards(id) }

// CardField masks the value of a field that holds a card number by name:
// every digit run is masked whether or not it passes the Luhn check (a
// mistyped card is still a card). A run of 13 digits or more keeps its
// first 6 and last 4; a shorter one is hidden whole.
func CardField(s string) string {
	return maskRuns(s, func(run []byte, digits []int) {
		keep := len(digits) >= 13
		for n, i := range digits {
			if !keep || n >= 6 && n < len(digits)-4 {
				run[i] = '*'
			}
		}
	})
}

// Card is the one way a card is shown: its first 6 and last 4 digits
// around six asterisks ("435508******4358"), as the gateway masks one,
// whatever the number's length.
func Card(first6, last4 string) string { return first6 + "******" + last4 }

// CardText shows a card as a text wrote it (the gateway's cc_no or
// credit_card_no, a journal line's card; masked with any number of
// asterisks, or not at all) the way Card does when the text holds its first
// 6 and last 4 digits; any other text is returned with the card numbers in
// it masked (Cards), trimmed. "" stays "".
func CardText(text string) string {
	c := strings.TrimSpace(text)
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	if len(c) >= 10 && digits(c[:6]) && digits(c[len(c)-4:]) && strings.Trim(c[6:len(c)-4], "0123456789*") == "" {
		return Card(c[:6], c[len(c)-4:])
	}
	return Cards(c)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitCount counts the digits of s.
func digitCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}

// inRun reports whether c belongs to a digit run: a digit, or '*', a digit
// masked already, so that masking masked text changes nothing.
func inRun(c byte) bool { return isDigit(c) || c == '*' }

// maskRuns calls mask on every run of digits (with single blanks or dashes
// between them) in s, with the positions of the run's digits (masked ones
// included), and returns s with the runs as mask left them.
func maskRuns(s string, mask func(run []byte, digits []int)) string {
	var out []byte
	var digits []int
	for i := 0; i < len(s); {
		if !inRun(s[i]) {
			i++
			continue
		}
		end := runEnd(s, i)
		if out == nil {
			out = []byte(s)
		}
		digits = digits[:0]
		for j := i; j < end; j++ {
			if inRun(s[j]) {
				digits = append(digits, j-i)
			}
		}
		mask(out[i:end], digits)
		i = end
	}
	if out == nil || string(out) == s {
		return s
	}
	return string(out)
}

// runEnd is the end of the digits starting at i, with single blanks or
// dashes between them.
func runEnd(s string, i int) int {
	end := i
	for end < len(s) {
		switch {
		case inRun(s[end]):
			end++
		case (s[end] == ' ' || s[end] == '-') && end+1 < len(s) && inRun(s[end+1]):
			end += 2
		default:
			return end
		}
	}
	return end
}

// maskLuhnWindows masks, in run, the card numbers among the windows of its
// digits (digits holds their positions in run). Every window is judged on
// the digits as written, and the middle of every one that passes the check
// is masked: when windows overlap ("7 4355084332124350" may pass as 17
// digits and as 16), masking all of them is what keeps the real card's
// middle hidden, whichever it is. A window left whole was therefore tried
// and failed.
func maskLuhnWindows(run []byte, digits []int) {
	n := len(digits)
	if n < 13 {
		return
	}
	// groupOf[k] is the index of the group holding the k-th digit; a
	// window starts at a group's first digit and ends after a group's
	// last one, unless that group is longer than 19 digits.
	groupOf := make([]int, n)
	var groupLen []int
	for k := range n {
		// A separator starts a group, and so does the edge between masked
		// and plain digits: a '*' before a card ("*4355084355084") must not
		// glue onto it and hide it from every window.
		if k == 0 || digits[k] != digits[k-1]+1 || (run[digits[k]] == '*') != (run[digits[k-1]] == '*') {
			groupLen = append(groupLen, 0)
		}
		groupOf[k] = len(groupLen) - 1
		groupLen[groupOf[k]]++
	}
	canStart := func(k int) bool {
		return k == 0 || groupOf[k] != groupOf[k-1] || groupLen[groupOf[k]] > 19
	}
	canEnd := func(k int) bool { // k is one past the window's last digit
		return k == n || groupOf[k] != groupOf[k-1] || groupLen[groupOf[k-1]] > 19
	}
	d := make([]byte, n)
	for k, i := range digits {
		d[k] = run[i]
	}
	for a := 0; a+13 <= n; a++ {
		if !canStart(a) {
			continue
		}
		for l := 13; l <= 19 && a+l <= n; l++ {
			if !canEnd(a+l) || !luhnValid(d[a:a+l]) { // a masked digit fails it
				continue
			}
			for k := a + 6; k < a+l-4; k++ {
				run[digits[k]] = '*'
			}
		}
	}
}

// luhnValid reports whether digits are all digits and pass the Luhn check
// (cardno.Luhn), as every card number does; a digit already masked fails.
func luhnValid(digits []byte) bool {
	for _, c := range digits {
		if !isDigit(c) {
			return false
		}
	}
	return cardno.Luhn(string(digits))
}
