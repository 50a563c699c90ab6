package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/money"
	"github.com/shopspring/decimal"
)

// maxInvoiceIDLen is the longest invoice_id accepted.
const maxInvoiceIDLen = 100

// walletPayResult is the data object of a walletPay answer, field for field
// as docs/protocol.md (walletPay) lists it, with the "service_" spelling
// of the gateway's documentation rather than the live gateway's "sipay_".
type walletPayResult struct {
	ServiceStatus        int    `json:"service_status"`
	OrderNo              string `json:"order_no"`
	OrderID              string `json:"order_id"`
	InvoiceID            string `json:"invoice_id"`
	ServicePaymentMethod string `json:"service_payment_method"`
	CreditCardNo         string `json:"credit_card_no"`
	TransactionType      string `json:"transaction_type"`
	PaymentStatus        int    `json:"payment_status"`
	PaymentMethod        string `json:"payment_method"`
	ErrorCode            int    `json:"error_code"`
	Error                string `json:"error"`
	AuthCode             string `json:"auth_code"`
	saleCommissions
	HostReferenceID         string `json:"host_reference_id"`
	PaymentReasonCode       string `json:"payment_reason_code"`
	PaymentReasonCodeDetail string `json:"payment_reason_code_detail"`
}

// walletPayment is a walletPay request whose fields, hash_key and wallet
// token claims have passed the checks that need no store.
type walletPayment struct {
	invoiceID string
	token     string
	claims    *WalletClaims
	// tokenInvalid is the token's signature or expiry failure, answered
	// only after the duplicate check (a duplicate is reported first).
	tokenInvalid error
	amount       decimal.Decimal
	minor        int32
	rate         SingleRate
	// now is when the request came: the token's expiry and the sale's time.
	now time.Time
}

// walletPay serves POST /api/walletPay. Checks run in this order: fields,
// merchant_key (14), hash_key (90, 68), currency (12), duplicate invoice (3,
// before anything that resembles a provider call, and again atomically
// when the sale is committed), wallet token signature and expiry (1), then
// the simulated provider (100, 41, 69).
// A wallet type sent by the caller is ignored: it comes from the token.
func (g *Gateway) walletPay(w http.ResponseWriter, r *http.Request) {
	p, ok := g.readWalletPayment(w, r)
	if !ok {
		return
	}
	// This read is the fast path for duplicates; Reserve repeats the check
	// atomically for requests racing each other.
	if prior, dup, err := g.opts.Store.Get(p.invoiceID); err != nil {
		writeInternal(w, err)
		return
	} else if dup {
		explain(w, duplicateExplanation(prior))
		writeDuplicate(w)
		return
	}
	if _, busy := g.inFlight.LoadOrStore(p.invoiceID, struct{}{}); busy {
		explain(w, inFlightExplanation)
		writeDuplicate(w)
		return
	}
	// Released after the commit below, which a later request's read sees.
	defer g.inFlight.Delete(p.invoiceID)
	if p.tokenInvalid != nil {
		refuseWalletToken(w, p.claims, p.tokenInvalid)
		return
	}

	// The provider answers at once, so the sale is stored in its final
	// state by one commit (one per payment, not two).
	sale := g.walletSale(p)
	code, desc, why := provide(&sale, p.amount)
	// Committed before the answer: a sale answered 100 survives kill -9.
	if err := g.opts.Store.Reserve(sale); err != nil {
		refuseReservation(w, err)
		return
	}
	explain(w, explanation{why: why})
	writeJSON(w, http.StatusOK, statusBody{StatusCode: code, StatusDescription: desc, Data: resultOf(sale, code, desc)})
}

// readWalletPayment checks a walletPay request up to its currency: its
// fields, the merchant_key, the hash_key and the wallet token's claims.
// A refused request is answered and ok is false.
func (g *Gateway) readWalletPayment(w http.ResponseWriter, r *http.Request) (p walletPayment, ok bool) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opWalletPay.required...) {
		return p, false
	}
	p.invoiceID, p.token = f.get("invoice_id"), f.get("wallet_transient_token")
	if !checkInvoiceID(w, p.invoiceID) {
		return p, false
	}
	if addr, err := mail.ParseAddress(f.get("bill_email")); err != nil || addr.Address != f.get("bill_email") {
		explain(w, explanation{field: "bill_email", why: "malformed field bill_email: not one plain e-mail address (name@example.com, without a display name)"})
		writeStatus(w, 1, "The bill email must be a valid email address.")
		return p, false
	}
	if !g.verifyMerchant(w, f) {
		return p, false
	}
	plain, code, e := g.decryptHash(f.get("hash_key"), "walletpay")
	if !writeHashRefusal(w, code, e, "walletpay", "payment") {
		return p, false
	}
	var err error
	p.now = g.opts.Now()
	p.claims, p.tokenInvalid, err = readWalletToken(p.token, p.now)
	if err != nil {
		explain(w, explanation{field: "wallet_transient_token", why: fmt.Sprintf("malformed field wallet_transient_token: its claims cannot be read (%v); "+
			"it must be a wallet token (paycli sandbox wallet-token makes one)", err)})
		writeStatus(w, 1, "The wallet transient token is not a valid wallet token.")
		return p, false
	}
	if p.amount, ok = checkWalletClaims(w, p.claims); !ok {
		return p, false
	}
	code, e = compareHash(plain, "walletpay", map[string]string{
		"total":         string(p.claims.Amount),
		"installment":   "1",
		"currency_code": p.claims.Currency,
		"merchant_key":  g.opts.Credentials.MerchantKey,
		"invoice_id":    p.invoiceID,
	}, walletPaySources())
	if !writeHashRefusal(w, code, e, "walletpay", "payment") {
		return p, false
	}
	p.rate, p.minor, ok = g.walletRate(w, p.claims, p.amount)
	return p, ok
}

