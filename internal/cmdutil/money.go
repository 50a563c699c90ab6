package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/money"
)

// ParseAmount reads a sale amount from a flag: a positive decimal in plain
// notation ("1000", "1000.50"), as money.ParseAmount reads every amount; a
// comma is refused rather than guessed at. The currency's decimals are
// checked once the currency is known (CheckAmountDecimals).
func ParseAmount(s string) (decimal.Decimal, error) {
	d, err := money.ParseAmount(s)
	var ae *money.AmountError
	if !errors.As(err, &ae) {
		return d, err
	}
	switch ae.Problem {
	case money.Negative, money.Zero:
		return decimal.Decimal{}, fmt.Errorf("%q: must be more than zero", s)
	case money.TooLong:
		return decimal.Decimal{}, fmt.Errorf("%q: an amount has at most %d digits before the point and %d after it", s, money.MaxIntegerDigits, money.MaxDecimals)
	}
	return decimal.Decimal{}, fmt.Errorf("%q: write a plain decimal with a point, e.g. 1000 or 1017.50", s)
}

// ResolveCurrency takes the configured currency (--currency,
// PAYCLI_DEFAULT_CURRENCY or the profile's default_currency) and checks it
// against ISO 4217: a usage error when there is none or it is unknown.
func ResolveCurrency(cfg *config.Config) (money.Currency, error) {
	code := strings.ToUpper(strings.TrimSpace(cfg.DefaultCurrency))
	if code == "" {
		return money.Currency{}, UsageHint(errors.New("no currency given"),
			fmt.Sprintf("Pass --currency CODE (e.g. --currency TRY), or set one with '%s'.", ConfigCommand(cfg, "set", "default_currency", "TRY")))
	}
	cur, ok := money.LookupCurrency(code)
	if !ok {
		return money.Currency{}, UsageHint(fmt.Errorf("%q is not an ISO 4217 currency code", code),
			"Use a three-letter code such as TRY, USD or EUR.")
	}
	return cur, nil
}

// CheckAmountDecimals is the usage error of an --amount with more decimals
// than cur has ("1.005" in TRY); nil when it has no more.
func CheckAmountDecimals(amount decimal.Decimal, cur money.Currency) error {
	if money.CheckDecimals(amount, cur) == nil {
		return nil
	}
	return UsageErrorf("invalid --amount %s: %s amounts have %d decimals", amount, cur.Code, cur.MinorUnit)
}
