package sandbox

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/shopspring/decimal"
)

// transactionRow is one row of getTransactions' data, its members in the
// order of §11.12's example. What the sandbox does not model (users,
// operators, integrators, recurring plans) is written as the example's
// empty values.
type transactionRow struct {
	ID                     uint64               `json:"id"`
	UserID                 int                  `json:"user_id"`
	MerchantID             int                  `json:"merchant_id"`
	PaymentID              wireText             `json:"payment_id"`
	TransactionStateID     int                  `json:"transaction_state_id"`
	MerchantCommission     json.Number          `json:"merchant_commission"`
	Gross                  json.Number          `json:"gross"`
	Net                    json.Number          `json:"net"`
	PaymentTypeID          int                  `json:"payment_type_id"`
	ProductPrice           json.Number          `json:"product_price"`
	TotalRefundedAmount    json.Number          `json:"total_refunded_amount"`
	CardHolderBank         string               `json:"card_holder_bank"`
	Operator               string               `json:"operator"`
	UserName               string               `json:"user_name"`
	DplID                  int                  `json:"dpl_id"`
	CurrencyID             int                  `json:"currency_id"`
	InvoiceID              wireText             `json:"invoice_id"`
	CreditCardNo           string               `json:"credit_card_no"`
	Installment            int                  `json:"installment"`
	RollingAmount          json.Number          `json:"rolling_amount"`
	GSMNumber              string               `json:"gsm_number"`
	PaymentSource          int                  `json:"payment_source"`
	CardProgram            *string              `json:"card_program"`
	Result                 string               `json:"result"`
	SettlementDateMerchant string               `json:"settlement_date_merchant"`
	CreatedAt              string               `json:"created_at"`
	UpdatedAt              string               `json:"updated_at"`
	RecurringID            int                  `json:"recurring_id"`
	OrderID                wireText             `json:"order_id"`
	IP                     string               `json:"ip"`
	AuthCode               string               `json:"auth_code"`
	CardIssuerName         *string              `json:"card_issuer_name"`
	RefundedChargebackFee  json.Number          `json:"refunded_chargeback_fee"`
	PosName                string               `json:"pos_name"`
	SettlementDateBank     string               `json:"settlement_date_bank"`
	TransactionStateLabel  string               `json:"transaction_state_label"`
	PaymentTypeLabel       string               `json:"payment_type_label"`
	CurrencyCode           string               `json:"currency_code"`
	RollingBalance         *rollingBalance      `json:"rolling_balance"`
	SaleBilling            saleBilling          `json:"sale_billing"`
	MerchantSale           merchantSale         `json:"merchant_sale"`
	RefundHistory          []refundHistoryEntry `json:"refund_history"`
	SaleRecurring          *struct{}            `json:"sale_recurring"`
	SaleRecurringHistory   []struct{}           `json:"sale_recurring_history"`
	SaleIntegrator         *struct{}            `json:"sale_integrator"`
	UserData               namedRecord          `json:"userdata"`
	Merchant               merchantRecord       `json:"merchant"`
}

type rollingBalance struct {
	ID            uint64 `json:"id"`
	SaleID        uint64 `json:"sale_id"`
	EffectiveDate string `json:"effective_date"`
}

type saleBilling struct {
	ID             uint64 `json:"id"`
	SaleID         uint64 `json:"sale_id"`
	CardHolderName string `json:"card_holder_name"`
}

