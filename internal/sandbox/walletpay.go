package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/money"
	"github.com/shopspring/decimal"
)

// maxInvoiceIDLen is the longest invoice_id accepted.
const maxInvoiceIDLen = 100

// walletPayResult is the data object of a walletPay answer, field for field
// as docs/protocol.md (walletPay) lists it, with the "service_" spelling
// of the gateway's documentation rather than the live gateway's "sipay_".
type walletPayResult struct {
	ServiceStatus                int         `json:"service_status"`
	OrderNo                      string      `json:"order_no"`
	OrderID                      string      `json:"order_id"`
	InvoiceID                    string      `json:"invoice_id"`
	ServicePaymentMethod         string      `json:"service_payment_method"`
	CreditCardNo                 string      `json:"credit_card_no"`
	TransactionType              string      `json:"transaction_type"`
	PaymentStatus                int         `json:"payment_status"`
	PaymentMethod                string      `json:"payment_method"`
	ErrorCode                    int         `json:"error_code"`
	Error                        string      `json:"error"`
	AuthCode                     string      `json:"auth_code"`
	MerchantCommission           json.Number `json:"merchant_commission"`
	UserCommission               json.Number `json:"user_commission"`
	MerchantCommissionPercentage json.Number `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      json.Number `json:"merchant_commission_fixed"`
	HostReferenceID              string      `json:"host_reference_id"`
	PaymentReasonCode            string      `json:"payment_reason_code"`
	PaymentReasonCodeDetail      string      `json:"payment_reason_code_detail"`
}

// walletPay serves POST /api/walletPay. Checks run in this order: fields,
// merchant_key (14), hash_key (90, 68), currency (12), duplicate invoice (3,
// before anything that resembles a provider call, and again atomically
// when the sale is committed), wallet token signature and expiry (1), then
// the simulated provider (100, 41, 69).
// A wallet type sent by the caller is ignored: it comes from the token.
func (g *Gateway) walletPay(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, "merchant_key", "hash_key", "invoice_id", "wallet_transient_token", "name", "surname", "bill_email") {
		return
	}
	invoiceID := f.get("invoice_id")
	if !checkInvoiceID(w, invoiceID) {
		return
	}
	if addr, err := mail.ParseAddress(f.get("bill_email")); err != nil || addr.Address != f.get("bill_email") {
		writeStatus(w, 1, "The bill email must be a valid email address.")
		return
	}
	if f.get("merchant_key") != g.opts.Credentials.MerchantKey {
		writeStatus(w, 14, "Invalid merchant key: merchant not found")
		return
	}
	plain, err := hashkey.Decrypt(g.opts.Credentials.AppSecret, f.get("hash_key"))
	if err != nil {
		writeStatus(w, 90, "Invalid hash key")
		return
	}
	now := g.opts.Now()
	claims, tokenInvalid, err := readWalletToken(f.get("wallet_transient_token"), now)
	if err != nil {
		writeStatus(w, 1, "The wallet transient token is not a valid wallet token.")
		return
	}
	amount, err := decimal.NewFromString(string(claims.Amount))
	if err != nil || !amount.IsPositive() {
		writeStatus(w, 1, "The wallet transient token carries no positive amount.")
		return
	}
	if amount.GreaterThanOrEqual(maxAmount()) {
		// The cap of every other amount the sandbox reads (parseAmount).
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token's amount may not be %s or more.", maxAmount()))
		return
	}
	if claims.Wallet != WalletDeviceVendor && claims.Wallet != WalletOther {
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token names an unknown wallet type (known: %s, %s).", WalletDeviceVendor, WalletOther))
		return
	}
	layout, _ := hashkey.LookupLayout("walletpay")
	field, err := layout.Mismatch(hashkey.Split(plain), map[string]string{
		"total":         string(claims.Amount),
		"installment":   "1",
		"currency_code": claims.Currency,
		"merchant_key":  g.opts.Credentials.MerchantKey,
		"invoice_id":    invoiceID,
	})
	if err != nil {
		writeStatus(w, 68, "Hash key mismatch: the hash_key is not made with the walletpay layout total|installment|currency_code|merchant_key|invoice_id")
		return
	}
	if field != "" {
		writeStatus(w, 68, fmt.Sprintf("Hash key mismatch: %s differs from the payment", field))
		return
	}
	rate, known, err := g.opts.Schedule.RateForBIN(claims.Currency, claims.Card.BIN)
	if err != nil {
		writeInternal(w, err)
		return
	}
	if !known {
		writeStatus(w, 12, fmt.Sprintf("Invalid currency: %s is not accepted", claims.Currency))
		return
	}
	minor, _ := money.MinorUnit(claims.Currency)
	if !amount.Equal(amount.Round(minor)) {
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token's amount has more decimals than %s has (%d).", claims.Currency, minor))
		return
	}

	// A duplicate is refused before anything that resembles a provider
	// call. This read is the fast path for duplicates; the commit below
	// repeats the check atomically for requests racing each other.
	if _, dup, err := g.opts.Store.Get(invoiceID); err != nil {
		writeInternal(w, err)
		return
	} else if dup {
		writeDuplicate(w)
		return
	}
	if _, busy := g.inFlight.LoadOrStore(invoiceID, struct{}{}); busy {
		writeDuplicate(w)
		return
	}
	// Released after the commit below, which a later request's read sees.
	defer g.inFlight.Delete(invoiceID)
	if err := tokenInvalid; err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			writeStatus(w, 1, "The wallet transient token has expired.")
		} else {
			writeStatus(w, 1, "The wallet transient token is invalid.")
		}
		return
	}

	// The simulated provider: the cents of the amount choose its answer
	// (docs/sandbox.md): .41 declines, .69 stays pending. It answers at
	// once, so the sale is stored in its final state by one commit rather
	// than reserved and then updated: one fsync per payment instead of two,
	// with the same guarantee (of concurrent requests for an invoice
	// exactly one is stored; a lost race is answered 3 and stores nothing).
	sale := Sale{
		InvoiceID:       invoiceID,
		OrderID:         g.opts.NewOrderID(),
		Kind:            KindWalletPay,
		TransactionType: TypeAuth,
		Amount:          amount.StringFixed(minor),
		Currency:        claims.Currency,
		Installment:     1,
		Wallet:          claims.Wallet,
		WalletTokenID:   walletTokenKey(f.get("wallet_transient_token"), claims.ID),
		CardBIN:         claims.Card.BIN,
		CardLast4:       claims.Card.Last4,
		CardProgram:     rate.Program,
		CreatedAt:       now,
		UpdatedAt:       now,
	}
	merchantCommission := amount.Mul(rate.Percentage).Div(decimal.NewFromInt(100)).Add(rate.Fixed).Round(minor)
	sale.MerchantCommission = merchantCommission.StringFixed(minor)
	sale.UserCommission = decimal.Zero.StringFixed(minor)
	sale.MerchantCommissionPercentage = rate.Percentage.String()
	sale.MerchantCommissionFixed = rate.Fixed.String()
	code, desc := provide(&sale, amount)
	// Committed (fsync) before the answer: a sale answered 100 survives a crash.
	if err := g.opts.Store.Reserve(sale); err != nil {
		switch {
		case errors.Is(err, ErrDuplicate):
			writeDuplicate(w)
		case errors.Is(err, ErrTokenSpent):
			writeStatus(w, 1, "The wallet transient token was already used: a wallet token pays once.")
		default:
			writeInternal(w, err)
		}
		return
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: code, StatusDescription: desc, Data: resultOf(sale, code, desc)})
}

// provide is the simulated provider: the cents of the amount choose its
// answer (docs/sandbox.md): .41 declines, .69 stays pending, anything else
// is approved. It sets the sale's state and returns the answer's code.
func provide(sale *Sale, amount decimal.Decimal) (code int, desc string) {
	cents := amount.Sub(amount.Floor())
	switch {
	case cents.Equal(decimal.New(41, -2)):
		sale.State = StateFailed
		sale.PaymentReasonCode = "51"
		sale.PaymentReasonCodeDetail = "Insufficient funds"
		return 41, "Payment failed"
	case cents.Equal(decimal.New(69, -2)):
		sale.State = StatePending
		return 69, "Order not yet processed"
	}
	sale.State = StateCompleted
	sale.AuthCode, sale.HostReferenceID = providerReferences(sale.OrderID)
	return 100, "Payment successfully completed"
}

// walletTokenKey names a wallet token in the store's spent-token set: its
// jti, or a digest of the whole token for a token without one (a signed
// token cannot be changed without changing its digest).
func walletTokenKey(token, jti string) string {
	if jti != "" {
		return "jti:" + jti
	}
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkInvoiceID answers status_code 1 for an invoice id the gateway
// refuses: longer than 100 characters (characters, not bytes: "İŞLEM" is
// five), or holding '|' (the hash_key separator) or a NUL.
func checkInvoiceID(w http.ResponseWriter, invoiceID string) bool {
	if utf8.RuneCountInString(invoiceID) > maxInvoiceIDLen || strings.ContainsAny(invoiceID, "|\x00") {
		writeStatus(w, 1, fmt.Sprintf("The invoice id may not be longer than %d characters or contain '|'.", maxInvoiceIDLen))
		return false
	}
	return true
}

// writeDuplicate answers a walletPay for an invoice already processed or
// in flight.
func writeDuplicate(w http.ResponseWriter) {
	writeStatus(w, 3, "Invoice id is already processed or in progress; nothing was charged")
}

// resultOf builds the §2.2 object for a sale answered with code.
func resultOf(sale Sale, code int, desc string) walletPayResult {
	res := walletPayResult{
		OrderNo:                      sale.OrderID,
		OrderID:                      sale.OrderID,
		InvoiceID:                    sale.InvoiceID,
		ServicePaymentMethod:         servicePaymentMethod(sale.Wallet),
		CreditCardNo:                 maskCard(sale.CardBIN, sale.CardLast4),
		TransactionType:              "Auth",
		PaymentMethod:                "CREDITCARD",
		ErrorCode:                    code,
		Error:                        desc,
		AuthCode:                     sale.AuthCode,
		MerchantCommission:           json.Number(sale.MerchantCommission),
		UserCommission:               json.Number(sale.UserCommission),
		MerchantCommissionPercentage: json.Number(sale.MerchantCommissionPercentage),
		MerchantCommissionFixed:      json.Number(sale.MerchantCommissionFixed),
		HostReferenceID:              sale.HostReferenceID,
		PaymentReasonCode:            sale.PaymentReasonCode,
		PaymentReasonCodeDetail:      sale.PaymentReasonCodeDetail,
	}
	if code == 100 {
		res.ServiceStatus, res.PaymentStatus, res.Error = 1, 1, "Success"
	}
	return res
}

// servicePaymentMethod labels a sale with its wallet type, which the
// gateway learns from the provider (never from the caller).
func servicePaymentMethod(wallet string) string {
	if wallet == "" {
		return "WALLET"
	}
	return "WALLET_" + wallet
}

// maskCard shows the BIN and the last four digits of a 16-digit card.
func maskCard(bin, last4 string) string {
	return bin + "******" + last4
}

// providerReferences derives the provider's authorization code (6 digits)
// and host reference (12 digits) from the order id, so they need no
// randomness of their own and are stable for a sale.
func providerReferences(orderID string) (authCode, hostRef string) {
	sum := sha256.Sum256([]byte(orderID))
	a := binary.BigEndian.Uint64(sum[:8]) % 1_000_000
	h := binary.BigEndian.Uint64(sum[8:16]) % 1_000_000_000_000
	return fmt.Sprintf("%06d", a), fmt.Sprintf("%012d", h)
}

func orZero(s string) string {
	if s == "" {
		return "0.00"
	}
	return s
}
