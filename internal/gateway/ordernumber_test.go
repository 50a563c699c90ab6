package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// orderFields is the order number part of an answer: order_no, order_id,
// both or neither.
var orderFields = []struct {
	name, json, want string
}{
	{"order_no only", `"order_no":"ON-1"`, "ON-1"},
	{"order_id only", `"order_id":"OI-1"`, "OI-1"},
	{"both", `"order_no":"ON-1","order_id":"OI-1"`, "ON-1"},
	{"neither", `"x":0`, ""},
}

// TestOrderNumberFallback: an answer names its order by order_no, or
// failing that by order_id. A walletPay success needs one of them; when
// an answer contradicts itself, the unknown outcome keeps the order
// number it named (order_no first), so that whoever reconciles it can
// find the sale. The same holds for an answer of Client.Do and of
// payment/complete.
func TestOrderNumberFallback(t *testing.T) {
	ctx := context.Background()
	for _, o := range orderFields {
		t.Run(o.name, func(t *testing.T) {
			g := newGateway(t)
			c := newTestClient(t, g.URL+"/ccpayment")

			answerText(g, "walletPay", 200, `{"status_code":100,"data":{"invoice_id":"INV-1","payment_status":1,`+o.json+`}}`)
			_, err := c.WalletPay(ctx, walletPayReq())
			var inc *InconsistentError
			if o.want != "" && err != nil {
				t.Errorf("walletPay success naming %s: %v, want a success", o.name, err)
			}
			if o.want == "" && (!errors.As(err, &inc) || !strings.Contains(inc.Why(), "holds no order_no")) {
				t.Errorf("walletPay success naming no order: %v, want an unknown outcome for want of an order number", err)
			}

			answerText(g, "walletPay", 200, `{"status_code":100,"data":{"invoice_id":"INV-1","payment_status":0,`+o.json+`}}`)
			_, err = c.WalletPay(ctx, walletPayReq())
			if !errors.As(err, &inc) || inc.OrderNo != o.want {
				t.Errorf("walletPay contradicting itself: %v (%+v), want the order number %q kept", err, inc, o.want)
			}

			answerText(g, "refund", 200, `{"status_code":100,"invoice_id":"INV-9",`+o.json+`}`)
			res, err := c.Do(ctx, Request{Path: "/api/refund", Body: []byte(`{"invoice_id":"INV-1"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Err(); !errors.As(err, &inc) || inc.OrderNo != o.want {
				t.Errorf("Do refund about another invoice: %v (%+v), want the order number %q kept", err, inc, o.want)
			}

			answerText(g, "payment/complete", 200, `{"status_code":100,"data":{"invoice_id":"INV-9",`+o.json+`}}`)
			_, err = c.CompletePayment(ctx, completeReq())
			if !errors.As(err, &inc) || inc.OrderNo != o.want {
				t.Errorf("payment/complete about another invoice: %v (%+v), want the order number %q kept", err, inc, o.want)
			}
		})
	}
}
