package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/money"
)

// TestCard is a published sandbox card and what the simulated provider
// does with it (docs/sandbox.md). Any other Luhn-valid number is approved,
// and the magic amounts (.41 declines, .69 stays pending) apply to every
// card that approves.
type TestCard struct {
	Number string
	// Outcome is "approve", "decline" or "3d" (a 2D payment is refused
	// with 60; paySmart3D approves it after the challenge).
	Outcome string
	// ReasonCode and Reason explain a decline, as the provider words it.
	ReasonCode, Reason string
}

// TestCards are the sandbox's published cards.
var TestCards = []TestCard{
	{Number: "4355084355084358", Outcome: "approve"},
	{Number: "5406675406675403", Outcome: "approve"},
	{Number: "4508034508034509", Outcome: "approve"},
	{Number: "4029404029404020", Outcome: "approve"}, // a debit card: one installment
	{Number: "4355080000000054", Outcome: "decline", ReasonCode: "05", Reason: "Do not honour"},
	{Number: "4355080000000518", Outcome: "decline", ReasonCode: "51", Reason: "Insufficient funds"},
	{Number: "4355080000000542", Outcome: "decline", ReasonCode: "54", Reason: "Expired card"},
	{Number: "4355080000003009", Outcome: "3d"},
}

// testCard finds a published card ("approve" for any other number).
func testCard(number string) TestCard {
	for _, c := range TestCards {
		if c.Number == number {
			return c
		}
	}
	return TestCard{Number: number, Outcome: "approve"}
}

// testCardOf finds the published card with a first six and last four
// digits (the published cards differ in these), for a stored sale.
func testCardOf(bin, last4 string) TestCard {
	for _, c := range TestCards {
		if c.Number[:6] == bin && c.Number[len(c.Number)-4:] == last4 {
			return c
		}
	}
	return TestCard{Outcome: "approve"}
}

// cardPayment is a card payment request read and checked: what paySmart2D
// and paySmart3D share.
type cardPayment struct {
	invoiceID   string
	currency    string
	total       decimal.Decimal
	installment int
	txType      string
	card        TestCard
	bin, last4  string
	holder      string
	option      installmentOption
	webHookKey  string
	// billEmail and billPhone are the payer's, as sent (the ledger's
	// billing filters read them).
	billEmail, billPhone string
}

// readCardPayment checks a card payment request, answering its refusal
// when ok is false. saved is the saved card a payment by card token uses
// (nil: the request carries the card's fields). Checks run in this order:
// fields, invoice id, card number, expiry and cvv, transaction type (1),
// merchant_key (14), currency (1, 12), installments and total (1), hash_key
// with the payment layout
// total|installments_number|currency_code|merchant_key|invoice_id (90,
// 68), items (12), the card's program and installment count (1). The card
// number appears in no answer: a refusal names the field only.
func (g *Gateway) readCardPayment(w http.ResponseWriter, f fields, now time.Time, saved *SavedCard) (p cardPayment, ok bool) {
	required := concat(cardPaymentFields, payerFields)
	if saved == nil {
		required = opPaySmart2D.required
	}
	if !f.requireFields(w, required...) {
		return p, false
	}
	p.invoiceID = f.get("invoice_id")
	p.billEmail, p.billPhone = f.get("bill_email"), f.get("bill_phone")
	if !checkInvoiceID(w, p.invoiceID) {
		return p, false
	}
	if saved != nil {
		p.card, p.bin, p.last4, p.holder = saved.testCard(), saved.BIN, saved.Last4, saved.Holder
	} else {
		c, msg := readCard(f, now)
		if msg != "" {
			writeStatus(w, 1, msg)
			return p, false
		}
		p.card, p.bin, p.last4, p.holder = c.card, c.bin, c.last4, c.holder
	}
	p.txType = f.get("transaction_type")
	if !fieldSpecs()["transaction_type"].allows(p.txType) {
		writeStatus(w, 1, "The selected transaction type is invalid (Auth or PreAuth).")
		return p, false
	}
	if p.txType == "" {
		p.txType = TypeAuth
	}
	if !g.verifyMerchant(w, f) {
		return p, false
	}
	p.currency = f.get("currency_code")
	if !isUpperAlpha(p.currency, 3) {
		writeStatus(w, 1, "The currency code must be 3 letters.")
		return p, false
	}
	if _, known := g.opts.Schedule.Currencies[p.currency]; !known {
		writeStatus(w, 12, fmt.Sprintf("Invalid currency: %s is not accepted", p.currency))
		return p, false
	}
	var err error
	p.installment, err = strconv.Atoi(f.get("installments_number"))
	if err != nil || p.installment < 1 || p.installment > 99 {
		writeStatus(w, 1, "The installments number must be a whole number from 1.")
		return p, false
	}
	if p.total, ok = parseAmount(w, "total", f.get("total"), p.currency); !ok {
		return p, false
	}
	if !g.verifyHash(w, f, "payment", "payment", map[string]string{"total": f.get("total"),
		"installment": f.get("installments_number"), "currency_code": p.currency,
		"merchant_key": g.opts.Credentials.MerchantKey, "invoice_id": p.invoiceID}) {
		return p, false
	}
	if items := f.get("items"); items != "" && !checkItems(w, items, p.total) {
		return p, false
	}
	opts, _, err := g.opts.Schedule.options(p.currency, p.bin, p.total, false)
	if err != nil {
		writeInternal(w, err)
		return p, false
	}
	if p.option, ok = findOption(opts, p.installment); !ok {
		writeStatus(w, 1, fmt.Sprintf("The installments number %d is not offered for this card (offered: %s).", p.installment, offeredCounts(opts)))
		return p, false
	}
	p.webHookKey = f.get("sale_web_hook_key")
	return p, true
}

