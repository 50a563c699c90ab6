package ledger_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestJSONAmountsKeepTheCurrencysDecimals: in -o json every amount of the
// result (totals, their dated sums, the fee audit and its sums) is a JSON
// number with the currency's two decimals, as paycli writes money
// elsewhere: 97.50, not 97.5 nor "97.5"; a figure with more decimals
// keeps them.
func TestJSONAmountsKeepTheCurrencysDecimals(t *testing.T) {
	over := row("FEE", "Completed")
	over.MerchantCommission, over.Net = dec("3.125"), dec("96.875")
	res := run(t, []gateway.Transaction{row("OK", "Completed"), over},
		attempt("sale", "OK", "a1", "", "100", journal.Succeeded), attempt("sale", "FEE", "a2", "", "100", journal.Succeeded))
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"gross":200.00`, `"refunded":0.00`, `"commission":5.625`, `"net":194.375`, `"rolling_held":20.00`,
		`{"date":"2025-03-06","amount":194.375}`, `{"date":"2025-09-05","amount":20.00}`,
		`"gross":100.00,"charged":3.125,"expected":2.50,"difference":0.63`, `"sales":2,"charged":5.625,"expected":5.00`,
		`"journal":"2.50","ledger":"3.125"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the result in JSON lacks %s:\n%s", want, got)
		}
	}
}
