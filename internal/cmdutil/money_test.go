package cmdutil

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
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

// TestNoMerchantKeyExplained: the client refuses to sign without a
// merchant_key (gateway.ErrNoMerchantKey); every command reads that the
// same way: the profile named, how to set one, exit 2.
func TestNoMerchantKeyExplained(t *testing.T) {
	err := ExplainGatewayError(fmt.Errorf("refund: %w", gateway.ErrNoMerchantKey), &config.Config{Profile: "p"})
	if k, _ := KindOf(err); k != KindUsage || err.Error() != `profile "p" has no merchant_key` || !strings.Contains(HintOf(err), "PAYCLI_MERCHANT_KEY") {
		t.Errorf("%v (kind %v), hint %q", err, k, HintOf(err))
	}
}
