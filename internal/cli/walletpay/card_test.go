package walletpay

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// TestDisagreementMasksCards: the gateway's words and the invoice a
// contradicting success answer names are quoted with any card number in
// them masked (the error line is not masked whole).
func TestDisagreementMasksCards(t *testing.T) {
	pm := &payment{input: input{Invoice: "INV-1"}}
	for what, d := range map[string]*gateway.WalletPayResult{
		"error text":      {HasPaymentStatus: true, PaymentStatus: 0, Error: "card 4111111111111111 refused"},
		"another invoice": {InvoiceID: "4111111111111111", OrderNo: "VP1"},
	} {
		if got := disagreement(pm, d); strings.Contains(got, "4111111111111111") || !strings.Contains(got, "411111******1111") {
			t.Errorf("%s: %q", what, got)
		}
	}
}
