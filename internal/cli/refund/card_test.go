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
