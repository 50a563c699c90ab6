package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/money"
)

// verifyMerchant answers 14 unless the request names the sandbox's merchant.
func (g *Gateway) verifyMerchant(w http.ResponseWriter, f fields) bool {
	if got := f.get("merchant_key"); got != g.opts.Credentials.MerchantKey {
		want := g.opts.Credentials.MerchantKey
		explain(w, explanation{field: "merchant_key", got: shownValue("merchant_key", got), want: shownValue("merchant_key", want),
			why: fmt.Sprintf("the merchant_key is not this sandbox's merchant: the request sent %s, the sandbox's is %s (paycli sandbox credentials shows it)",
				quoteValue(shownValue("merchant_key", got)), quoteValue(shownValue("merchant_key", want)))})
		writeStatus(w, 14, "Invalid merchant key: merchant not found")
		return false
	}
	return true
}

// verifyHash checks the request's hash_key against the named layout and the
// values the request is about: 90 when it cannot be decrypted with the
// app's secret, 68 when it was made with another layout or a value
// differs (the request log says which, with both values). what names the
// request in the answer ("request", "payment").
func (g *Gateway) verifyHash(w http.ResponseWriter, f fields, layoutName, what string, values map[string]string) bool {
	code, e := g.hashCheck(f.get("hash_key"), layoutName, values, nil)
	return writeHashRefusal(w, code, e, layoutName, what)
}

// writeHashRefusal answers a hashCheck that failed, terse as the gateway is,
// with the explanation in the request log; it reports whether code is 0.
func writeHashRefusal(w http.ResponseWriter, code int, e explanation, layoutName, what string) bool {
	if code == 0 {
		return true
	}
	explain(w, e)
	switch {
	case code == 90:
		writeStatus(w, 90, "Invalid hash key")
	case e.field == "hash_key":
		layout, _ := hashkey.LookupLayout(layoutName)
		writeStatus(w, 68, fmt.Sprintf("Hash key mismatch: the hash_key is not made with the %s layout %s", layoutName, strings.Join(layout.Fields, "|")))
	default:
		writeStatus(w, 68, fmt.Sprintf("Hash key mismatch: %s differs from the %s", e.field, what))
	}
	return false
}

// maxAmount bounds the amounts the sandbox accepts: ten digits before the
// decimal point, far above any card payment.
func maxAmount() decimal.Decimal { return decimal.New(1, 10) }

// parseAmount reads a positive amount with at most the currency's decimals,
// answering status_code 1 naming the field otherwise.
func parseAmount(w http.ResponseWriter, field, value, currency string) (decimal.Decimal, bool) {
	name := strings.ReplaceAll(field, "_", " ")
	refuse := func(why, desc string) (decimal.Decimal, bool) {
		explain(w, explanation{field: field, got: shownValue(field, value), why: fmt.Sprintf("malformed field %s: %s is %s", field, quoteValue(shownValue(field, value)), why)})
		writeStatus(w, 1, desc)
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(value)
	if err != nil {
		return refuse("not a plain decimal number (150.00)", fmt.Sprintf("The %s must be a number.", name))
	}
	if !d.IsPositive() {
		return refuse("not greater than zero", fmt.Sprintf("The %s must be greater than zero.", name))
	}
	if d.GreaterThanOrEqual(maxAmount()) {
		return refuse(fmt.Sprintf("%s or more", maxAmount()), fmt.Sprintf("The %s may not be %s or more.", name, maxAmount()))
	}
	if minor, ok := money.MinorUnit(currency); ok && !d.Equal(d.Round(minor)) {
		return refuse(fmt.Sprintf("written with more decimals than %s has (%d)", currency, minor), fmt.Sprintf("The %s has more decimals than %s has (%d).", name, currency, minor))
	}
	return d, true
}

// minorUnit is a currency's number of decimals (2 for a code the ISO table
// does not know; the schedule refuses such currencies anyway).
func minorUnit(currency string) int32 {
	if m, ok := money.MinorUnit(currency); ok {
		return m
	}
	return 2
}

// checkStatus serves POST /api/checkstatus: the stored sale's status at the
// top level of the body (docs/protocol.md). It is also where time passes
// for the sandbox's simulated back office: a pending sale resolves as
// completed on the first check at least PendingFor after it was made, and
// refunds waiting for approval (amounts ending in .01) are approved.
func (g *Gateway) checkStatus(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opCheckStatus.required...) {
		return
	}
	invoiceID := f.get("invoice_id")
	if !g.verifyMerchant(w, f) || !g.verifyHash(w, f, "checkstatus", "request",
		map[string]string{"invoice_id": invoiceID, "merchant_key": g.opts.Credentials.MerchantKey}) {
		return
	}
	sale, found, err := g.opts.Store.Get(invoiceID)
	if err != nil {
		writeInternal(w, err)
		return
	}
	if !found {
		g.dialect.writeCheckStatus(w, nil)
		return
	}
	now := g.opts.Now()
	if g.settles(sale, now) {
		sale, err = g.opts.Store.Update(invoiceID, func(s *Sale, _ *Tx) error {
			settle(s, now, g.opts.PendingFor)
			return nil
		})
		if err != nil {
			writeInternal(w, err)
			return
		}
	}
	body := statusOf(sale, checkStatusCardType(g.opts.Schedule.cardType(sale.CardBIN)))
	if !strings.EqualFold(f.get("show_refund_info"), "Y") {
		body.RefundInfo = nil
	}
	g.dialect.writeCheckStatus(w, &body)
}

