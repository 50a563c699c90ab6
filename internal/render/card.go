package render

import (
	"strings"

	"github.com/paycli/paycli/internal/redact"
)

// Card is the one way a card is shown to a person, in summaries, prompts,
// verdicts and tables alike: as the gateway masks one, its first 6 and
// last 4 digits around six asterisks ("435508******4358"), which is also
// how the journal and the gateway's answers write it.
func Card(first6, last4 string) string { return first6 + "******" + last4 }

// CardOf shows a card as the gateway wrote it (credit_card_no, masked or
// not) the way Card does when the text holds the first 6 and last 4
// digits; other text is shown with any card number in it masked
// (redact.Cards) and control characters escaped. "" stays "".
func CardOf(text string) string {
	c := strings.TrimSpace(text)
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	if len(c) >= 10 && digits(c[:6]) && digits(c[len(c)-4:]) {
		return Card(c[:6], c[len(c)-4:])
	}
	return Escape(redact.Cards(c))
}