// merchantSale is the rates a sale was charged at (§11.12 merchant_sale).
type merchantSale struct {
	ID                           uint64      `json:"id"`
	SaleID                       uint64      `json:"sale_id"`
	MerchantCommissionPercentage json.Number `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      json.Number `json:"merchant_commission_fixed"`
	EndUserCommissionPercentage  json.Number `json:"end_user_commission_percentage"`
	EndUserCommissionFixed       json.Number `json:"end_user_commission_fixed"`
	MerchantRollingPercentage    json.Number `json:"merchant_rolling_percentage"`
	CotPercentage                json.Number `json:"cot_percentage"`
	CotFixed                     json.Number `json:"cot_fixed"`
}

// refundHistoryEntry is one refund of a row's sale.
type refundHistoryEntry struct {
	SaleID              uint64      `json:"sale_id"`
	Amount              json.Number `json:"amount"`
	Status              string      `json:"status"`
	RefundTransactionID string      `json:"refund_transaction_id"`
	CreatedAt           string      `json:"created_at"`
}

type namedRecord struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type merchantRecord struct {
	UserID int    `json:"user_id"`
	Name   string `json:"name"`
	MCC    string `json:"mcc"`
}

// sandboxMerchantName names the merchant in rows.
const sandboxMerchantName = "paycli sandbox"

// paymentTypeLabels are payment_type_label and paymenttype.name by id.
var paymentTypeLabels = sync.OnceValue(func() map[int]string {
	return map[int]string{methodCard: "Credit Card", methodMobile: "Mobile", methodWallet: "Wallet"}
})

// ledgerFacts are what both rows say of a sale beyond its money.
type ledgerFacts struct {
	money                    ledgerMoney
	stateLabel               string
	settlement, rollingUntil string
	card, result, pos        string
	cardProgram              *string
	refunds                  []refundHistoryEntry
}

// factsOf gathers a row's facts.
func factsOf(e *ledgerEntry, sale *Sale, planted map[string]plantedRate) ledgerFacts {
	x := ledgerFacts{money: moneyOf(sale, planted), card: maskCard(sale.CardBIN, sale.CardLast4), pos: "Sandbox Wallet POS"}
	_, x.stateLabel = ledgerStateOf(sale)
	if x.money.charged {
		x.settlement = ledgerLocal(settlementDate(sale.CreatedAt))
		x.rollingUntil = ledgerLocal(rollingRelease(sale.CreatedAt))
	}
	if sale.PosID > 0 {
		x.pos = fmt.Sprintf("Sandbox POS %d", sale.PosID)
	}
	if sale.CardProgram != "" {
		x.cardProgram = &sale.CardProgram
	}
	switch {
	case sale.HostReferenceID != "":
		x.result = "Approved(" + sale.HostReferenceID + ")"
	case sale.State == StateFailed:
		x.result = "Declined(" + sale.PaymentReasonCodeDetail + ")"
	}
	x.refunds = []refundHistoryEntry{}
	for _, r := range sale.Refunds {
		x.refunds = append(x.refunds, refundHistoryEntry{SaleID: e.id, Amount: json.Number(r.Amount), Status: r.Status,
			RefundTransactionID: r.TransactionID, CreatedAt: ledgerTimeUTC(r.CreatedAt)})
	}
	return x
}

// transactionRow builds a sale's getTransactions row.
func (g *Gateway) transactionRow(e *ledgerEntry, sale *Sale, planted map[string]plantedRate) transactionRow {
	x := factsOf(e, sale, planted)
	m := x.money
	row := transactionRow{ID: e.id, MerchantID: MerchantID, PaymentID: textOf(sale.OrderID), TransactionStateID: e.state,
		MerchantCommission: jsonNum(m.commission), Gross: jsonNum(m.gross), Net: jsonNum(m.net), PaymentTypeID: e.method,
		ProductPrice: jsonNum(m.price), TotalRefundedAmount: jsonNum(m.refunded), CurrencyID: currencyIDs()[sale.Currency],
		InvoiceID: textOf(sale.InvoiceID), CreditCardNo: x.card, Installment: max(sale.Installment, 1), RollingAmount: jsonNum(m.rolling),
		GSMNumber: sale.BillPhone, CardProgram: x.cardProgram, Result: x.result, SettlementDateMerchant: x.settlement,
		CreatedAt: ledgerTimeUTC(sale.CreatedAt), UpdatedAt: ledgerTimeUTC(sale.UpdatedAt), OrderID: textOf(sale.OrderID),
		AuthCode: sale.AuthCode, RefundedChargebackFee: jsonNum(m.chargebackFee), PosName: x.pos, SettlementDateBank: x.settlement,
		TransactionStateLabel: x.stateLabel, PaymentTypeLabel: paymentTypeLabels()[e.method], CurrencyCode: sale.Currency,
		SaleBilling:   saleBilling{ID: e.id, SaleID: e.id, CardHolderName: maskHolder(sale.CardHolder)},
		MerchantSale:  merchantSaleOf(e.id, m),
		RefundHistory: x.refunds, SaleRecurringHistory: []struct{}{},
		UserData: namedRecord{Name: sandboxMerchantName}, Merchant: merchantRecord{Name: sandboxMerchantName}}
	if m.rolling.IsPositive() {
		row.RollingBalance = &rollingBalance{ID: e.id, SaleID: e.id, EffectiveDate: x.rollingUntil}
	}
	g.dialect.shapeLedgerIDs(&row.PaymentID, &row.InvoiceID, &row.OrderID)
	return row
}

// merchantSaleOf is a row's merchant_sale: the rates charged.
func merchantSaleOf(id uint64, m ledgerMoney) merchantSale {
	zero := jsonNum(decimal.Zero)
	return merchantSale{ID: id, SaleID: id, MerchantCommissionPercentage: jsonNum(m.percentage), MerchantCommissionFixed: jsonNum(m.fixed),
		EndUserCommissionPercentage: jsonNum(m.userPercentage), EndUserCommissionFixed: jsonNum(m.userFixed),
		MerchantRollingPercentage: jsonNum(m.rollingPercentage), CotPercentage: zero, CotFixed: zero}
}

// maskHolder shows a card holder's name as §11.12 does: its first letter.
func maskHolder(name string) string {
	for _, r := range name {
		return string(r) + "******"
	}
	return ""
}

// allTransactionRow is one row of alltransaction's page, its members in
// the order of §11.15's example. json_data (the request as the gateway
// kept it, merchant key included) is never echoed: it is "".
type allTransactionRow struct {
	ID                          uint64      `json:"id"`
	PaymentID                   wireText    `json:"payment_id"`
	InvoiceID                   wireText    `json:"invoice_id"`
	OrderID                     wireText    `json:"order_id"`
	RemoteOrderID               string      `json:"remote_order_id"`
	UserID                      int         `json:"user_id"`
	EndUserID                   int         `json:"end_user_id"`
	UserName                    string      `json:"user_name"`
	MerchantID                  int         `json:"merchant_id"`
	MerchantName                string      `json:"merchant_name"`
	TransactionStateID          int         `json:"transaction_state_id"`
	PurchaseID                  int         `json:"purchase_id"`
	Gross                       json.Number `json:"gross"`
	RefundRequestAmount         json.Number `json:"refund_request_amount"`
	Fee                         json.Number `json:"fee"`
	Net                         json.Number `json:"net"`
	PayByTokenFee               json.Number `json:"pay_by_token_fee"`
	Cost                        json.Number `json:"cost"`
	RollingAmount               json.Number `json:"rolling_amount"`
	ProductPrice                json.Number `json:"product_price"`
	UserCommission              json.Number `json:"user_commission"`
	MerchantCommission          json.Number `json:"merchant_commission"`
	GSMNumber                   string      `json:"gsm_number"`
	SettlementDateBank          string      `json:"settlement_date_bank"`
	SettlementDateMerchant      string      `json:"settlement_date_merchant"`
	PaymentTypeID               int         `json:"payment_type_id"`
	Operator                    string      `json:"operator"`
	IssuerName                  string      `json:"issuer_name"`
	CardProgram                 string      `json:"card_program"`
	CardIssuerName              string      `json:"card_issuer_name"`
	PosName                     string      `json:"pos_name"`
	PosID                       int         `json:"pos_id"`
	AllocationID                int         `json:"allocation_id"`
	CampaignID                  int         `json:"campaign_id"`
	DplID                       int         `json:"dpl_id"`
	JSONData                    string      `json:"json_data"`
	Document                    string      `json:"document"`
	TotalRefundedAmount         json.Number `json:"total_refunded_amount"`
	RefundReason                string      `json:"refund_reason"`
	RefundRequestDate           string      `json:"refund_request_date"`
	AdminProcessDate            string      `json:"admin_process_date"`
	ChargebackRejectExplanation string      `json:"chargeback_reject_explanation"`
	CreatedAt                   string      `json:"created_at"`
	UpdatedAt                   string      `json:"updated_at"`
	CurrencyID                  int         `json:"currency_id"`
	CurrencySymbol              string      `json:"currency_symbol"`
	Installment                 int         `json:"installment"`
	MaturityPeriod              int         `json:"maturity_period"`
	PaymentFrequency            int         `json:"payment_frequency"`
	IP                          string      `json:"ip"`
	Result                      string      `json:"result"`
	CreditCardNo                string      `json:"credit_card_no"`
	CardHolderBank              string      `json:"card_holder_bank"`
	SaleVersion                 int         `json:"sale_version"`
	SaleType                    int         `json:"sale_type"`
	PaymentSource               int         `json:"payment_source"`
	RefundedChargebackFee       json.Number `json:"refunded_chargeback_fee"`
	IsBankRefundFailed          int         `json:"is_bank_refund_failed"`
	RecurringID                 int         `json:"recurring_id"`
	SaleWebHookKey              string      `json:"sale_web_hook_key"`
	AuthCode                    string      `json:"auth_code"`
	MigrationStatus             int         `json:"migration_status"`
	IsCommissionFromUser        int         `json:"is_comission_from_user"`
	SaleRecurring               string      `json:"sale_recurring"`
	PaymentType                 paymentType `json:"paymenttype"`
	RollingBalance              any         `json:"rolling_balance"`
	SaleIntegrator              string      `json:"sale_integrator"`
	SaleBilling                 string      `json:"sale_billing"`
	SaleProperty                string      `json:"sale_property"`
}

type paymentType struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// currencySymbols are currency_symbol by code.
var currencySymbols = sync.OnceValue(func() map[string]string {
	return map[string]string{"TRY": "₺", "USD": "$", "EUR": "€"}
})

// allTransactionRowOf builds a sale's alltransaction row.
func (g *Gateway) allTransactionRowOf(e *ledgerEntry, sale *Sale, planted map[string]plantedRate) allTransactionRow {
	x := factsOf(e, sale, planted)
	m := x.money
	program := ""
	if x.cardProgram != nil {
		program = *x.cardProgram
	}
	userCommission := m.gross.Sub(m.price)
	row := allTransactionRow{ID: e.id, MerchantID: MerchantID, PaymentID: textOf(sale.OrderID), InvoiceID: textOf(sale.InvoiceID), OrderID: textOf(sale.OrderID),
		MerchantName: sandboxMerchantName, TransactionStateID: e.state, Gross: jsonNum(m.gross), RefundRequestAmount: jsonNum(decimal.Zero),
		Fee: jsonNum(m.commission), Net: jsonNum(m.net), PayByTokenFee: jsonNum(decimal.Zero), Cost: jsonNum(decimal.Zero), RollingAmount: jsonNum(m.rolling),
		ProductPrice: jsonNum(m.price), UserCommission: jsonNum(userCommission), MerchantCommission: jsonNum(m.commission), GSMNumber: sale.BillPhone,
		SettlementDateBank: x.settlement, SettlementDateMerchant: x.settlement, PaymentTypeID: e.method, CardProgram: program,
		PosName: x.pos, PosID: sale.PosID, TotalRefundedAmount: jsonNum(m.refunded), CreatedAt: ledgerTimeUTC(sale.CreatedAt),
		UpdatedAt: ledgerTimeUTC(sale.UpdatedAt), CurrencyID: currencyIDs()[sale.Currency], CurrencySymbol: currencySymbols()[sale.Currency],
		Installment: max(sale.Installment, 1), Result: x.result, CreditCardNo: x.card, SaleType: 1,
		RefundedChargebackFee: jsonNum(m.chargebackFee), SaleWebHookKey: sale.SaleWebHookKey, AuthCode: sale.AuthCode,
		PaymentType: paymentType{ID: e.method, Name: paymentTypeLabels()[e.method]}, RollingBalance: ""}
	if userCommission.IsPositive() {
		row.IsCommissionFromUser = 1
	}
	if m.rolling.IsPositive() {
		row.RollingBalance = rollingBalance{ID: e.id, SaleID: e.id, EffectiveDate: x.rollingUntil}
	}
	g.dialect.shapeLedgerIDs(&row.PaymentID, &row.InvoiceID, &row.OrderID)
	return row
}