// newCard is a card number, holder, expiry and cvv read from a request:
// only the first six and last four digits are kept.
type newCard struct {
	card        TestCard
	bin, last4  string
	holder      string
	month, year int
}

// readCard checks the card fields cc_holder_name, cc_no, expiry_month,
// expiry_year and cvv, returning what is wrong (the field, never its
// value) as msg.
func readCard(f fields, now time.Time) (c newCard, msg string) {
	number := strings.ReplaceAll(f.get("cc_no"), " ", "")
	if ValidateCardNumber(number) != nil {
		return c, "The cc no is not a valid card number."
	}
	c.card = testCard(number)
	c.bin, c.last4 = number[:6], number[len(number)-4:]
	c.holder = f.get("cc_holder_name")
	if utf8.RuneCountInString(c.holder) > 100 {
		return c, "The cc holder name may not be longer than 100 characters."
	}
	if c.month, c.year, msg = readExpiry(f.get("expiry_month"), f.get("expiry_year"), now); msg != "" {
		return c, msg
	}
	if cvv := f.get("cvv"); len(cvv) < 3 || len(cvv) > 4 || strings.Trim(cvv, "0123456789") != "" {
		return c, "The cvv must be 3 or 4 digits."
	}
	return c, ""
}

// readExpiry reads an expiry month and year (two or four digits), which
// must not have passed at now in the gateway's time zone; msg says what is
// wrong.
func readExpiry(monthText, yearText string, now time.Time) (month, year int, msg string) {
	month, err1 := strconv.Atoi(monthText)
	year, err2 := strconv.Atoi(yearText)
	if year < 100 {
		year += 2000
	}
	if err1 != nil || err2 != nil || month < 1 || month > 12 || year > 2100 {
		return 0, 0, "The expiry month and year must be a valid date."
	}
	if y, m, _ := now.In(money.GatewayZone()).Date(); year < y || year == y && month < int(m) {
		return 0, 0, "The card has expired."
	}
	return month, year, ""
}

// checkItems checks items (a JSON array, or a JSON string holding one, as
// the gateway's PHP SDK sends it) against the total, answering the
// refusal when ok is false: 12 when they are not a list of {price,
// quantity}, 13 when their prices times quantities add up to another
// amount (the gateway's codes, docs/protocol.md).
func checkItems(w http.ResponseWriter, items string, total decimal.Decimal) (ok bool) {
	sum, listed := itemsSum(items)
	if !listed {
		explain(w, explanation{field: "items", why: "malformed field items: not a list of {name, price, quantity} with numbers for price and quantity " +
			"(a JSON array, or a JSON string holding one)"})
		writeStatus(w, 12, "The items must be a list of {name, price, quantity}.")
		return false
	}
	if !sum.Equal(total) {
		explain(w, explanation{field: "items", got: sum.String(), want: total.String(),
			why: fmt.Sprintf("the items' prices times quantities add up to %s, not the total %s", sum, total)})
		writeStatus(w, 13, fmt.Sprintf("The items add up to %s, not the invoice total %s.", sum.StringFixed(2), total.StringFixed(2)))
		return false
	}
	return true
}

// itemsSum adds up the prices times quantities of items; listed is false
// when items is not a non-empty list of them.
func itemsSum(items string) (sum decimal.Decimal, listed bool) {
	var list []struct {
		Price    json.Number `json:"price"`
		Quantity json.Number `json:"quantity"`
	}
	if err := json.Unmarshal([]byte(items), &list); err != nil {
		var inner string
		if json.Unmarshal([]byte(items), &inner) != nil || json.Unmarshal([]byte(inner), &list) != nil {
			return decimal.Zero, false
		}
	}
	for _, it := range list {
		price, err1 := decimal.NewFromString(strings.Trim(string(it.Price), `"`))
		qty, err2 := decimal.NewFromString(strings.Trim(string(it.Quantity), `"`))
		if err1 != nil || err2 != nil {
			return decimal.Zero, false
		}
		sum = sum.Add(price.Mul(qty))
	}
	return sum, len(list) > 0
}

