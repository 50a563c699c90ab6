package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/config"
	"github.com/shopspring/decimal"
)

// ParseAmount reads a sale amount from a flag: a positive decimal in plain
// notation ("1000", "1000.50"); a comma is refused rather than guessed at.
// The currency's decimals are checked once the currency is known
// (CheckAmountDecimals).
func ParseAmount(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, ",_ eE") || t == "" {
		return decimal.Decimal{}, fmt.Errorf("%q: write a plain decimal with a point, e.g. 1000 or 1017.50", s)
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q: write a plain decimal with a point, e.g. 1000 or 1017.50", s)
	}
	if !d.IsPositive() {
		return decimal.Decimal{}, fmt.Errorf("%q: must be more than zero", s)
	}
	return d, nil
}

// ResolveCurrency takes the configured currency (--currency,
// PAYCLI_DEFAULT_CURRENCY or the profile's default_currency) and checks it
// against ISO 4217: a usage error when there is none or it is unknown.
func ResolveCurrency(cfg *config.Config) (commission.Currency, error) {
	code := strings.ToUpper(strings.TrimSpace(cfg.DefaultCurrency))
	if code == "" {
		return commission.Currency{}, UsageHint(errors.New("no currency given"),
			fmt.Sprintf("Pass --currency CODE (e.g. --currency TRY), or set one with '%s'.", ConfigCommand(cfg, "set", "default_currency", "TRY")))
	}
	cur, ok := commission.LookupCurrency(code)
	if !ok {
		return commission.Currency{}, UsageHint(fmt.Errorf("%q is not an ISO 4217 currency code", code),
			"Use a three-letter code such as TRY, USD or EUR.")
	}
	return cur, nil
}

// CheckAmountDecimals is the usage error of an --amount with more decimals
// than cur has ("1.005" in TRY); nil when it has no more.
func CheckAmountDecimals(amount decimal.Decimal, cur commission.Currency) error {
	if amount.Equal(amount.Round(cur.MinorUnit)) {
		return nil
	}
	return UsageErrorf("invalid --amount %s: %s amounts have %d decimals", amount, cur.Code, cur.MinorUnit)
}

// RequireMerchantKey is the usage error of a command that signs its
// requests with the profile's merchant_key (a hash_key is made with it)
// when cfg has none; nil when it has one.
func RequireMerchantKey(cfg *config.Config) error {
	if cfg.MerchantKey != "" {
		return nil
	}
	return UsageHint(fmt.Errorf("profile %q has no merchant_key", cfg.Profile),
		fmt.Sprintf("Run '%s', or set %s_MERCHANT_KEY.", ConfigCommand(cfg, "init"), config.EnvPrefix))
}
