package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/money"
)

// ParseAmount reads an amount flag (--amount): a positive decimal in
// plain notation, as money.ParseAmount reads every amount, its error the
// usage error every command shows for it: "invalid --amount: " and the
// one wording of the problem, with the plain reading when there is one
// ("did you mean 1250.50?"). The currency's decimals are checked once the
// currency is known (CheckAmountDecimals).
func ParseAmount(flag, s string) (decimal.Decimal, error) {
	d, err := money.ParseAmount(s)
	if err != nil {
		return decimal.Decimal{}, UsageErrorf("invalid --%s: %w", flag, err)
	}
	return d, nil
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
	cur, err := money.CheckCode(code)
	if err != nil {
		return money.Currency{}, UsageErrorf("%v", err)
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
