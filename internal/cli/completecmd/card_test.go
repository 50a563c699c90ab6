package completecmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// TestSentencesMaskACardInvoice: a completion's own sentences — the
// verdicts and the words of a duplicate — put an invoice id that is a card
// number in masked, and the order whole; the pipeline shows them as they
// are.
func TestSentencesMaskACardInvoice(t *testing.T) {
	const card, order = "4111111111111111", "VP17953766355293785" // the order passes the Luhn check
	s := &sale{input: input{Invoice: card, OrderID: order}, amount: "70.00", currency: "TRY"}
	dup := &gateway.APIError{Endpoint: gateway.EndpointCompletePayment, HTTPStatus: 200, StatusCode: 117, HasStatusCode: true}
	texts := map[string]string{"duplicate": operation{}.Classify(s, nil, dup).Say}
	_, texts["completed"] = operation{}.Result(s, &gateway.CompletePaymentResult{TransactionType: "Auth"})
	_, texts["cancelled"] = operation{cancel: true}.Result(s, &gateway.CompletePaymentResult{})
	for what, text := range texts {
		if strings.Contains(text, card) || !strings.Contains(text, "411111******1111") {
			t.Errorf("%s: %q", what, text)
		}
		if what == "completed" && !strings.Contains(text, "order "+order) {
			t.Errorf("%s: the order is not whole: %q", what, text)
		}
	}
}