// checkWalletClaims refuses a wallet token whose amount or wallet type the
// sandbox cannot take, and returns its amount.
func checkWalletClaims(w http.ResponseWriter, claims *WalletClaims) (decimal.Decimal, bool) {
	amount, err := decimal.NewFromString(string(claims.Amount))
	if err != nil || !amount.IsPositive() {
		explain(w, explanation{field: "wallet_transient_token", got: string(claims.Amount), why: "the wallet token's amount is not a positive amount"})
		writeStatus(w, 1, "The wallet transient token carries no positive amount.")
		return amount, false
	}
	if amount.GreaterThanOrEqual(maxAmount()) {
		// The cap of every other amount the sandbox reads (parseAmount).
		explain(w, explanation{field: "wallet_transient_token", got: string(claims.Amount), why: fmt.Sprintf("the wallet token's amount is %s or more", maxAmount())})
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token's amount may not be %s or more.", maxAmount()))
		return amount, false
	}
	if claims.Wallet != WalletDeviceVendor && claims.Wallet != WalletOther {
		explain(w, explanation{field: "wallet_transient_token", got: claims.Wallet, want: WalletDeviceVendor + " or " + WalletOther,
			why: fmt.Sprintf("the wallet token's wallet claim is %s, not a wallet type the sandbox knows (%s or %s)", quoteValue(claims.Wallet), WalletDeviceVendor, WalletOther)})
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token names an unknown wallet type (known: %s, %s).", WalletDeviceVendor, WalletOther))
		return amount, false
	}
	return amount, true
}

// walletRate finds the commission rate of the token's card in its
// currency, refusing a currency the merchant does not accept (12) or an
// amount with more decimals than the currency has.
func (g *Gateway) walletRate(w http.ResponseWriter, claims *WalletClaims, amount decimal.Decimal) (SingleRate, int32, bool) {
	rate, known, err := g.opts.Schedule.RateForBIN(claims.Currency, claims.Card.BIN)
	if err != nil {
		writeInternal(w, err)
		return rate, 0, false
	}
	if !known {
		explain(w, explanation{field: "wallet_transient_token", got: claims.Currency, want: g.opts.Schedule.currencyList(),
			why: fmt.Sprintf("the wallet token's currency %s is not one the sandbox's merchant accepts (%s)", quoteValue(claims.Currency), g.opts.Schedule.currencyList())})
		writeStatus(w, 12, fmt.Sprintf("Invalid currency: %s is not accepted", claims.Currency))
		return rate, 0, false
	}
	minor, _ := money.MinorUnit(claims.Currency)
	if !amount.Equal(amount.Round(minor)) {
		explain(w, explanation{field: "wallet_transient_token", got: string(claims.Amount),
			why: fmt.Sprintf("the wallet token's amount %s has more decimals than %s has (%d)", claims.Amount, claims.Currency, minor)})
		writeStatus(w, 1, fmt.Sprintf("The wallet transient token's amount has more decimals than %s has (%d).", claims.Currency, minor))
		return rate, 0, false
	}
	return rate, minor, true
}

// refuseWalletToken answers a wallet token that expired or is not signed
// with the sandbox's wallet key.
func refuseWalletToken(w http.ResponseWriter, claims *WalletClaims, invalid error) {
	if errors.Is(invalid, jwt.ErrTokenExpired) {
		exp := "its exp"
		if claims.ExpiresAt != nil {
			exp = gatewayTime(claims.ExpiresAt.Time) + " (gateway time)"
		}
		explain(w, explanation{field: "wallet_transient_token", why: "the wallet token expired at " + exp + "; a wallet button makes a new one for each payment"})
		writeStatus(w, 1, "The wallet transient token has expired.")
		return
	}
	explain(w, explanation{field: "wallet_transient_token", why: fmt.Sprintf("the wallet token is not signed with the sandbox's wallet key (%v): "+
		"make it with paycli sandbox wallet-token, or sign it with the key docs/sandbox.md publishes", invalid)})
	writeStatus(w, 1, "The wallet transient token is invalid.")
}

