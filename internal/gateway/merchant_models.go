package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/money"
)

// amountNumber checks a positive amount written plainly (money.ParseAmount:
// "50", "50.00") and returns it as a JSON number with the same text (the
// official SDK sends amounts as numbers). The same text goes into the
// hash_key, so the client sends it exactly as given.
func amountNumber(field, s string) (json.Number, error) {
	var ae *money.AmountError
	if _, err := money.ParseAmount(s); errors.As(err, &ae) {
		if ae.Problem == money.Zero {
			return "", invalidRequest("%s %s is not positive", field, shownValue(s))
		}
		return "", invalidRequest("%s %s is not a plain decimal like 50.00", field, shownValue(s))
	}
	if strings.TrimSpace(s) != s {
		return "", invalidRequest("%s %s is not a plain decimal like 50.00", field, shownValue(s))
	}
	return json.Number(s), nil
}

// invalidRequest is a request the client refuses to send.
func invalidRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// required returns an error naming the first empty field of pairs (name,
// value, name, value, ...).
func required(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return invalidRequest("%s is empty", pairs[i])
		}
	}
	return nil
}

// RefundRequest is a refund of all or part of a sale (POST /api/refund).
// The client adds app_id, app_secret and merchant_key from its credentials,
// and the hash_key in the refund layout amount|invoice_id|merchant_key,
// made from the same Amount text it sends.
type RefundRequest struct {
	InvoiceID string
	// Amount is a positive decimal in the sale's currency, e.g. "50.00".
	Amount string
	// RefundTransactionID is the caller's id of this refund; the gateway
	// refuses a repeated one (status_code 104), which makes a refund safe
	// to send again with the same id after an unknown outcome.
	RefundTransactionID string
	// RefundWebHookKey names the merchant's refund webhook; optional.
	RefundWebHookKey string
}

type refundWire struct {
	InvoiceID           string      `json:"invoice_id"`
	Amount              json.Number `json:"amount"`
	AppID               string      `json:"app_id"`
	AppSecret           string      `json:"app_secret"`
	MerchantKey         string      `json:"merchant_key"`
	HashKey             string      `json:"hash_key"`
	RefundTransactionID string      `json:"refund_transaction_id"`
	RefundWebHookKey    string      `json:"refund_web_hook_key,omitempty"`
}

func (r RefundRequest) encode(c *Client) (endpoint, []byte, error) {
	if err := required("invoice_id", r.InvoiceID, "refund_transaction_id", r.RefundTransactionID); err != nil {
		return encodeCall(endpointRefund, nil, err)
	}
	amount, err := amountNumber("amount", r.Amount)
	if err != nil {
		return encodeCall(endpointRefund, nil, err)
	}
	hk, err := c.hashKey("refund", map[string]string{"amount": r.Amount, "invoice_id": r.InvoiceID})
	return encodeCall(endpointRefund, refundWire{InvoiceID: r.InvoiceID, Amount: amount, AppID: c.creds.AppID,
		AppSecret: c.creds.AppSecret, MerchantKey: c.creds.MerchantKey, HashKey: hk,
		RefundTransactionID: r.RefundTransactionID, RefundWebHookKey: r.RefundWebHookKey}, err)
}

// RefundResult is the answer to a refund the gateway accepted: status_code
// 100 (refunded) or 101 (Queued: the refund request waits for the gateway
// team's approval; a known outcome, not an error). Its fields are at the
// top level of the body.
type RefundResult struct {
	StatusCode        int
	StatusDescription string
	// Queued is true for status_code 101.
	Queued    bool
	OrderNo   string
	InvoiceID string
	// RefNo is ref_no, or ref_number when the gateway uses that name.
	RefNo string
	// Extra holds the other top-level fields, as the gateway wrote them.
	Extra map[string]json.RawMessage

	// data is the answer's data object, when it has one: some gateways
	// answer a refund with its fields there (invoice_id, refund_amount).
	data refundDataWire
}

type refundResultWire struct {
	StatusCode        flexInt    `json:"status_code"`
	StatusDescription flexString `json:"status_description"`
	OrderNo           flexString `json:"order_no"`
	InvoiceID         flexString `json:"invoice_id"`
	RefNo             flexString `json:"ref_no"`
	RefNumber         flexString `json:"ref_number"`
}

// refundDataWire is the data object of a refund answer that has one.
type refundDataWire struct {
	InvoiceID    flexString `json:"invoice_id"`
	RefundAmount flexString `json:"refund_amount"`
	OrderNo      flexString `json:"order_no"`
	RefNo        flexString `json:"ref_no"`
}

