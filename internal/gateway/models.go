package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/commission"
)

// Credentials are the profile's: app_id and app_secret authenticate the
// token call (and travel in a refund's body); merchant_key goes into the
// body of the calls that name the merchant and, with the app_secret, signs
// their hash_key. The client is the only part of paycli that uses them.
type Credentials struct {
	AppID       string
	AppSecret   string
	MerchantKey string
}

// tokenRequest is the body of POST /api/token.
type tokenRequest struct {
	AppID     string `json:"app_id"`
	AppSecret string `json:"app_secret"`
}

// tokenData is the data object of a token response.
type tokenData struct {
	Token     string  `json:"token"`
	Is3D      flexInt `json:"is_3d"`
	ExpiresAt string  `json:"expires_at"`
}

// Token is a bearer token and what the client knows about its life.
type Token struct {
	// Value is the bearer token (a JWT).
	Value string
	// Is3D says which payments the merchant may take: 0 = 2D only, 1 = 2D
	// or 3D, 2 = 3D only, 4 = branded.
	Is3D int
	// ExpiresAt is the instant the client treats the token as expired: the
	// earlier of the response's expires_at (read conservatively, see
	// readExpiresAt) and the JWT's exp. Zero when neither could be read;
	// such a token is used by the process that got it and never cached.
	ExpiresAt time.Time
	// RawExpiresAt is expires_at exactly as the gateway sent it.
	RawExpiresAt string
}

// TokenReuseMargin is how long before its expiry a token stops being
// reused, so that it cannot expire in flight.
const TokenReuseMargin = 5 * time.Minute

// Reusable reports whether the token may still be used at now.
func (t *Token) Reusable(now time.Time) bool {
	return t != nil && t.Value != "" && !t.ExpiresAt.IsZero() && now.Before(t.ExpiresAt.Add(-TokenReuseMargin))
}

// CommissionsRequest is the body of POST /api/commissions.
type CommissionsRequest struct {
	// CurrencyCode is three letters, e.g. TRY.
	CurrencyCode string `json:"currency_code"`
	// CommissionBy is "merchant" or "user".
	CommissionBy string `json:"commission_by,omitempty"`
	// AppLang is a two-letter language code for the gateway's texts.
	AppLang string `json:"app_lang,omitempty"`
}

// Commissions is a commission lookup's result.
type Commissions struct {
	// Schedule holds the entries per installment count.
	Schedule commission.Schedule
	// Description is the gateway's status_description.
	Description string
}

// WalletPayRequest is a wallet payment (POST /api/walletPay). The client
// adds merchant_key and the hash_key, in the walletpay layout
// total|installment|currency_code|merchant_key|invoice_id with installment
// 1 (docs/protocol.md, walletPay).
type WalletPayRequest struct {
	InvoiceID            string
	WalletTransientToken string
	Name                 string
	Surname              string
	BillEmail            string
	// Total and CurrencyCode are the wallet token's amount and currency,
	// exactly as the token writes them: the hash_key covers them; they are
	// not sent (the gateway reads them from the token).
	Total        string
	CurrencyCode string
}

type walletPayRequestWire struct {
	MerchantKey          string `json:"merchant_key"`
	HashKey              string `json:"hash_key"`
	InvoiceID            string `json:"invoice_id"`
	WalletTransientToken string `json:"wallet_transient_token"`
	Name                 string `json:"name,omitempty"`
	Surname              string `json:"surname,omitempty"`
	BillEmail            string `json:"bill_email,omitempty"`
}

func (r WalletPayRequest) encode(c *Client) (endpoint, []byte, error) {
	if err := required("invoice_id", r.InvoiceID, "wallet_transient_token", r.WalletTransientToken,
		"total", r.Total, "currency_code", r.CurrencyCode); err != nil {
		return encodeCall(endpointWalletPay, nil, err)
	}
	hk, err := c.hashKey("walletpay", map[string]string{"total": r.Total, "installment": "1",
		"currency_code": r.CurrencyCode, "invoice_id": r.InvoiceID})
	return encodeCall(endpointWalletPay, walletPayRequestWire{MerchantKey: c.creds.MerchantKey, HashKey: hk,
		InvoiceID: r.InvoiceID, WalletTransientToken: r.WalletTransientToken, Name: r.Name, Surname: r.Surname,
		BillEmail: r.BillEmail}, err)
}