// newCardSale builds the sale of a checked card payment, not yet decided.
func (g *Gateway) newCardSale(p cardPayment, kind string, now time.Time) Sale {
	s := p.option.Amounts.Strings()
	pct, _ := p.option.Rates.MerchantPercentage.Decimal()
	fixed, _ := p.option.Rates.MerchantFixed.Decimal()
	userPct, _ := p.option.Rates.UserPercentage.Decimal()
	userFixed, _ := p.option.Rates.UserFixed.Decimal()
	return Sale{
		InvoiceID:                    p.invoiceID,
		OrderID:                      g.opts.NewOrderID(),
		Kind:                         kind,
		TransactionType:              p.txType,
		Amount:                       s[0],
		Currency:                     p.currency,
		Installment:                  p.installment,
		CardBIN:                      p.bin,
		CardLast4:                    p.last4,
		CardHolder:                   p.holder,
		CardProgram:                  p.option.Program,
		PosID:                        p.option.PosID,
		MerchantCommission:           s[1],
		UserCommission:               p.option.Amounts.BuyerTotal.Sub(p.option.Amounts.Amount).StringFixed(p.option.Amounts.MinorUnit),
		MerchantCommissionPercentage: pct.String(),
		MerchantCommissionFixed:      fixed.String(),
		UserCommissionPercentage:     userPct.String(),
		UserCommissionFixed:          userFixed.String(),
		SaleWebHookKey:               p.webHookKey,
		BillEmail:                    p.billEmail,
		BillPhone:                    p.billPhone,
		CreatedAt:                    now,
		UpdatedAt:                    now,
	}
}

// decide runs the simulated provider on a card sale: the card's published
// outcome first, then the magic amounts. A pre-authorization that is
// approved holds its amount.
func decide(sale *Sale, card TestCard) (code int, desc, why string) {
	if card.Outcome == "decline" {
		sale.State = StateFailed
		sale.PaymentReasonCode, sale.PaymentReasonCodeDetail = card.ReasonCode, card.Reason
		return 41, "Payment failed: " + card.Reason, declineWhy(card)
	}
	amount, _ := decimal.NewFromString(sale.Amount)
	code, desc, why = provide(sale, amount)
	if sale.TransactionType == TypePreAuth && sale.State != StateFailed {
		sale.PreAuth = &PreAuth{State: PreAuthOpen, Held: sale.Amount}
		if code == 100 {
			desc = "Pre-authorization successfully completed"
		}
	}
	return code, desc, why
}

// reserveFresh checks that an invoice is new and not in flight (3
// otherwise), before anything resembling a provider call. release must be
// called once the sale is committed.
func (g *Gateway) reserveFresh(w http.ResponseWriter, invoiceID string) (release func(), ok bool) {
	if prior, dup, err := g.opts.Store.Get(invoiceID); err != nil {
		writeInternal(w, err)
		return nil, false
	} else if dup {
		explain(w, duplicateExplanation(prior))
		writeDuplicate(w)
		return nil, false
	}
	if _, busy := g.inFlight.LoadOrStore(invoiceID, struct{}{}); busy {
		explain(w, inFlightExplanation)
		writeDuplicate(w)
		return nil, false
	}
	return func() { g.inFlight.Delete(invoiceID) }, true
}

// commitSale stores a new sale (committed before returning), answering a lost
// race (3) or a store failure itself when ok is false.
func (g *Gateway) commitSale(w http.ResponseWriter, sale Sale) bool {
	if err := g.opts.Store.Reserve(sale); err != nil {
		refuseReservation(w, err)
		return false
	}
	return true
}

// cardResult is the data object of a card payment answer, with the field
// names the gateway's PHP SDK reads.
type cardResult struct {
	SipayStatus int    `json:"sipay_status"`
	OrderNo     string `json:"order_no"`
	OrderID     string `json:"order_id"`
	InvoiceID   string `json:"invoice_id"`
	// StatusCode and StatusDescription are payment/complete's own (its
	// documented data has them); a payment's data has none.
	StatusCode         *int   `json:"status_code,omitempty"`
	StatusDescription  string `json:"status_description,omitempty"`
	SipayPaymentMethod int    `json:"sipay_payment_method"`
	CreditCardNo       string `json:"credit_card_no"`
	TransactionType    string `json:"transaction_type"`
	PaymentStatus      int    `json:"payment_status"`
	PaymentMethod      int    `json:"payment_method"`
	ErrorCode          int    `json:"error_code"`
	Error              string `json:"error"`
	AuthCode           string `json:"auth_code"`
	saleCommissions
	Installment                  int         `json:"installment"`
	Amount                       json.Number `json:"amount"`
	Status                       string      `json:"status,omitempty"`
	PaymentReasonCode            string      `json:"payment_reason_code"`
	PaymentReasonCodeDetail      string      `json:"payment_reason_code_detail"`
	HashKey                      string      `json:"hash_key"`
	OriginalBankErrorCode        string      `json:"original_bank_error_code"`
	OriginalBankErrorDescription string      `json:"original_bank_error_description"`
}