// settles reports whether a check status at now changes the sale.
func (g *Gateway) settles(sale Sale, now time.Time) bool {
	probe := sale
	probe.Refunds = append([]Refund(nil), sale.Refunds...)
	return settle(&probe, now, g.opts.PendingFor)
}

// settle resolves what the simulated back office has finished by now: a
// pending sale older than pendingFor completes, and refunds waiting for
// approval are approved. It reports whether anything changed.
func settle(s *Sale, now time.Time, pendingFor time.Duration) bool {
	changed := false
	if s.State == StatePending && now.Sub(s.CreatedAt) >= pendingFor {
		s.State = StateCompleted
		s.AuthCode, s.HostReferenceID = providerReferences(s.OrderID)
		changed = true
	}
	for i := range s.Refunds {
		if s.Refunds[i].Status == RefundPendingApproval {
			s.Refunds[i].Status = RefundCompleted
			s.Refunds[i].ApprovedAt = now
			changed = true
		}
	}
	if changed {
		s.UpdatedAt = now
	}
	return changed
}

// checkStatusBody is the answer of check status.
// The fields the gateway documents come first, in the order and with the
// JSON types of its OpenAPI example (product_price and the commissions
// strings; testdata/recorded/checkstatus.json), then md_status of the
// QNBpay pages, then the sandbox's own.
type checkStatusBody struct {
	StatusCode                   int          `json:"status_code"`
	StatusDescription            string       `json:"status_description"`
	TransactionStatus            string       `json:"transaction_status"`
	OrderID                      wireText     `json:"order_id"`
	TransactionID                string       `json:"transaction_id"`
	Message                      string       `json:"message"`
	Reason                       string       `json:"reason"`
	BankStatusCode               string       `json:"bank_status_code"`
	BankStatusDescription        string       `json:"bank_status_description"`
	InvoiceID                    string       `json:"invoice_id"`
	TotalRefundedAmount          json.Number  `json:"total_refunded_amount"`
	ProductPrice                 wireText     `json:"product_price"`
	TransactionAmount            json.Number  `json:"transaction_amount"`
	RefNumber                    string       `json:"ref_number"`
	TransactionType              string       `json:"transaction_type"`
	OriginalBankErrorCode        string       `json:"original_bank_error_code"`
	OriginalBankErrorDescription string       `json:"original_bank_error_description"`
	CCNo                         string       `json:"cc_no"`
	PaymentReasonCode            string       `json:"payment_reason_code"`
	PaymentReasonCodeDetail      string       `json:"payment_reason_code_detail"`
	MerchantCommission           string       `json:"merchant_commission"`
	UserCommission               string       `json:"user_commission"`
	SettlementDate               string       `json:"settlement_date"`
	Installment                  int          `json:"installment"`
	CardType                     string       `json:"card_type"`
	MDStatus                     int          `json:"md_status"`
	CurrencyCode                 string       `json:"currency_code"`
	PaymentStatus                int          `json:"payment_status"`
	PaymentMethod                string       `json:"payment_method"`
	ServicePaymentMethod         string       `json:"service_payment_method"`
	CreditCardNo                 string       `json:"credit_card_no"`
	AuthCode                     string       `json:"auth_code"`
	CreatedAt                    string       `json:"created_at"`
	PaymentKind                  string       `json:"payment_kind"`
	PreAuth                      *preAuthInfo `json:"pre_auth,omitempty"`
	ThreeDStatus                 string       `json:"three_d_status,omitempty"`
	PaymentCompletedBy           string       `json:"payment_completed_by,omitempty"`
	LinkStatus                   string       `json:"link_status,omitempty"`
	RefundInfo                   []refundInfo `json:"refund_info,omitzero"`
}

