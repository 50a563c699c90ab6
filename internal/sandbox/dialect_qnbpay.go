package sandbox

import (
	"net/http"
	"time"
)

// qnbpayDialect answers in QNBpay's documented shapes
// (trgino/qnbpay-woocommerce docs/, docs/protocol.md): order ids all
// digits; check status answered as an array of one object, with order_id
// and product_price JSON numbers; refund's order_no, and its invoice_id
// when all digits, JSON numbers.
type qnbpayDialect struct{}

func (qnbpayDialect) newOrderIDs(now func() time.Time) func() string { return NewDigitOrderIDs(now) }

func (qnbpayDialect) writeCheckStatus(w http.ResponseWriter, body *checkStatusBody) {
	if body == nil {
		noteStatus(w, 31, "Transaction not found")
		writeJSON(w, http.StatusOK, []statusBody{{StatusCode: 31, StatusDescription: "Transaction not found"}})
		return
	}
	body.OrderID.asNumber, body.ProductPrice.asNumber = true, true
	writeJSON(w, http.StatusOK, []checkStatusBody{*body})
}

func (qnbpayDialect) shapeRefund(a *refundAnswer) {
	a.OrderNo.asNumber, a.InvoiceID.asNumber = true, true
}

// shapeLedgerIDs writes a ledger row's order id, and its invoice id when
// all digits, as JSON numbers, as QNBpay writes them in check status and
// refund (no QNBpay page documents its ledger: docs/protocol.md).
func (qnbpayDialect) shapeLedgerIDs(_, invoiceID, orderID *wireText) {
	invoiceID.asNumber, orderID.asNumber = true, true
}
