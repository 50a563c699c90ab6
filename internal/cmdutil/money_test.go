package cmdutil

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
)

func TestCheckAmountDecimals(t *testing.T) {
	try, _ := money.LookupCurrency("TRY")
	if err := CheckAmountDecimals(decimal.RequireFromString("10.50"), try); err != nil {
		t.Errorf("10.50 TRY: %v", err)
	}
	err := CheckAmountDecimals(decimal.RequireFromString("10.505"), try)
	if k, _ := KindOf(err); k != KindUsage || err.Error() != "invalid --amount 10.505: TRY amounts have 2 decimals" {
		t.Errorf("10.505 TRY: %v (kind %v)", err, k)
	}
}