// preAuthInfo reports a pre-authorization in check status.
type preAuthInfo struct {
	Status         string      `json:"status"`
	HeldAmount     json.Number `json:"held_amount"`
	CapturedAmount json.Number `json:"captured_amount"`
}

// refundInfo is one element of check status's refund_info.
type refundInfo struct {
	Amount              json.Number `json:"amount"`
	RefundTransactionID string      `json:"refund_transaction_id"`
	RefNo               string      `json:"ref_no"`
	Status              string      `json:"status"`
	Date                string      `json:"date"`
}

// statusOf reports a sale. A lookup that found the sale answers 100 with
// the sale's own outcome in transaction_status: "Completed", "Failed",
// "Refunded" or "Partially Refunded" after refunds, "Pre-Authorized" for a
// pre-authorization still open, "Cancelled", "Awaiting Payment" for a
// payment link nobody has paid yet; a sale still pending, in flight or
// waiting for its 3D step answers 69 ("Pending").
func statusOf(sale Sale, cardType string) checkStatusBody {
	minor := minorUnit(sale.Currency)
	b := checkStatusBody{
		StatusCode:              100,
		StatusDescription:       "Transaction found",
		OrderID:                 textOf(sale.OrderID),
		TransactionID:           transactionID(sale.OrderID),
		ProductPrice:            textOf(sale.Amount),
		InvoiceID:               sale.InvoiceID,
		TransactionAmount:       json.Number(sale.Amount),
		CurrencyCode:            sale.Currency,
		TotalRefundedAmount:     json.Number(sale.Refunded().StringFixed(minor)),
		TransactionType:         sale.TransactionType,
		PaymentMethod:           "CREDITCARD",
		ServicePaymentMethod:    paymentMethodOf(sale),
		CreditCardNo:            maskCard(sale.CardBIN, sale.CardLast4),
		Installment:             sale.Installment,
		AuthCode:                sale.AuthCode,
		MerchantCommission:      orZeroIn(sale.MerchantCommission, minor),
		UserCommission:          orZeroIn(sale.UserCommission, minor),
		SettlementDate:          sale.CreatedAt.In(money.GatewayZone()).Format(time.DateOnly),
		PaymentReasonCode:       sale.PaymentReasonCode,
		PaymentReasonCodeDetail: sale.PaymentReasonCodeDetail,
		CreatedAt:               gatewayTime(sale.CreatedAt),
		PaymentKind:             sale.Kind,
		RefundInfo:              []refundInfo{},
	}
	for _, r := range sale.Refunds {
		b.RefundInfo = append(b.RefundInfo, refundInfo{Amount: json.Number(r.Amount), RefundTransactionID: r.TransactionID,
			RefNo: r.RefNo, Status: r.Status, Date: gatewayTime(r.CreatedAt)})
	}
	if p := sale.PreAuth; p != nil {
		b.PreAuth = &preAuthInfo{Status: p.State, HeldAmount: json.Number(p.Held), CapturedAmount: json.Number(orZeroIn(p.Captured, minor))}
		if p.State == PreAuthCaptured {
			// Once captured, the transaction is what was taken, as a
			// sale's amount is: a refund is of that (the held amount
			// stays in pre_auth).
			b.TransactionAmount = json.Number(p.Captured)
			if fee, ok := merchantFeeOf(sale, p.Captured, minor); ok {
				b.MerchantCommission = fee
			}
		}
	}
	if sale.ThreeD != nil {
		b.PaymentCompletedBy = sale.ThreeD.CompletedBy
		b.ThreeDStatus = threeDStatusOf(sale.State)
	}
	if sale.Link != nil {
		b.LinkStatus = "used"
		if sale.State == StateAwaitingPayment {
			b.LinkStatus = "awaiting_payment"
		}
	}
	b.Message, b.Reason, b.BankStatusCode, b.BankStatusDescription, b.RefNumber = bankOutcome(sale)
	if sale.State == StateFailed {
		// The bank's own code and words for a decline (empty otherwise, as
		// in the documented success).
		b.OriginalBankErrorCode, b.OriginalBankErrorDescription = sale.PaymentReasonCode, sale.PaymentReasonCodeDetail
	}
	var pending bool
	b.TransactionStatus, b.PaymentStatus, pending = transactionStatusOf(sale)
	b.MDStatus = b.PaymentStatus
	if sale.CardBIN != "" {
		// cc_no as the documented answer masks it: four stars.
		b.CCNo, b.CardType = sale.CardBIN+"****"+sale.CardLast4, cardType
	}
	if pending {
		b.StatusCode, b.StatusDescription = 69, "Order not yet processed"
	}
	return b
}

