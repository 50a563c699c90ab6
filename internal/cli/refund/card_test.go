package refund

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/gateway"
)

// TestSentencesMaskACardInvoice: the refund's own sentences — the prompt,
// the verdicts, the words of a refusal, Prepare's errors — put an invoice
// id that is a card number in masked (the pipeline shows them as they
// are), and name the refund_transaction_id whole.
func TestSentencesMaskACardInvoice(t *testing.T) {
	const card = "4111111111111111"
	s := sale{Amount: decimal.RequireFromString("150"), Currency: "TRY", Minor: 2, Card: "435508******4358"}
	r := &refund{input: input{Invoice: card}, sale: s, text: "10.00", value: decimal.RequireFromString("10"), ref: "RF1"}
	op := operation{flags: []string{"--sandbox"}}
	_, refunded := op.Result(r, &gateway.RefundResult{StatusCode: 100})
	_, queued := op.Result(r, &gateway.RefundResult{StatusCode: 101, Queued: true})
	d, _ := op.Describe(r)
	for what, text := range map[string]string{
		"prompt":         d.Prompt,
		"verdict":        refunded,
		"queued verdict": queued,
		"31":             op.Classify(r, nil, apiErr(31, "")).Say,
		"not refundable": notRefundable(card, "it is cancelled", "").Error(),
	} {
		if strings.Contains(text, card) || !strings.Contains(text, "411111******1111") {
			t.Errorf("%s: %q", what, text)
		}
	}
}

// TestStatusLineAfterRetry: the status line of a refund names an invoice id
// that is a card number ID, and says whose it is: the one given, or, after
// --retry REF, where the user gave no invoice, the refund's; that one,
// which every command shows masked, the line says where to find whole:
// the journal, with the command that finds the refund's lines there.
func TestStatusLineAfterRetry(t *testing.T) {
	const card = "4111111111111111"
	s := sale{Amount: decimal.RequireFromString("150"), Currency: "TRY", Minor: 2}
	path := "/state/my paycli/journal.jsonl"
	op := operation{flags: []string{"--sandbox"}, journalPath: func() (string, error) { return path, nil }}
	queued := &gateway.RefundResult{StatusCode: 101, Queued: true}
	given := &refund{input: input{Invoice: card}, sale: s, text: "10.00", ref: "RF1"}
	retried := &refund{input: input{Invoice: card}, retry: "RF1", sale: s, text: "10.00", ref: "RF1"}
	byAttempt := &refund{input: input{Invoice: card}, retry: "a7", sale: s, text: "10.00", ref: "RF1"}
	const line = "paycli status --invoice ID --sandbox, ID being "
	const note = " (it reads as a card number, so it is not printed)"
	for r, want := range map[*refund]string{
		given:     line + "the invoice id as given" + note,
		retried:   line + "the invoice id of refund RF1" + note + "; the journal holds it whole: grep -F RF1 '/state/my paycli/journal.jsonl'",
		byAttempt: line + "the invoice id of refund RF1" + note + "; the journal holds it whole: grep -F RF1 '/state/my paycli/journal.jsonl'",
	} {
		if _, verdict := op.Result(r, queued); !strings.HasSuffix(verdict, "see when it is made with: "+want) {
			t.Errorf("retry %q: %q\nwant %q", r.retry, verdict, want)
		}
		if o := op.Classify(r, nil, apiErr(104, "")); !strings.HasSuffix(o.Hint, ": "+want) {
			t.Errorf("retry %q, 104: hint %q\nwant %q", r.retry, o.Hint, want)
		}
	}
}
