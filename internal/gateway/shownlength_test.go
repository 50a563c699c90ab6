package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestAnswerValuesBoundedAt64: an order number of up to 64 characters is
// kept with an unknown outcome, a longer one dropped; a value quoted in
// the reason is shown whole up to 64 characters, cut with "…" beyond.
func TestAnswerValuesBoundedAt64(t *testing.T) {
	ctx := context.Background()
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	for _, n := range []int{64, 65} {
		order, invoice := strings.Repeat("O", n), strings.Repeat("I", n)
		answerText(g, "walletPay", 200, `{"status_code":100,"data":{"invoice_id":"`+invoice+`","payment_status":1,"order_no":"`+order+`"}}`)
		_, err := c.WalletPay(ctx, walletPayReq())
		var inc *InconsistentError
		if !errors.As(err, &inc) {
			t.Fatalf("an answer about another invoice: %v", err)
		}
		wantOrder, wantShown := order, `"`+invoice+`"`
		if n > 64 {
			wantOrder, wantShown = "", `"`+invoice[:64]+`…"`
		}
		if inc.OrderNo != wantOrder {
			t.Errorf("order_no of %d characters kept as %q, want %q", n, inc.OrderNo, wantOrder)
		}
		if !strings.Contains(inc.Why(), "it names invoice "+wantShown+", not the one sent") {
			t.Errorf("invoice_id of %d characters shown as %q, want %s", n, inc.Why(), wantShown)
		}
	}
	// An order number with a control character, even its first, is dropped.
	answerText(g, "walletPay", 200, `{"status_code":100,"data":{"invoice_id":"INV-1","payment_status":0,"order_no":"\u001bON-1"}}`)
	_, err := c.WalletPay(ctx, walletPayReq())
	var inc *InconsistentError
	if !errors.As(err, &inc) || inc.OrderNo != "" {
		t.Errorf("an order_no starting with ESC: %v (%+v), want it dropped", err, inc)
	}
}
