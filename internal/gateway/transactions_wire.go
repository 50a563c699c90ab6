package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
)

// State is where the ledger says the transaction stands: its
// transaction_state_label read by SaleStateOf, or, for a row that gives
// only transaction_state_id (alltransaction's), the state the document
// names for that id.
func (t Transaction) State() SaleState {
	if s := SaleStateOf(t.StateLabel); s != SaleNoState {
		return s
	}
	for state, id := range transactionStateIDs() {
		if id == t.StateID {
			return state
		}
	}
	if t.StateID == 0 {
		return SaleNoState
	}
	return SaleOther
}

// The questions an audit asks of a row, so that nothing outside the
// client reads the gateway's words (as Sale's).

// Taken reports whether the sale was taken (refunds after it included).
func (t Transaction) Taken() bool { return t.State().Taken() }

// ChargedBack reports whether the card's bank reversed the sale.
func (t Transaction) ChargedBack() bool { return t.State() == SaleChargedBack }

// Pending reports whether the sale is not finished yet.
func (t Transaction) Pending() bool { return t.State() == SalePending }

// Failed reports whether nothing was taken: failed or cancelled.
func (t Transaction) Failed() bool { s := t.State(); return s == SaleFailed || s == SaleCancelled }

// StateText is the state for a person: the label, else the id's state,
// else the id.
func (t Transaction) StateText() string {
	switch {
	case t.StateLabel != "":
		return t.StateLabel
	case t.State() != SaleOther && t.State() != SaleNoState:
		return string(t.State())
	case t.StateID != 0:
		return fmt.Sprintf("state %d", t.StateID)
	}
	return ""
}

// transactionWire is a ledger row as either listing writes it; what the
// two call by other names is read from both (payment_type_label or
// paymenttype.name).
type transactionWire struct {
	ID                    flexInt     `json:"id"`
	PaymentID             flexString  `json:"payment_id"`
	InvoiceID             flexString  `json:"invoice_id"`
	OrderID               flexString  `json:"order_id"`
	MerchantID            flexInt     `json:"merchant_id"`
	RecurringID           flexInt     `json:"recurring_id"`
	CreatedAt             flexString  `json:"created_at"`
	UpdatedAt             flexString  `json:"updated_at"`
	PaymentTypeID         flexInt     `json:"payment_type_id"`
	PaymentTypeLabel      flexString  `json:"payment_type_label"`
	PaymentType           optional    `json:"paymenttype"`
	CurrencyCode          flexString  `json:"currency_code"`
	CurrencyID            flexInt     `json:"currency_id"`
	Installment           flexInt     `json:"installment"`
	PosName               flexString  `json:"pos_name"`
	CardProgram           flexString  `json:"card_program"`
	CreditCardNo          flexString  `json:"credit_card_no"`
	StateID               flexInt     `json:"transaction_state_id"`
	StateLabel            flexString  `json:"transaction_state_label"`
	Gross                 flexDecimal `json:"gross"`
	Net                   flexDecimal `json:"net"`
	ProductPrice          flexDecimal `json:"product_price"`
	MerchantCommission    flexDecimal `json:"merchant_commission"`
	UserCommission        flexDecimal `json:"user_commission"`
	TotalRefunded         flexDecimal `json:"total_refunded_amount"`
	RefundedChargebackFee flexDecimal `json:"refunded_chargeback_fee"`
	RollingAmount         flexDecimal `json:"rolling_amount"`
	SettlesMerchant       flexString  `json:"settlement_date_merchant"`
	SettlesBank           flexString  `json:"settlement_date_bank"`
	RollingBalance        optional    `json:"rolling_balance"`
	MerchantSale          optional    `json:"merchant_sale"`
	RefundHistory         rawJSON     `json:"refund_history"`
}

// rawJSON is a member read later, as it was written.
type rawJSON = json.RawMessage

type merchantSaleWire struct {
	Percentage flexDecimal `json:"merchant_commission_percentage"`
	Fixed      flexDecimal `json:"merchant_commission_fixed"`
}

