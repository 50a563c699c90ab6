package complete

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
	_, texts["completed"] = operation{}.Result(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{TransactionType: "Auth"}})
	_, texts["cancelled"] = operation{cancel: true}.Result(s, &gateway.CompletePaymentResult{})
	_, texts["pre-authorization"] = operation{}.Result(s, &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{TransactionType: "PreAuth"}})
	for what, text := range texts {
		if strings.Contains(text, card) || !strings.Contains(text, "411111******1111") {
			t.Errorf("%s: %q", what, text)
		}
		if (what == "completed" || what == "pre-authorization") && !strings.Contains(text, "order "+order) {
			t.Errorf("%s: the order is not whole: %q", what, text)
		}
	}
}

// TestPreAuthorizationVerdictCommands: the capture and cancel commands a
// completed 3D pre-authorization's verdict suggests keep the gateway's
// flags, are quoted for a shell, and write an invoice id that is a card
// number as ID, saying what ID is, rather than a masked id that would name
// another invoice.
func TestPreAuthorizationVerdictCommands(t *testing.T) {
	op := operation{flags: []string{"--profile", "shop 2", "--sandbox"}}
	ans := &gateway.CompletePaymentResult{SaleAnswer: gateway.SaleAnswer{TransactionType: "PreAuth"}}
	for invoice, want := range map[string]string{
		"INV-1": "Capture it with: paycli preauth capture --invoice INV-1 --profile 'shop 2' --sandbox; " +
			"or release it with: paycli preauth cancel --invoice INV-1 --profile 'shop 2' --sandbox",
		"4111111111111111": "Capture it with: paycli preauth capture --invoice ID --profile 'shop 2' --sandbox; " +
			"or release it with: paycli preauth cancel --invoice ID --profile 'shop 2' --sandbox, " +
			"ID being the invoice id as given (it reads as a card number, so it is not printed)",
	} {
		_, verdict := op.Result(&sale{input: input{Invoice: invoice, OrderID: "VP1"}, amount: "70.00", currency: "TRY"}, ans)
		if !strings.HasSuffix(verdict, want) {
			t.Errorf("%s: %q\nwant it to end %q", invoice, verdict, want)
		}
	}
}