// transactionStatusOf is a sale's outcome in check status's words, and
// whether it is still pending (answered 69 rather than 100).
func transactionStatusOf(sale Sale) (status string, paymentStatus int, pending bool) {
	switch sale.State {
	case StateAwaitingPayment:
		// The link's order exists (its order_id was answered) but nothing
		// was paid: found, not pending processing.
		status = "Awaiting Payment"
	case StateCompleted:
		status, paymentStatus = "Completed", 1
		switch {
		case sale.PreAuth != nil && sale.PreAuth.State == PreAuthOpen:
			status = "Pre-Authorized"
		case sale.PreAuth != nil && sale.PreAuth.State == PreAuthCancelled:
			status, paymentStatus = "Cancelled", 0
		case len(sale.Refunds) > 0 && !sale.Refundable().IsPositive():
			status = "Refunded"
		case len(sale.Refunds) > 0:
			status = "Partially Refunded"
		}
	case StateFailed:
		status = "Failed"
	case StateCancelled:
		status = "Cancelled"
	default:
		return "Pending", 0, true
	}
	return status, paymentStatus, false
}

// threeDStatusOf is where a 3D sale in state stands in its 3D steps.
func threeDStatusOf(state string) string {
	switch state {
	case StateAwaitingPayment:
		return ""
	case StateAwaiting3D:
		return "awaiting_challenge"
	case StateAwaitingCompletion:
		return "awaiting_merchant_completion"
	default:
		return "done"
	}
}

// bankOutcome is what check status says of the bank's answer to a sale:
// a message, the reason of a failure, the bank's status code ("00" when it
// approved, the decline's reason code otherwise) and its description, and
// the bank's reference number (the host reference of an approved sale).
// A sale the bank has not answered yet has none of them.
func bankOutcome(sale Sale) (message, reason, code, desc, ref string) {
	switch {
	case sale.State == StateFailed:
		return "Payment failed", sale.PaymentReasonCodeDetail, sale.PaymentReasonCode, sale.PaymentReasonCodeDetail, ""
	case sale.HostReferenceID != "":
		return "Payment successful", "", "00", "Approved", sale.HostReferenceID
	}
	return "", "", "", "", ""
}

// transactionID is the gateway's id of a sale's transaction, derived from
// its order id so that it needs no storage and never changes.
func transactionID(orderID string) string {
	sum := sha256.Sum256([]byte("transaction\x00" + orderID))
	return strconv.FormatUint(binary.BigEndian.Uint64(sum[:8])%10_000_000_000, 10)
}

// merchantFeeOf is the merchant's commission on amount at the sale's
// merchant rates, with the commission table's arithmetic; ok is false for
// a sale stored without its rates.
func merchantFeeOf(sale Sale, amount string, minor int32) (string, bool) {
	pct, errP := commission.ParseValue(sale.MerchantCommissionPercentage)
	fixed, errF := commission.ParseValue(sale.MerchantCommissionFixed)
	d, errA := decimal.NewFromString(amount)
	if errP != nil || errF != nil || errA != nil || !pct.Available() {
		return "", false
	}
	a, ok, err := commission.ComputeAmounts(d, max(sale.Installment, 1), commission.Rates{MerchantPercentage: pct, MerchantFixed: fixed}, minor)
	if err != nil || !ok {
		return "", false
	}
	return a.MerchantFee.StringFixed(minor), true
}

// paymentMethodOf labels a sale's payment method: its wallet for walletPay,
// "CREDITCARD" for card payments.
func paymentMethodOf(sale Sale) string {
	if sale.Kind == KindWalletPay {
		return servicePaymentMethod(sale.Wallet)
	}
	return "CREDITCARD"
}

func orZeroIn(s string, minor int32) string {
	if s == "" {
		return decimal.Zero.StringFixed(minor)
	}
	return s
}

// checkStatusCardType is getpos's card_type in check status's words:
// "CREDIT CARD" in the gateway's documented answer, where getpos writes
// CREDIT_CARD.
func checkStatusCardType(getposType string) string {
	return strings.ReplaceAll(getposType, "_", " ")
}
