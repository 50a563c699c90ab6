package preauth

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// TestSentencesMaskACardInvoice: a pre-authorization's own sentences — the
// verdicts and the words of a duplicate — put an invoice id that is a card
// number in masked; the pipeline shows them as they are.
func TestSentencesMaskACardInvoice(t *testing.T) {
	const card = "4111111111111111"
	h := &hold{input: input{Invoice: card}, held: "50.00", currency: "TRY"}
	dup := &gateway.APIError{Endpoint: gateway.EndpointConfirmPayment, HTTPStatus: 200, StatusCode: 117, HasStatusCode: true}
	partial := &hold{input: input{Invoice: card, Amount: "10.00"}, held: "50.00", currency: "TRY"}
	texts := map[string]string{"duplicate": capture.Classify(h, nil, dup).Say}
	_, texts["capture"] = capture.Result(h, nil)
	_, texts["partial capture"] = capture.Result(partial, nil)
	_, texts["cancel"] = cancel.Result(h, nil)
	for what, text := range texts {
		if strings.Contains(text, card) || !strings.Contains(text, "411111******1111") {
			t.Errorf("%s: %q", what, text)
		}
	}
}

// TestGatewayWordsMaskCards: the gateway's words a message quotes come
// with any card number in them masked (the error line is not masked whole).
func TestGatewayWordsMaskCards(t *testing.T) {
	for what, text := range map[string]string{
		"not open": notOpen(&gateway.CheckStatusResult{TransactionType: "4111111111111111"}, true),
	} {
		if strings.Contains(text, "4111111111111111") || !strings.Contains(text, "411111******1111") {
			t.Errorf("%s: %q", what, text)
		}
	}
}
