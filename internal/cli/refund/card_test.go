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
	for what, text := range map[string]string{
		"prompt":         op.Describe(nil, r).Prompt,
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
// --retry REF, where the user gave no invoice, the refund's.
func TestStatusLineAfterRetry(t *testing.T) {
	const card = "4111111111111111"
	s := sale{Amount: decimal.RequireFromString("150"), Currency: "TRY", Minor: 2}
	op := operation{flags: []string{"--sandbox"}}
	queued := &gateway.RefundResult{StatusCode: 101, Queued: true}
	given := &refund{input: input{Invoice: card}, sale: s, text: "10.00", ref: "RF1"}
	retried := &refund{input: input{Invoice: card}, retry: "RF1", sale: s, text: "10.00", ref: "RF1"}
	for r, want := range map[*refund]string{
		given:   "see when it is made with: paycli status --invoice ID --sandbox, ID being the invoice id as given (",
		retried: "see when it is made with: paycli status --invoice ID --sandbox, ID being the invoice id of refund RF1 (",
	} {
		if _, verdict := op.Result(r, queued); !strings.Contains(verdict, want) {
			t.Errorf("retry %q: %q\nwant %q", r.retry, verdict, want)
		}
		if o := op.Classify(r, nil, apiErr(104, "")); !strings.Contains(o.Hint, strings.TrimPrefix(want, "see when it is made with: ")) {
			t.Errorf("retry %q, 104: hint %q", r.retry, o.Hint)
		}
	}
}