// UnmarshalJSON reads a ledger row leniently (numbers or strings), its
// card number masked again and its times in the gateway's zone; a time
// that is no time is refused, never read as none.
func (t *Transaction) UnmarshalJSON(data []byte) error {
	var w transactionWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	clean := func(v flexString) string { return cleanDescription(string(v)) }
	*t = Transaction{
		ID: int64(w.ID), PaymentID: cleanIdentifier(string(w.PaymentID)), InvoiceID: cleanIdentifier(string(w.InvoiceID)),
		OrderID: cleanIdentifier(string(w.OrderID)), MerchantID: int64(w.MerchantID), RecurringID: int64(w.RecurringID),
		Method: PaymentMethod(w.PaymentTypeID), PaymentType: clean(w.PaymentTypeLabel), Currency: strings.ToUpper(clean(w.CurrencyCode)),
		Installment: int(w.Installment), PosName: clean(w.PosName), CardProgram: clean(w.CardProgram),
		CardNumber: redact.CardField(clean(w.CreditCardNo)), StateID: int(w.StateID), StateLabel: clean(w.StateLabel),
		Gross: w.Gross.d, Net: w.Net.d, ProductPrice: w.ProductPrice.d, MerchantCommission: w.MerchantCommission.d,
		UserCommission: w.UserCommission.d, TotalRefunded: w.TotalRefunded.d, RefundedChargebackFee: w.RefundedChargebackFee.d,
		RollingAmount: w.RollingAmount.d,
	}
	if t.Currency == "" {
		t.Currency = currencyOfID(int(w.CurrencyID))
	}
	if t.PaymentType == "" {
		var pt struct {
			Name flexString `json:"name"`
		}
		if err := w.PaymentType.decode(&pt); err != nil {
			return fmt.Errorf("paymenttype: %w", err)
		}
		t.PaymentType = clean(pt.Name)
	}
	var sale merchantSaleWire
	if err := w.MerchantSale.decode(&sale); err != nil {
		return fmt.Errorf("merchant_sale: %w", err)
	}
	t.CommissionPercentage, t.CommissionFixed, t.HasCommissionRate = sale.Percentage.d, sale.Fixed.d, w.MerchantSale.present()
	// refund_history is a list; "" or null when there is none.
	if firstNonBlank(w.RefundHistory) == '[' {
		if err := json.Unmarshal(w.RefundHistory, &t.Refunds); err != nil {
			return fmt.Errorf("refund_history: %w", err)
		}
	}
	var rolling struct {
		EffectiveDate flexString `json:"effective_date"`
	}
	if err := w.RollingBalance.decode(&rolling); err != nil {
		return fmt.Errorf("rolling_balance: %w", err)
	}
	return t.readTimes(map[string]timeField{
		"created_at": {string(w.CreatedAt), &t.CreatedAt}, "updated_at": {string(w.UpdatedAt), &t.UpdatedAt},
		"settlement_date_merchant":       {string(w.SettlesMerchant), &t.SettlesMerchant},
		"settlement_date_bank":           {string(w.SettlesBank), &t.SettlesBank},
		"rolling_balance.effective_date": {string(rolling.EffectiveDate), &t.RollingReleasedAt},
	})
}

// currencyOfID is the code of a currency_id (§11.15's rows name only
// the id); "" for an id paycli does not know.
func currencyOfID(id int) string {
	for code, n := range currencyIDs() {
		if n == id {
			return code
		}
	}
	return ""
}

type timeField struct {
	text string
	into *time.Time
}

// readTimes reads each field's time in the gateway's zone; "" is none.
func (t *Transaction) readTimes(fields map[string]timeField) error {
	for name, f := range fields {
		if strings.TrimSpace(f.text) == "" {
			continue
		}
		at, ok := ParseTime(f.text)
		if !ok {
			return fmt.Errorf("%s is not a time", name)
		}
		*f.into = at.In(money.GatewayZone())
	}
	return nil
}

// flexDecimal reads an amount exactly: a JSON number or a numeric string;
// null and "" are 0.
type flexDecimal struct{ d decimal.Decimal }

func (f *flexDecimal) UnmarshalJSON(data []byte) error {
	var s flexString
	if err := s.UnmarshalJSON(data); err != nil {
		return err
	}
	text := strings.TrimSpace(string(s))
	if text == "" {
		f.d = decimal.Zero
		return nil
	}
	d, ok := money.ParsePlain(text)
	if !ok {
		return fmt.Errorf("%.20q is not an amount", text)
	}
	f.d = d
	return nil
}

// optional is a nested object the family writes as an object, or as ""
// or null when there is none (§11.15's rolling_balance: "").
type optional struct{ raw json.RawMessage }

func (o *optional) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")), bytes.Equal(data, []byte(`""`)):
		o.raw = nil
	case firstNonBlank(data) == '{':
		o.raw = data // decoded before the row's UnmarshalJSON returns
	default:
		return fmt.Errorf("expected an object or \"\"")
	}
	return nil
}

func (o optional) present() bool { return o.raw != nil }

// decode reads the object into v; none leaves v as it is.
func (o optional) decode(v any) error {
	if o.raw == nil {
		return nil
	}
	return json.Unmarshal(o.raw, v)
}