// UnmarshalJSON reads the top-level fields leniently (numbers or strings).
func (r *RefundResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[refundResultWire](data)
	if err != nil {
		return err
	}
	var nested refundDataWire
	if raw, ok := extra["data"]; ok && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' {
		if err := json.Unmarshal(raw, &nested); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	*r = RefundResult{
		StatusCode: int(w.StatusCode), StatusDescription: strings.TrimSpace(string(w.StatusDescription)),
		Queued: int(w.StatusCode) == StatusRefundQueued, OrderNo: string(firstNonEmpty(w.OrderNo, nested.OrderNo)),
		InvoiceID: string(firstNonEmpty(w.InvoiceID, nested.InvoiceID)),
		RefNo:     string(firstNonEmpty(firstNonEmpty(w.RefNo, w.RefNumber), nested.RefNo)), Extra: extra, data: nested,
	}
	return nil
}

// check is the success check of a refund answer: it must name the invoice
// sent, at the top level or under data (both, when both are there), and a
// refund_amount under data must be the amount sent, as a decimal.
func (r *RefundResult) check(sent RefundRequest) error {
	c := checkSuccess(EndpointRefund, r.StatusCode).KeepOrder(r.OrderNo).Invoice(r.InvoiceID, sent.InvoiceID, true)
	if nested := string(r.data.InvoiceID); nested != "" && nested != r.InvoiceID {
		c.Invoice(nested, sent.InvoiceID, true)
	}
	if got := strings.TrimSpace(string(r.data.RefundAmount)); got != "" {
		g, gok := money.ParsePlain(got)
		s, sok := money.ParsePlain(sent.Amount)
		if !gok || !sok || !g.Equal(s) {
			c.add("its refund_amount is %s, not the amount sent (%s)", shownValue(got), sent.Amount)
		}
	}
	return c.Err()
}

// ConfirmStatus is what /api/confirmPayment does with a pre-authorization.
type ConfirmStatus int

const (
	// ConfirmCapture takes the held money (all of it, or Total).
	ConfirmCapture ConfirmStatus = 1
	// ConfirmCancel releases the held money.
	ConfirmCancel ConfirmStatus = 2
)

// ConfirmPaymentRequest captures or cancels a pre-authorization (POST
// /api/confirmPayment). The client adds merchant_key and the hash_key in
// the confirm layout merchant_key|invoice_id|status.
type ConfirmPaymentRequest struct {
	InvoiceID string
	Status    ConfirmStatus
	// Total is the amount to capture, at most the held amount; empty
	// captures all of it. Only for ConfirmCapture.
	Total string
}

type confirmPaymentWire struct {
	MerchantKey string        `json:"merchant_key"`
	InvoiceID   string        `json:"invoice_id"`
	Total       json.Number   `json:"total,omitempty"`
	Status      ConfirmStatus `json:"status"`
	HashKey     string        `json:"hash_key"`
}

func (r ConfirmPaymentRequest) encode(c *Client) (endpoint, []byte, error) {
	if err := required("invoice_id", r.InvoiceID); err != nil {
		return encodeCall(endpointConfirmPayment, nil, err)
	}
	w := confirmPaymentWire{MerchantKey: c.creds.MerchantKey, InvoiceID: r.InvoiceID, Status: r.Status}
	var err error
	switch {
	case r.Status != ConfirmCapture && r.Status != ConfirmCancel:
		err = invalidRequest("status %d is neither 1 (capture) nor 2 (cancel)", r.Status)
	case r.Total != "" && r.Status == ConfirmCancel:
		err = invalidRequest("a cancellation takes no total")
	case r.Total != "":
		w.Total, err = amountNumber("total", r.Total)
	}
	if err != nil {
		return encodeCall(endpointConfirmPayment, nil, err)
	}
	w.HashKey, err = c.hashKey("confirm", map[string]string{"invoice_id": r.InvoiceID, "status": strconv.Itoa(int(r.Status))})
	return encodeCall(endpointConfirmPayment, w, err)
}

// ConfirmPaymentResult is the answer to an accepted confirmPayment; its
// fields are at the top level of the body.
type ConfirmPaymentResult struct {
	StatusCode        int
	StatusDescription string
	TransactionStatus string
	OrderID           string
	InvoiceID         string
	// Extra holds the other top-level fields, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type confirmPaymentResultWire struct {
	StatusCode        flexInt    `json:"status_code"`
	StatusDescription flexString `json:"status_description"`
	TransactionStatus flexString `json:"transaction_status"`
	OrderID           flexString `json:"order_id"`
	InvoiceID         flexString `json:"invoice_id"`
}

