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
// The currency's decimals are checked by the caller, once it knows the
// currency.
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
			"Pass --currency CODE (e.g. --currency TRY), or set one with 'paycli config set default_currency TRY'.")
	}
	cur, ok := commission.LookupCurrency(code)
	if !ok {
		return commission.Currency{}, UsageHint(fmt.Errorf("%q is not an ISO 4217 currency code", code),
			"Use a three-letter code such as TRY, USD or EUR.")
	}
	return cur, nil
}