// walletSale is the sale a checked walletPay request makes, before the
// simulated provider answers; its commission comes from the card's rate.
func (g *Gateway) walletSale(p walletPayment) Sale {
	minor := p.minor
	sale := Sale{
		InvoiceID:       p.invoiceID,
		OrderID:         g.opts.NewOrderID(),
		Kind:            KindWalletPay,
		TransactionType: TypeAuth,
		Amount:          p.amount.StringFixed(minor),
		Currency:        p.claims.Currency,
		Installment:     1,
		Wallet:          p.claims.Wallet,
		WalletTokenID:   walletTokenKey(p.token, p.claims.ID),
		CardBIN:         p.claims.Card.BIN,
		CardLast4:       p.claims.Card.Last4,
		CardProgram:     p.rate.Program,
		CreatedAt:       p.now,
		UpdatedAt:       p.now,
	}
	if p.claims.IssuedAt != nil {
		sale.WalletTokenIssuedAt = p.claims.IssuedAt.Unix()
	}
	merchantCommission := p.amount.Mul(p.rate.Percentage).Div(decimal.NewFromInt(100)).Add(p.rate.Fixed).Round(minor)
	sale.MerchantCommission = merchantCommission.StringFixed(minor)
	sale.UserCommission = decimal.Zero.StringFixed(minor)
	sale.MerchantCommissionPercentage = p.rate.Percentage.String()
	sale.MerchantCommissionFixed = p.rate.Fixed.String()
	return sale
}

// refuseReservation answers a sale the store would not commit: another
// payment for the invoice, or the wallet token, came first.
func refuseReservation(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrDuplicate):
		explain(w, explanation{field: "invoice_id", why: "duplicate invoice: another payment for this invoice was stored first (sent at the same time); an invoice id pays once"})
		writeDuplicate(w)
	case errors.Is(err, ErrTokenSpent):
		explain(w, explanation{field: "wallet_transient_token", why: fmt.Sprintf("the wallet token was already used (%v): a wallet token pays once; a wallet button makes a new one for each payment", err)})
		writeStatus(w, 1, "The wallet transient token was already used: a wallet token pays once.")
	default:
		writeInternal(w, err)
	}
}

// walletPaySources says where walletPay's hash_key fields come from, for
// the request log: total and currency from the wallet token, installment
// always 1, merchant_key the sandbox's.
func walletPaySources() map[string]string {
	return map[string]string{
		"total":         "the wallet token's amount",
		"currency_code": "the wallet token's currency",
		"installment":   "walletPay's installment count (always 1)",
		"merchant_key":  "this sandbox's merchant_key",
	}
}

// provide is the simulated provider: the cents of the amount choose its
// answer (docs/sandbox.md): .41 declines, .69 stays pending, anything else
// is approved. It sets the sale's state and returns the answer's code,
// and for the request log why a decline or a pending sale happened.
func provide(sale *Sale, amount decimal.Decimal) (code int, desc, why string) {
	cents := amount.Sub(amount.Floor())
	switch {
	case cents.Equal(decimal.New(41, -2)):
		sale.State = StateFailed
		sale.PaymentReasonCode = "51"
		sale.PaymentReasonCodeDetail = "Insufficient funds"
		return 41, "Payment failed", "declined by the simulated provider: the amount ends in .41 (payment_reason_code 51, insufficient funds); any other amount is approved"
	case cents.Equal(decimal.New(69, -2)):
		sale.State = StatePending
		return 69, "Order not yet processed", "left pending by the simulated provider: the amount ends in .69; a check status of the invoice resolves it as completed"
	}
	sale.State = StateCompleted
	sale.AuthCode, sale.HostReferenceID = providerReferences(sale.OrderID)
	return 100, "Payment successfully completed", ""
}

// duplicateExplanation says, for the request log, what already holds an
// invoice a payment was refused for (status_code 3).
func duplicateExplanation(prior Sale) explanation {
	return explanation{field: "invoice_id", why: fmt.Sprintf("duplicate invoice: it already has a %s sale (order %s, %s, made %s); an invoice id pays once, whatever the kind of payment",
		prior.Kind, prior.OrderID, strings.ReplaceAll(prior.State, "_", " "), gatewayTime(prior.CreatedAt))}
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
	if n := utf8.RuneCountInString(invoiceID); n > maxInvoiceIDLen || strings.ContainsAny(invoiceID, "|\x00") {
		why := fmt.Sprintf("malformed field invoice_id: %d characters, more than %d", n, maxInvoiceIDLen)
		if n <= maxInvoiceIDLen {
			why = "malformed field invoice_id: it holds '|' (the hash_key's separator) or a NUL"
		}
		explain(w, explanation{field: "invoice_id", why: why})
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
		OrderNo:                 sale.OrderID,
		OrderID:                 sale.OrderID,
		InvoiceID:               sale.InvoiceID,
		ServicePaymentMethod:    servicePaymentMethod(sale.Wallet),
		CreditCardNo:            maskCard(sale.CardBIN, sale.CardLast4),
		TransactionType:         "Auth",
		PaymentMethod:           "CREDITCARD",
		ErrorCode:               code,
		Error:                   desc,
		AuthCode:                sale.AuthCode,
		saleCommissions:         commissionsOf(sale),
		HostReferenceID:         sale.HostReferenceID,
		PaymentReasonCode:       sale.PaymentReasonCode,
		PaymentReasonCodeDetail: sale.PaymentReasonCodeDetail,
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
