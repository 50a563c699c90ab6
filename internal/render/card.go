package render

import "github.com/paycli/paycli/internal/redact"

// Card is the one way a card is shown to a person, in summaries, prompts,
// verdicts and tables alike (redact.Card): its first 6 and last 4 digits
// around six asterisks ("435508******4358"), which is also how the journal
// and the gateway's answers write it.
func Card(first6, last4 string) string { return redact.Card(first6, last4) }

// CardOf shows a card as the gateway wrote it (credit_card_no, masked or
// not) the way Card does when the text holds the first 6 and last 4
// digits (redact.CardText); other text is shown with any card number in it
// masked and control characters escaped. "" stays "".
func CardOf(text string) string { return Escape(redact.CardText(text)) }