// saleCommissions are a sale's commission figures as a payment's answer
// gives them, in the gateway's order; a card payment's and a walletPay's
// answers both embed them.
type saleCommissions struct {
	MerchantCommission           json.Number `json:"merchant_commission"`
	UserCommission               json.Number `json:"user_commission"`
	MerchantCommissionPercentage json.Number `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      json.Number `json:"merchant_commission_fixed"`
}

// commissionsOf is the commission figures of sale's answer.
func commissionsOf(sale Sale) saleCommissions {
	return saleCommissions{MerchantCommission: json.Number(sale.MerchantCommission), UserCommission: json.Number(sale.UserCommission),
		MerchantCommissionPercentage: json.Number(sale.MerchantCommissionPercentage), MerchantCommissionFixed: json.Number(sale.MerchantCommissionFixed)}
}

// cardPaymentMethod is the documented answer's sipay_payment_method and
// payment_method of a card payment: the number 1.
const cardPaymentMethod = 1

// cardResultOf builds the answer's data for a sale answered with code.
func (g *Gateway) cardResultOf(sale Sale, code int, desc string) (cardResult, error) {
	res := cardResult{
		OrderNo: sale.OrderID, OrderID: sale.OrderID, InvoiceID: sale.InvoiceID,
		SipayPaymentMethod: cardPaymentMethod, CreditCardNo: maskCard(sale.CardBIN, sale.CardLast4),
		TransactionType: sale.TransactionType, PaymentMethod: cardPaymentMethod, ErrorCode: code, Error: desc,
		AuthCode: sale.AuthCode, saleCommissions: commissionsOf(sale), Installment: sale.Installment,
		Amount: json.Number(sale.Amount), PaymentReasonCode: sale.PaymentReasonCode, PaymentReasonCodeDetail: sale.PaymentReasonCodeDetail,
	}
	if code == 100 {
		res.SipayStatus, res.PaymentStatus, res.Error = 1, 1, "Success"
	}
	if sale.State == StateFailed {
		res.OriginalBankErrorCode, res.OriginalBankErrorDescription = sale.PaymentReasonCode, sale.PaymentReasonCodeDetail
	}
	hk, err := g.saleHash(sale)
	res.HashKey = hk
	return res, err
}

// saleHash is a sale's hash_key in the sale-webhook layout
// status|total|invoice_id|order_id|currency_code, status being the
// payment status (1 charged or held, 0 not).
func (g *Gateway) saleHash(sale Sale) (string, error) {
	layout, _ := hashkey.LookupLayout("sale-webhook")
	status := "0"
	if sale.State == StateCompleted {
		status = "1"
	}
	plain, err := layout.Plaintext(map[string]string{"status": status, "total": sale.Amount,
		"invoice_id": sale.InvoiceID, "order_id": sale.OrderID, "currency_code": sale.Currency})
	if err != nil {
		return "", err
	}
	return hashkey.Generate(g.opts.Credentials.AppSecret, plain)
}

// paySmart2D serves POST /api/paySmart2D: a card payment without 3D
// Secure, Auth or PreAuth, in installments priced from the commission
// schedule. A card that requires 3D is refused with 60 and nothing is
// stored (the invoice may then be paid with paySmart3D); otherwise the
// sale is stored in its final state by one commit before the answer, as
// walletPay's is.
func (g *Gateway) paySmart2D(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFieldsNested(w, r, "items")
	if !ok {
		return
	}
	now := g.opts.Now()
	p, ok := g.readCardPayment(w, f, now, nil)
	if !ok {
		return
	}
	release, ok := g.reserveFresh(w, p.invoiceID)
	if !ok {
		return
	}
	defer release()
	if p.card.Outcome == "3d" {
		explain(w, explanation{field: "cc_no", why: threeDWhy})
		writeStatus(w, 60, "This card requires 3D Secure: pay with paySmart3D; nothing was charged")
		return
	}
	sale := g.newCardSale(p, KindCard2D, now)
	code, desc, why := decide(&sale, p.card)
	if !g.commitSale(w, sale) {
		return
	}
	explain(w, explanation{why: why})
	res, err := g.cardResultOf(sale, code, desc)
	if err != nil {
		writeInternal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: code, StatusDescription: desc, Data: res})
}