// UnmarshalJSON reads the top-level fields leniently (numbers or strings).
func (r *ConfirmPaymentResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[confirmPaymentResultWire](data)
	if err != nil {
		return err
	}
	*r = ConfirmPaymentResult{
		StatusCode: int(w.StatusCode), StatusDescription: strings.TrimSpace(string(w.StatusDescription)),
		TransactionStatus: string(w.TransactionStatus), OrderID: string(w.OrderID), InvoiceID: string(w.InvoiceID),
		Extra: extra,
	}
	return nil
}

// check is the success check of a confirmPayment answer: it must name the
// pre-authorization sent, and its transaction_status, when it has one,
// must be what the action leads to: a capture Completed (not Failed,
// Declined, Cancelled or still Pre-Authorized), a cancellation Cancelled;
// a capture's payment_status, when present, must be 1.
func (r *ConfirmPaymentResult) check(sent ConfirmPaymentRequest) error {
	c := checkSuccess(EndpointConfirmPayment, r.StatusCode).KeepOrder(r.OrderID).Invoice(r.InvoiceID, sent.InvoiceID, true)
	if sent.Status == ConfirmCancel {
		return c.State("transaction_status", r.TransactionStatus, SaleCancelled).Err()
	}
	status, present := extraFlag(r.Extra, "payment_status")
	return c.State("transaction_status", r.TransactionStatus, SaleCompleted).PaymentStatus(status, present, "").Err()
}

// What POST /payment/complete does with a 3D payment that waits for the
// merchant.
const (
	CompleteStatusComplete = "complete"
	CompleteStatusCancel   = "cancel"
)

// CompletePaymentRequest completes or cancels a 3D payment whose
// payment_completed_by was merchant (POST /payment/complete, not under
// /api). The client adds merchant_key and the hash_key in the complete
// layout merchant_key|invoice_id|order_id|status.
type CompletePaymentRequest struct {
	InvoiceID string
	OrderID   string
	// Status is CompleteStatusComplete or CompleteStatusCancel.
	Status string
}

type completePaymentRequestWire struct {
	MerchantKey string `json:"merchant_key"`
	InvoiceID   string `json:"invoice_id"`
	OrderID     string `json:"order_id"`
	Status      string `json:"status"`
	HashKey     string `json:"hash_key"`
}

func (r CompletePaymentRequest) encode(c *Client) (endpoint, []byte, error) {
	if err := required("invoice_id", r.InvoiceID, "order_id", r.OrderID); err != nil {
		return encodeCall(endpointCompletePayment, nil, err)
	}
	if r.Status != CompleteStatusComplete && r.Status != CompleteStatusCancel {
		return encodeCall(endpointCompletePayment, nil, invalidRequest("status %s is neither complete nor cancel", shownValue(r.Status)))
	}
	hk, err := c.hashKey("complete", map[string]string{"invoice_id": r.InvoiceID, "order_id": r.OrderID, "status": r.Status})
	return encodeCall(endpointCompletePayment, completePaymentRequestWire{MerchantKey: c.creds.MerchantKey,
		InvoiceID: r.InvoiceID, OrderID: r.OrderID, Status: r.Status, HashKey: hk}, err)
}

// CompletePaymentResult is the data object of an accepted
// payment/complete: the sale, read like WalletPayResult's.
type CompletePaymentResult struct {
	// StatusDescription is the answer's status_description.
	StatusDescription string
	SaleAnswer
	Installment int
	Amount      commission.Value
	// Status is the status the answer reports (complete or cancel).
	Status string
	// HashKey is the gateway's hash_key over the answer.
	HashKey string
	// Extra holds fields this type does not know, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type completePaymentWire struct {
	saleAnswerWire
	Installment flexInt          `json:"installment"`
	Amount      commission.Value `json:"amount"`
	Status      flexString       `json:"status"`
	HashKey     flexString       `json:"hash_key"`
}

// UnmarshalJSON reads the answer leniently (numbers or strings).
func (r *CompletePaymentResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[completePaymentWire](data)
	if err != nil {
		return err
	}
	*r = CompletePaymentResult{SaleAnswer: w.sale(), Installment: int(w.Installment), Amount: w.Amount, Status: string(w.Status),
		HashKey: string(w.HashKey), Extra: extra}
	return nil
}

