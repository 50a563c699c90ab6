// Package money is paycli's one notion of a money value: how an amount is
// written and how long it may be (ParseAmount, ParsePlain), the ISO 4217
// currencies and their decimals (LookupCurrency, MinorUnit, CheckDecimals),
// how an amount is written back without ever rounding it up (Down), and the
// gateway's time zone (GatewayZone). It is a leaf: every command, the
// gateway client, the emulator and the webhook checks use it, so that an
// amount one of them accepts is an amount all of them read the same way.
package money

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Limits of a plain amount: far beyond any real sale, small enough that no
// text can stand for an absurd number (no exponents either).
const (
	MaxIntegerDigits = 20
	MaxDecimals      = 8
)

// Problem says what is wrong with a text that is not an amount.
type Problem int

const (
	// NotPlain: not digits with an optional point and decimals (an
	// exponent, a comma, a blank, a plus sign, a lone point).
	NotPlain Problem = iota
	// Negative: a plain decimal with a minus sign.
	Negative
	// Zero: a plain decimal that is 0.
	Zero
	// TooLong: more than MaxIntegerDigits digits before the point or
	// MaxDecimals after it.
	TooLong
)

// AmountError is a text that is not a positive amount. Commands word it
// for their own flag; Error gives the common wording.
type AmountError struct {
	// Text is the text as given.
	Text    string
	Problem Problem
}

func (e *AmountError) Error() string {
	switch e.Problem {
	case Negative, Zero:
		return fmt.Sprintf("%q is not more than zero", e.Text)
	case TooLong:
		return fmt.Sprintf("%q has more than %d digits before the point or %d after it", e.Text, MaxIntegerDigits, MaxDecimals)
	}
	return fmt.Sprintf("%q is not a plain decimal like 50.00", e.Text)
}

// ParseAmount reads a positive amount written plainly: digits, optionally
// a point and more digits ("50", "50.00"), blanks around it ignored. It is
// how every amount a person gives and every amount paycli sends is read.
// The currency's decimals are a separate check (CheckDecimals): "50.000"
// is the amount 50.
func ParseAmount(s string) (decimal.Decimal, error) {
	d, err := parse(strings.TrimSpace(s))
	if err != nil {
		err.Text = s
		return decimal.Decimal{}, err
	}
	if !d.IsPositive() {
		return decimal.Decimal{}, &AmountError{Text: s, Problem: Zero}
	}
	return d, nil
}

// ParsePlain reads a plain decimal as the gateway writes one in its
// answers and webhooks: an optional minus sign, digits, optionally a point
// and more digits, within the limits. ok is false for anything else, which
// a caller compares as text.
func ParsePlain(s string) (d decimal.Decimal, ok bool) {
	neg := strings.HasPrefix(s, "-")
	d, err := parse(strings.TrimPrefix(s, "-"))
	if err != nil {
		return decimal.Decimal{}, false
	}
	if neg {
		d = d.Neg()
	}
	return d, true
}

// parse reads digits[.digits] within the limits; its error's Text is left
// to the caller.
func parse(s string) (decimal.Decimal, *AmountError) {
	intPart, frac, hasPoint := strings.Cut(s, ".")
	switch {
	case strings.HasPrefix(s, "-") && parseable(s[1:]):
		return decimal.Decimal{}, &AmountError{Problem: Negative}
	case !digitsOnly(intPart) || hasPoint && !digitsOnly(frac):
		return decimal.Decimal{}, &AmountError{Problem: NotPlain}
	case len(intPart) > MaxIntegerDigits || len(frac) > MaxDecimals:
		return decimal.Decimal{}, &AmountError{Problem: TooLong}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, &AmountError{Problem: NotPlain}
	}
	return d, nil
}

// parseable reports whether s is digits[.digits], of any length.
func parseable(s string) bool {
	i, f, p := strings.Cut(s, ".")
	return digitsOnly(i) && (!p || digitsOnly(f))
}

func digitsOnly(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// CheckDecimals reports an amount with more decimals than the currency
// has, by value: "50.000" TRY is 50 and passes; "50.001" does not. The
// error names both counts.
func CheckDecimals(d decimal.Decimal, c Currency) error {
	if d.Equal(d.Round(c.MinorUnit)) {
		return nil
	}
	return &DecimalsError{Amount: d, Currency: c}
}

// DecimalsError is an amount with more decimals than its currency has.
type DecimalsError struct {
	Amount   decimal.Decimal
	Currency Currency
}

// Decimals is how many decimals the amount has, trailing zeros aside.
func (e *DecimalsError) Decimals() int {
	_, frac, _ := strings.Cut(e.Amount.String(), ".")
	return len(frac)
}

func (e *DecimalsError) Error() string {
	return fmt.Sprintf("%s has %d decimals; %s amounts have %d", e.Amount, e.Decimals(), e.Currency.Code, e.Currency.MinorUnit)
}

// Down is d cut to minor decimals, never rounded up: what paycli sends
// when it works an amount out itself (all that remains of a sale, say)
// can only be less than the figure it came from, never more.
func Down(d decimal.Decimal, minor int32) decimal.Decimal {
	return d.RoundDown(minor)
}
