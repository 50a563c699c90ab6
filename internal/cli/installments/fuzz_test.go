package installments

import (
	"encoding/json"
	"testing"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/shopspring/decimal"
)

// FuzzPrice prices whatever getpos options the gateway may answer (as the
// client decodes them) against a fixed commission table: it never panics,
// keeps one row per option, and the installments it shows add up to the
// buyer's total.
func FuzzPrice(f *testing.F) {
	f.Add(`[{"installments_number":3,"card_program":"AXESS","payable_amount":"1000.00"}]`, "1000")
	f.Add(`[{"installments_number":99,"card_program":"","payable_amount":-5},{"installments_number":1,"payable_amount":"1e30"}]`, "0.01")
	f.Add(`[{"installments_number":2,"card_program":"FOREIGN","amount_to_be_paid":"x"}]`, "12.34")
	f.Add(`[{"installments_number":3,"card_program":"AXESS","payable_amount":"100.005"}]`, "100")
	var schedule commission.Schedule
	if err := json.Unmarshal([]byte(`{"1":[{"title":"Regular","card_program":"Axess","getpos_card_program":"AXESS","pos_id":1,"merchant_commission_percentage":"1.75","merchant_commission_fixed":"0","user_commission_percentage":"0","user_commission_fixed":"0"}],
	  "3":[{"title":"Regular","card_program":"Axess","getpos_card_program":"AXESS","pos_id":1,"merchant_commission_percentage":"4.65","merchant_commission_fixed":"0","user_commission_percentage":"1","user_commission_fixed":"0.10"}]}`), &schedule); err != nil {
		f.Fatal(err)
	}
	try, _ := money.LookupCurrency("TRY")
	f.Fuzz(func(t *testing.T, answer, amount string) {
		var options []gateway.InstallmentOption
		if json.Unmarshal([]byte(answer), &options) != nil {
			return
		}
		a, err := decimal.NewFromString(amount)
		if err != nil || !a.IsPositive() || !a.Equal(a.Round(2)) || a.GreaterThan(decimal.New(1, 12)) {
			return
		}
		res, _, err := Price(options, schedule, "435508", a, try, "merchant")
		if err != nil {
			return
		}
		if len(res.Options) != len(options) {
			t.Fatalf("%d options priced, %d given", len(res.Options), len(options))
		}
		for _, o := range res.Options {
			if o.BuyerTotal == "" {
				continue
			}
			total, _ := decimal.NewFromString(o.BuyerTotal)
			each, _ := decimal.NewFromString(o.InstallmentAmount)
			first, _ := decimal.NewFromString(o.FirstInstallmentAmount)
			if !first.Add(each.Mul(decimal.NewFromInt(int64(o.Installments - 1)))).Equal(total) {
				t.Fatalf("%+v: the installments do not add up", o)
			}
		}
	})
}