// SaleAnswer is a sale as the answers of walletPay and payment/complete
// report it. ServiceStatus and ServicePaymentMethod are read from either
// spelling: service_status / service_payment_method (the gateway's
// documentation) or sipay_status / sipay_payment_method (the live
// gateway).
type SaleAnswer struct {
	ServiceStatus        int
	OrderNo              string
	OrderID              string
	InvoiceID            string
	ServicePaymentMethod string
	// CreditCardNo is the card as the gateway shows it (masked by the
	// gateway; commands mask it again before printing).
	CreditCardNo    string
	TransactionType string
	// PaymentStatus is 1 for a paid sale; HasPaymentStatus says whether
	// the answer held the field (0 then means 0, not absent).
	PaymentStatus    int
	HasPaymentStatus bool
	PaymentMethod    string
	AuthCode         string
}

// WalletPayResult is the data object of a successful walletPay
// (docs/protocol.md, walletPay).
type WalletPayResult struct {
	SaleAnswer
	ErrorCode                    int
	Error                        string
	MerchantCommission           commission.Value
	UserCommission               commission.Value
	MerchantCommissionPercentage commission.Value
	MerchantCommissionFixed      commission.Value
	HostReferenceID              string
	PaymentReasonCode            string
	PaymentReasonCodeDetail      string
	// Extra holds fields this type does not know, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

// saleAnswerWire is what the answers of walletPay and payment/complete
// share: the sale as the gateway reports it, with both spellings of the
// status and method fields (service_… and sipay_…).
type saleAnswerWire struct {
	ServiceStatus        *flexInt    `json:"service_status"`
	SipayStatus          *flexInt    `json:"sipay_status"`
	OrderNo              flexString  `json:"order_no"`
	OrderID              flexString  `json:"order_id"`
	InvoiceID            flexString  `json:"invoice_id"`
	ServicePaymentMethod *flexString `json:"service_payment_method"`
	SipayPaymentMethod   *flexString `json:"sipay_payment_method"`
	CreditCardNo         flexString  `json:"credit_card_no"`
	TransactionType      flexString  `json:"transaction_type"`
	PaymentStatus        *flexFlag   `json:"payment_status"`
	PaymentMethod        flexString  `json:"payment_method"`
	AuthCode             flexString  `json:"auth_code"`
}

// sale reads either spelling of the status and method fields.
func (w saleAnswerWire) sale() SaleAnswer {
	return SaleAnswer{
		ServiceStatus: int(firstOf(w.ServiceStatus, w.SipayStatus)), OrderNo: string(w.OrderNo), OrderID: string(w.OrderID),
		InvoiceID: string(w.InvoiceID), ServicePaymentMethod: string(firstOf(w.ServicePaymentMethod, w.SipayPaymentMethod)),
		CreditCardNo: string(w.CreditCardNo), TransactionType: string(w.TransactionType),
		PaymentStatus: int(firstOf(w.PaymentStatus, nil)), HasPaymentStatus: w.PaymentStatus != nil,
		PaymentMethod: string(w.PaymentMethod), AuthCode: string(w.AuthCode),
	}
}

// walletPayWire is the wire form of WalletPayResult.
type walletPayWire struct {
	saleAnswerWire
	ErrorCode                    flexInt          `json:"error_code"`
	Error                        flexString       `json:"error"`
	MerchantCommission           commission.Value `json:"merchant_commission"`
	UserCommission               commission.Value `json:"user_commission"`
	MerchantCommissionPercentage commission.Value `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      commission.Value `json:"merchant_commission_fixed"`
	HostReferenceID              flexString       `json:"host_reference_id"`
	PaymentReasonCode            flexString       `json:"payment_reason_code"`
	PaymentReasonCodeDetail      flexString       `json:"payment_reason_code_detail"`
}

// check is the success check of a walletPay answer: payment_status, when
// present, 1; error_code, when present, 100; the invoice sent, when it
// names one; and an order number. Fields the answer leaves out are not held
// against it (some gateways omit payment_status and error_code).
func (r *WalletPayResult) check(sent WalletPayRequest) error {
	return checkSuccess(EndpointWalletPay, StatusSuccess).
		PaymentStatus(r.PaymentStatus, r.HasPaymentStatus, r.Error).
		ErrorCode(r.ErrorCode, r.Error).
		Invoice(r.InvoiceID, sent.InvoiceID, false).
		Order(r.OrderNo, r.OrderID).
		Err()
}

// UnmarshalJSON reads the answer leniently (numbers or strings).
func (r *WalletPayResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[walletPayWire](data)
	if err != nil {
		return err
	}
	*r = WalletPayResult{
		SaleAnswer:                   w.sale(),
		ErrorCode:                    int(w.ErrorCode),
		Error:                        string(w.Error),
		MerchantCommission:           w.MerchantCommission,
		UserCommission:               w.UserCommission,
		MerchantCommissionPercentage: w.MerchantCommissionPercentage,
		MerchantCommissionFixed:      w.MerchantCommissionFixed,
		HostReferenceID:              string(w.HostReferenceID),
		PaymentReasonCode:            string(w.PaymentReasonCode),
		PaymentReasonCodeDetail:      string(w.PaymentReasonCodeDetail),
		Extra:                        extra,
	}
	return nil
}

// checkStatusRequest is check status of one invoice, with its pending
// status and its refunds (POST /api/checkstatus), signed in the
// checkstatus layout invoice_id|merchant_key.
type checkStatusRequest struct {
	InvoiceID string
}

type checkStatusWire struct {
	MerchantKey          string `json:"merchant_key"`
	InvoiceID            string `json:"invoice_id"`
	IncludePendingStatus bool   `json:"include_pending_status"`
	HashKey              string `json:"hash_key"`
	ShowRefundInfo       string `json:"show_refund_info"`
}

func (r checkStatusRequest) encode(c *Client) (endpoint, []byte, error) {
	if err := required("invoice_id", r.InvoiceID); err != nil {
		return encodeCall(endpointCheckStatus, nil, err)
	}
	hk, err := c.hashKey("checkstatus", map[string]string{"invoice_id": r.InvoiceID})
	return encodeCall(endpointCheckStatus, checkStatusWire{MerchantKey: c.creds.MerchantKey, InvoiceID: r.InvoiceID,
		IncludePendingStatus: true, HashKey: hk, ShowRefundInfo: "Y"}, err)
}

// CheckStatusResult is a checkstatus response. Its fields are at the top
// level of the body, beside status_code, not under data
// (docs/protocol.md, Check status).
type CheckStatusResult struct {
	StatusCode          int
	StatusDescription   string
	TransactionStatus   string
	OrderID             string
	InvoiceID           string
	TransactionAmount   commission.Value
	TotalRefundedAmount commission.Value
	// TransactionType is Auth for a sale, PreAuth for a pre-authorization
	// (see PreAuth).
	TransactionType   string
	PaymentReasonCode string
	// Extra holds the other top-level fields, as the gateway wrote them;
	// PaymentStatus, CurrencyCode, CardNo and Refunds read some of them.
	Extra map[string]json.RawMessage
	// sent names the top-level fields the answer had (Has).
	sent map[string]bool
}

// Has reports whether the answer had the top-level field name, whatever
// its value: a field the gateway did not send is not shown as empty.
func (r *CheckStatusResult) Has(name string) bool { return r.sent[name] }

type checkStatusResultWire struct {
	StatusCode          flexInt          `json:"status_code"`
	StatusDescription   flexString       `json:"status_description"`
	TransactionStatus   flexString       `json:"transaction_status"`
	OrderID             flexString       `json:"order_id"`
	InvoiceID           flexString       `json:"invoice_id"`
	TransactionAmount   commission.Value `json:"transaction_amount"`
	TotalRefundedAmount commission.Value `json:"total_refunded_amount"`
	TransactionType     flexString       `json:"transaction_type"`
	PaymentReasonCode   flexString       `json:"payment_reason_code"`
}

// UnmarshalJSON reads the top-level fields leniently (numbers or strings).
func (r *CheckStatusResult) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[checkStatusResultWire](data)
	if err != nil {
		return err
	}
	*r = CheckStatusResult{
		StatusCode:          int(w.StatusCode),
		StatusDescription:   strings.TrimSpace(string(w.StatusDescription)),
		TransactionStatus:   string(w.TransactionStatus),
		OrderID:             string(w.OrderID),
		InvoiceID:           string(w.InvoiceID),
		TransactionAmount:   w.TransactionAmount,
		TotalRefundedAmount: w.TotalRefundedAmount,
		TransactionType:     string(w.TransactionType),
		PaymentReasonCode:   string(w.PaymentReasonCode),
		Extra:               extra,
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	r.sent = make(map[string]bool, len(top))
	for name := range top {
		r.sent[name] = true
	}
	return nil
}

// Pre-authorization states, as PreAuth reads them from check status.
const (
	// PreAuthNone: the transaction is not a pre-authorization (a sale).
	PreAuthNone = ""
	// PreAuthOpen: the money is held and can be captured or released.
	PreAuthOpen = "open"
	// PreAuthCaptured: confirmPayment took the money (all or part of it).
	PreAuthCaptured = "captured"
	// PreAuthCancelled: confirmPayment released the hold.
	PreAuthCancelled = "cancelled"
	// PreAuthOther: a pre-authorization in any other state (failed,
	// pending, or a transaction_status paycli does not know).
	PreAuthOther = "other"
)

// PreAuth reads what check status says of a pre-authorization
// (docs/protocol.md, Pre-authorizations): transaction_type PreAuth (the
// SDK's TransactionType) marks one, for its whole life; transaction_status
// says its state: "Pre-Authorized" (or "Pre-Authorization") while the
// money is held, "Completed" once captured (and "Refunded" or "Partially
// Refunded" after refunds of the capture), "Cancelled" once released.
// transaction_type PostAuth, which some gateways report for a captured
// pre-authorization, reads as captured.
func (r *CheckStatusResult) PreAuth() string {
	switch letters(r.TransactionType) {
	case "preauth":
	case "postauth":
		return PreAuthCaptured
	default:
		return PreAuthNone
	}
	switch state := SaleStateOf(r.TransactionStatus); {
	case state == SalePreAuthorized:
		return PreAuthOpen
	case state.Taken():
		return PreAuthCaptured
	case state == SaleCancelled:
		return PreAuthCancelled
	}
	return PreAuthOther
}

// PreAuthOpen reports whether the transaction is a pre-authorization that
// holds money and can still be captured or cancelled (see PreAuth).
func (r *CheckStatusResult) PreAuthOpen() bool { return r.PreAuth() == PreAuthOpen }

// check refuses an answer about another invoice than the one asked, or
// naming none (an *InconsistentError): what check status says decides what
// a command sends next, and an answer about another sale must not.
func (r *CheckStatusResult) check(asked string) error {
	return checkSuccess(endpointCheckStatus.name, r.StatusCode).Invoice(r.InvoiceID, asked, true).Err()
}

// CreatedAt returns created_at, "" when there is none.
func (r *CheckStatusResult) CreatedAt() string { return r.extraString("created_at") }

// PaymentStatus returns payment_status (1 for a paid sale, true read as
// 1: flexFlag); ok is false when the answer has none, or one that is
// neither a whole number nor a boolean.
func (r *CheckStatusResult) PaymentStatus() (status int, ok bool) {
	return extraFlag(r.Extra, "payment_status")
}

// LinkStatus returns link_status ("awaiting_payment", "used"), which marks
// a sale made through a payment link; "" when the answer has none.
func (r *CheckStatusResult) LinkStatus() string { return r.extraString("link_status") }

// CurrencyCode returns currency_code, "" when there is none.
func (r *CheckStatusResult) CurrencyCode() string { return r.extraString("currency_code") }

// CardNo returns the card as the gateway shows it (cc_no, or
// credit_card_no), "" when there is none. The gateway masks it; commands
// mask it again before printing.
func (r *CheckStatusResult) CardNo() string {
	if s := r.extraString("cc_no"); s != "" {
		return s
	}
	return r.extraString("credit_card_no")
}

func (r *CheckStatusResult) extraString(name string) string {
	var s flexString
	if raw, ok := r.Extra[name]; !ok || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return string(s)
}

// Refunds returns the sale's refunds from refund_info, which the gateway
// sends when asked (CheckStatus asks for it), oldest first; none when it is
// absent, null, "" or {}. An error says refund_info is not the protocol's.
func (r *CheckStatusResult) Refunds() ([]RefundInfo, error) {
	raw, ok := r.Extra["refund_info"]
	if !ok {
		return nil, nil
	}
	switch strings.TrimSpace(string(raw)) {
	case "null", `""`, "{}":
		return nil, nil
	}
	var list []RefundInfo
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("refund_info: %w", err)
	}
	return list, nil
}

// RefundInfo is one refund of a sale, from checkstatus's refund_info.
type RefundInfo struct {
	Amount              commission.Value
	RefundTransactionID string
	// Status is the refund's state as the gateway names it (e.g.
	// Completed, or Pending while it waits for approval).
	Status    string
	RefNo     string
	CreatedAt string
	// Extra holds fields this type does not know, as the gateway wrote them.
	Extra map[string]json.RawMessage
}

type refundInfoWire struct {
	Amount              commission.Value `json:"amount"`
	RefundTransactionID flexString       `json:"refund_transaction_id"`
	Status              flexString       `json:"status"`
	RefNo               flexString       `json:"ref_no"`
	CreatedAt           flexString       `json:"created_at"`
}

// UnmarshalJSON reads one refund leniently (numbers or strings).
func (r *RefundInfo) UnmarshalJSON(data []byte) error {
	w, extra, err := decodeWire[refundInfoWire](data)
	if err != nil {
		return err
	}
	*r = RefundInfo{Amount: w.Amount, RefundTransactionID: string(w.RefundTransactionID), Status: string(w.Status),
		RefNo: string(w.RefNo), CreatedAt: string(w.CreatedAt), Extra: extra}
	return nil
}

// envelope is the frame of every response.
type envelope struct {
	StatusCode        *flexInt        `json:"status_code"`
	StatusDescription flexString      `json:"status_description"`
	Message           flexString      `json:"message"`
	Data              json.RawMessage `json:"data"`
}

func (e envelope) description() string {
	if s := strings.TrimSpace(string(e.StatusDescription)); s != "" {
		return s
	}
	return strings.TrimSpace(string(e.Message))
}

// flexInt reads an integer written as a JSON number or a string; null and
// "" are 0.
type flexInt int

func (n *flexInt) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if s == "null" {
		*n = 0
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*n = 0
			return nil
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// 1.0 is an integer too.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != float64(int64(f)) {
			return fmt.Errorf("%.20q is not a whole number", s)
		}
		v = int64(f)
	}
	*n = flexInt(v)
	return nil
}

// flexFlag reads a field that says whether money moved (payment_status)
// in any of the ways the family writes it: a whole number or a string
// holding one (1 paid, 0 not), or a boolean, as JSON or as a string, read
// as 1 and 0 (Platformode's payment/complete answers "payment_status":
// true, its integration document §11.16). null and "" are 0.
type flexFlag int

func (n *flexFlag) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		*n = 1
		return nil
	case "false":
		*n = 0
		return nil
	}
	var v flexInt
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = flexFlag(v)
	return nil
}

// extraFlag reads a flag (flexFlag) the answer's type does not name;
// present is false when there is none, or one that is no flag.
func extraFlag(extra map[string]json.RawMessage, name string) (n int, present bool) {
	var v flexFlag
	raw, ok := extra[name]
	if !ok || json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return int(v), true
}

// flexString reads a string, keeping numbers and booleans as their text;
// null is "".
type flexString string

func (s *flexString) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*s = ""
	case len(data) > 1 && data[0] == '"' && data[len(data)-1] == '"' && bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data):
		*s = flexString(data[1 : len(data)-1]) // nothing escaped: the text as written
	case len(data) > 0 && data[0] == '"':
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*s = flexString(v)
	case len(data) > 0 && (data[0] == '{' || data[0] == '['):
		return fmt.Errorf("expected a string, got %s", map[byte]string{'{': "an object", '[': "an array"}[data[0]])
	default:
		*s = flexString(data)
	}
	return nil
}

func firstOf[T any](a, b *T) T {
	if a != nil {
		return *a
	}
	if b != nil {
		return *b
	}
	var zero T
	return zero
}

// decodeWire is how every answer type of the package is read: leniently,
// into its wire struct W (numbers or strings, flexInt and flexString),
// with the fields W does not name kept as the gateway wrote them.
func decodeWire[W any](data []byte) (w W, extra map[string]json.RawMessage, err error) {
	if err := json.Unmarshal(data, &w); err != nil {
		return w, nil, err
	}
	extra, err = extraFields(data, w)
	return w, extra, err
}

// extraFields returns the fields of the object data that the wire struct
// w does not name in its json tags.
func extraFields(data []byte, w any) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	known, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	var names map[string]json.RawMessage
	if err := json.Unmarshal(known, &names); err != nil {
		return nil, err
	}
	var extra map[string]json.RawMessage
	for k, v := range all {
		if _, ok := names[k]; ok {
			continue
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	return extra, nil
}