// check is the success check of a payment/complete answer: it must be
// about the invoice and order sent, and its status, when it has one, must
// be what the action leads to (a completion Completed, or Pre-Authorized
// for a pre-authorization whose amount is now held; a cancellation
// Cancelled); a completion's payment_status, when present, must be 1.
func (r *CompletePaymentResult) check(sent CompletePaymentRequest) error {
	orderNo := r.OrderNo
	if orderNo == "" {
		orderNo = r.OrderID
	}
	c := checkSuccess(EndpointCompletePayment, StatusSuccess).KeepOrder(orderNo).
		Invoice(r.InvoiceID, sent.InvoiceID, true).
		Equal("order_id", r.OrderID, sent.OrderID)
	if sent.Status == CompleteStatusCancel {
		return c.State("status", r.Status, SaleCancelled).Err()
	}
	return c.State("status", r.Status, SaleCompleted, SalePreAuthorized).
		PaymentStatus(r.PaymentStatus, r.HasPaymentStatus, "").Err()
}

// GetPOSRequest asks which installment options a card can pay an amount
// with (POST /api/getpos). It is a read; the client adds its merchant_key.
type GetPOSRequest struct {
	// BIN is the card's first six digits. The client refuses anything
	// else, so that a full card number can never leave the machine.
	BIN          string
	Amount       string
	CurrencyCode string
	// CommissionBy is "merchant" or "user"; optional.
	CommissionBy string
	// Is2D asks for 2D (true) or 3D (false) options; nil leaves it out.
	Is2D *bool
}

type getPOSWire struct {
	CreditCard   string      `json:"credit_card"`
	Amount       json.Number `json:"amount"`
	CurrencyCode string      `json:"currency_code"`
	MerchantKey  string      `json:"merchant_key"`
	CommissionBy string      `json:"commission_by,omitempty"`
	Is2D         *int        `json:"is_2d,omitempty"`
}

func (r GetPOSRequest) wire(merchantKey string) (getPOSWire, error) {
	if len(r.BIN) != 6 || strings.Trim(r.BIN, "0123456789") != "" {
		// Never quote it: it may be a whole card number.
		return getPOSWire{}, invalidRequest("credit_card must be exactly the card's first 6 digits (got %d characters)", len([]rune(r.BIN)))
	}
	if err := required("currency_code", r.CurrencyCode); err != nil {
		return getPOSWire{}, err
	}
	amount, err := amountNumber("amount", r.Amount)
	if err != nil {
		return getPOSWire{}, err
	}
	w := getPOSWire{CreditCard: r.BIN, Amount: amount, CurrencyCode: r.CurrencyCode, MerchantKey: merchantKey, CommissionBy: r.CommissionBy}
	if r.Is2D != nil {
		v := 0
		if *r.Is2D {
			v = 1
		}
		w.Is2D = &v
	}
	return w, nil
}

