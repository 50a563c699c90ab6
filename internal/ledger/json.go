package ledger

import (
	"encoding/json"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
)

// In -o json an amount is a JSON number with its currency's decimals
// (11.30, never 11.3), as paycli writes the gateway's money elsewhere
// (docs/json-output.md); each type below writes its own.

func number(d decimal.Decimal, currency string) json.Number {
	return json.Number(money.ExactIn(d, currency))
}

// MarshalJSON writes f's amounts in f's currency.
func (f Fee) MarshalJSON() ([]byte, error) {
	type plain Fee
	return json.Marshal(struct {
		plain
		Gross      json.Number `json:"gross"`
		Charged    json.Number `json:"charged"`
		Expected   json.Number `json:"expected"`
		Difference json.Number `json:"difference"`
	}{plain(f), number(f.Gross, f.Currency), number(f.Charged, f.Currency), number(f.Expected, f.Currency), number(f.Difference, f.Currency)})
}

// MarshalJSON writes t's amounts in t's currency.
func (t FeeTotal) MarshalJSON() ([]byte, error) {
	type plain FeeTotal
	return json.Marshal(struct {
		plain
		Charged    json.Number `json:"charged"`
		Expected   json.Number `json:"expected"`
		Difference json.Number `json:"difference"`
	}{plain(t), number(t.Charged, t.Currency), number(t.Expected, t.Currency), number(t.Difference, t.Currency)})
}

// MarshalJSON writes d's amount in d's currency.
func (d Dated) MarshalJSON() ([]byte, error) {
	type plain Dated
	return json.Marshal(struct {
		plain
		Amount json.Number `json:"amount"`
	}{plain(d), number(d.Amount, d.Currency)})
}

// MarshalJSON writes t's amounts in t's currency.
func (t Totals) MarshalJSON() ([]byte, error) {
	type plain Totals
	c := t.Currency
	return json.Marshal(struct {
		plain
		Gross          json.Number `json:"gross"`
		Refunded       json.Number `json:"refunded"`
		ChargebackFees json.Number `json:"chargeback_fees"`
		Commission     json.Number `json:"commission"`
		Net            json.Number `json:"net"`
		RollingHeld    json.Number `json:"rolling_held"`
	}{plain(t), number(t.Gross, c), number(t.Refunded, c), number(t.ChargebackFees, c), number(t.Commission, c), number(t.Net, c), number(t.RollingHeld, c)})
}
