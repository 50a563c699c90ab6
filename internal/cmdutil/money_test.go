package cmdutil

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/money"
	"github.com/shopspring/decimal"
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

func TestRequireMerchantKey(t *testing.T) {
	if err := RequireMerchantKey(&config.Config{Profile: "p", MerchantKey: "mk"}); err != nil {
		t.Errorf("with a merchant_key: %v", err)
	}
	err := RequireMerchantKey(&config.Config{Profile: "p"})
	if k, _ := KindOf(err); k != KindUsage || err.Error() != `profile "p" has no merchant_key` || !strings.Contains(HintOf(err), "MERCHANT_KEY") {
		t.Errorf("without one: %v, hint %q", err, HintOf(err))
	}
}