// InstallmentOption is one way a card can pay: an installment count on a
// POS, with what the buyer pays. Amounts keep the gateway's text.
type InstallmentOption struct {
	PosID              int
	CampaignID         int
	AllocationID       int
	InstallmentsNumber int
	CardType           string
	CardProgram        string
	CardScheme         string
	IsCommercial       int
	// PayableAmount is what the buyer pays in all; AmountToBePaid what the
	// merchant asked for.
	PayableAmount  commission.Value
	AmountToBePaid commission.Value
	CurrencyCode   string
	CurrencyID     int
	Title          string
	// HashKey is the gateway's hash_key for paying with this option; a
	// secret like every hash_key: never print it.
	HashKey                      string
	MaturityPeriod               string
	PaymentFrequency             string
	MerchantCommissionPercentage commission.Value
	MerchantCommissionFixed      commission.Value
	UserCommissionPercentage     commission.Value
	UserCommissionFixed          commission.Value
	// MerchantFee is what the merchant pays for this option, an amount
	// in the currency as the gateway wrote it (4.1087: it is not rounded
	// to the currency's minor unit); absent on gateways that do not send
	// it.
	MerchantFee commission.Value
	// Extra holds fields this type does not know, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type installmentOptionWire struct {
	PosID                        flexInt          `json:"pos_id"`
	CampaignID                   flexInt          `json:"campaign_id"`
	AllocationID                 flexInt          `json:"allocation_id"`
	InstallmentsNumber           flexInt          `json:"installments_number"`
	CardType                     flexString       `json:"card_type"`
	CardProgram                  flexString       `json:"card_program"`
	CardScheme                   flexString       `json:"card_scheme"`
	IsCommercial                 flexInt          `json:"is_commercial"`
	PayableAmount                commission.Value `json:"payable_amount"`
	AmountToBePaid               commission.Value `json:"amount_to_be_paid"`
	CurrencyCode                 flexString       `json:"currency_code"`
	CurrencyID                   flexInt          `json:"currency_id"`
	Title                        flexString       `json:"title"`
	HashKey                      flexString       `json:"hash_key"`
	MaturityPeriod               flexString       `json:"maturity_period"`
	PaymentFrequency             flexString       `json:"payment_frequency"`
	MerchantCommissionPercentage commission.Value `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      commission.Value `json:"merchant_commission_fixed"`
	UserCommissionPercentage     commission.Value `json:"user_commission_percentage"`
	UserCommissionFixed          commission.Value `json:"user_commission_fixed"`
	MerchantFee                  commission.Value `json:"merchant_fee"`
}

// UnmarshalJSON reads an option leniently (numbers or strings).
func (o *InstallmentOption) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[installmentOptionWire](data)
	if err != nil {
		return err
	}
	*o = InstallmentOption{
		PosID: int(w.PosID), CampaignID: int(w.CampaignID), AllocationID: int(w.AllocationID),
		InstallmentsNumber: int(w.InstallmentsNumber), CardType: string(w.CardType), CardProgram: string(w.CardProgram),
		CardScheme: string(w.CardScheme), IsCommercial: int(w.IsCommercial), PayableAmount: w.PayableAmount,
		AmountToBePaid: w.AmountToBePaid, CurrencyCode: string(w.CurrencyCode), CurrencyID: int(w.CurrencyID),
		Title: string(w.Title), HashKey: string(w.HashKey), MaturityPeriod: string(w.MaturityPeriod),
		PaymentFrequency: string(w.PaymentFrequency), MerchantCommissionPercentage: w.MerchantCommissionPercentage,
		MerchantCommissionFixed: w.MerchantCommissionFixed, UserCommissionPercentage: w.UserCommissionPercentage,
		UserCommissionFixed: w.UserCommissionFixed, Extra: extra,
	}
	o.MerchantFee = w.MerchantFee
	if o.InstallmentsNumber < 1 || o.InstallmentsNumber > maxInstallments {
		return fmt.Errorf("installments_number %d is not between 1 and %d", o.InstallmentsNumber, maxInstallments)
	}
	return nil
}

// maxInstallments bounds an installment count read from an answer; card
// schemes offer at most a few dozen.
const maxInstallments = 99

// installmentOptionList is getpos's data: a list of options, or one
// option written as a bare object (the Platformode document, §4, says the
// value "might be an array"; a recorded answer has one object).
type installmentOptionList []InstallmentOption

// UnmarshalJSON reads a list of options or one option.
func (l *installmentOptionList) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var one InstallmentOption
		if err := json.Unmarshal(t, &one); err != nil {
			return err
		}
		*l = installmentOptionList{one}
		return nil
	}
	return json.Unmarshal(data, (*[]InstallmentOption)(l))
}

// InstallmentOptions is a getpos answer: the options for one card and
// amount, in the gateway's order.
type InstallmentOptions struct {
	StatusDescription string
	Options           []InstallmentOption
}

// ActiveInstallments is an installments answer: the installment counts the
// merchant has active.
type ActiveInstallments struct {
	StatusDescription string
	Installments      []int
	// Extra holds the other top-level fields, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type activeInstallmentsWire struct {
	StatusCode        flexInt    `json:"status_code"`
	StatusDescription flexString `json:"status_description"`
	Message           flexString `json:"message"`
	Installments      []flexInt  `json:"installments"`
}

// UnmarshalJSON reads the counts; each must be a whole number from 1 to 99.
func (a *ActiveInstallments) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[activeInstallmentsWire](data)
	if err != nil {
		return err
	}
	*a = ActiveInstallments{StatusDescription: strings.TrimSpace(string(firstNonEmpty(w.StatusDescription, w.Message))), Extra: extra}
	for _, n := range w.Installments {
		if n < 1 || n > maxInstallments {
			return fmt.Errorf("installment count %d is not between 1 and %d", n, maxInstallments)
		}
		a.Installments = append(a.Installments, int(n))
	}
	return nil
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(a, b flexString) flexString {
	if strings.TrimSpace(string(a)) != "" {
		return a
	}
	return b
}
