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
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/redact"
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

// AmountError is a text that is not a positive amount. Its Error is the
// one wording of each problem, which every command that takes an amount
// shows after the name of its flag or field.
type AmountError struct {
	// Text is the text as given.
	Text    string
	Problem Problem
	// Readings are the plain decimals a NotPlain text can mean when it is
	// an amount written with grouping or a decimal comma: one when that is
	// unambiguous ("1,250.50" and "1.250,50" are 1250.50), two when it is
	// not ("1,250" is 1250 or 1.250), none otherwise.
	Readings []string
}

func (e *AmountError) Error() string {
	shown := shownText(e.Text)
	switch e.Problem {
	case Negative, Zero:
		return fmt.Sprintf("%s is not more than zero", shown)
	case TooLong:
		return fmt.Sprintf("%s has more than %d digits before the point or %d after it", shown, MaxIntegerDigits, MaxDecimals)
	}
	switch len(e.Readings) {
	case 1:
		return fmt.Sprintf("%s is not a plain decimal; did you mean %s?", shown, e.Readings[0])
	case 2:
		return fmt.Sprintf("%s is not a plain decimal; write %s or %s (a point for decimals, no grouping)", shown, e.Readings[0], e.Readings[1])
	}
	return fmt.Sprintf("%s is not a plain decimal like 1250.50", shown)
}

// shownText quotes a text from outside for an error: escaped, a card
// number in it masked (typed in the wrong field), and cut to 40 bytes
// after masking so that the cut cannot leave part of one unrecognised.
func shownText(s string) string {
	s = redact.Cards(s)
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}

// ParseAmount reads a positive amount written plainly: digits, optionally
// a point and more digits ("50", "50.00"), blanks around it ignored. It is
// how every amount a person gives and every amount paycli sends is read.
// Grouping ("1,250.50", which paycli prints) and decimal commas
// ("1.250,50") are refused, with the plain reading as a suggestion when
// there is only one (AmountError.Readings): the text given is the text
// sent and signed, and a money command never guesses. The currency's
// decimals are a separate check (CheckDecimals): "50.000" is the amount 50.
func ParseAmount(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	d, err := parse(t)
	if err != nil {
		err.Text = s
		if err.Problem == NotPlain {
			readAsPeopleWrite(err, t)
		}
		return decimal.Decimal{}, err
	}
	if !d.IsPositive() {
		return decimal.Decimal{}, &AmountError{Text: s, Problem: Zero}
	}
	return d, nil
}

// readAsPeopleWrite fills in the readings of a text that is not plain, and
// when its one reading is not positive or too long, names that problem
// instead ("-1,250.50" is negative, "0,00" is zero).
func readAsPeopleWrite(e *AmountError, t string) {
	sign, rest := "", t
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		sign, rest = t[:1], t[1:]
	}
	readings := Readings(rest)
	if len(readings) == 0 && sign == "+" && parseable(rest) {
		readings = []string{rest}
	}
	// A reading that is not a positive amount is no suggestion; when no
	// reading is, the first one's problem is the text's.
	var problem *AmountError
	for _, r := range readings {
		d, perr := parse(r)
		switch {
		case perr != nil:
		case sign == "-" && !d.IsZero():
			perr = &AmountError{Problem: Negative}
		case !d.IsPositive():
			perr = &AmountError{Problem: Zero}
		default:
			e.Readings = append(e.Readings, r)
			continue
		}
		if problem == nil {
			problem = perr
		}
	}
	if len(e.Readings) == 0 && problem != nil {
		e.Problem = problem.Problem
	}
}

// groupMarks are the characters people put between groups of three
// digits: a comma, a point, a blank (also the no-break ones) or an
// apostrophe.
const groupMarks = ",. \u00a0\u202f'"

// Readings returns the plain decimals an unsigned text can mean when read
// as people write amounts: digit groups of three after a first group of one
// to three, separated by one grouping mark, and optionally a decimal point
// or comma before the decimals ("1,250.50", "1.250,50", "1 250,50",
// "1250,50"); also ".5" and "5." for 0.5 and 5. A text that is already
// plain, or that no reading fits, has none; one that two readings fit
// ("1,250": 1250 or 1.250) has both, the whole number first.
func Readings(t string) []string {
	if t == "" || parseable(t) {
		return nil
	}
	if i, f, ok := strings.Cut(t, "."); ok && (i == "" && digitsOnly(f) || f == "" && digitsOnly(i)) {
		if i == "" {
			return []string{"0." + f}
		}
		return []string{i}
	}
	runs, marks := splitRuns(t)
	if runs == nil {
		return nil
	}
	var out []string
	// Every mark a grouping one: a whole number.
	if grouped(runs, marks) {
		out = append(out, strings.Join(runs, ""))
	}
	// The last mark a decimal point or comma, the others grouping.
	last := len(marks) - 1
	whole := last == 0 || grouped(runs[:last+1], marks[:last]) && !slices.Contains(marks[:last], marks[last])
	if (marks[last] == "." || marks[last] == ",") && whole {
		r := strings.Join(runs[:last+1], "") + "." + runs[last+1]
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// splitRuns cuts t into runs of ASCII digits and the single grouping marks
// between them; nil when t holds anything else, two marks in a row, or
// starts or ends with a mark.
func splitRuns(t string) (runs, marks []string) {
	start := 0
	for i, r := range t {
		if r >= '0' && r <= '9' {
			continue
		}
		if !strings.ContainsRune(groupMarks, r) || i == start {
			return nil, nil
		}
		runs = append(runs, t[start:i])
		marks = append(marks, string(r))
		start = i + utf8.RuneLen(r)
	}
	if start == len(t) || len(marks) == 0 {
		return nil, nil
	}
	return append(runs, t[start:]), marks
}

// grouped reports whether runs are thousands groups joined by one mark
// throughout: a first group of one to three digits, then groups of three.
func grouped(runs, marks []string) bool {
	if len(runs) < 2 || len(runs[0]) > 3 {
		return false
	}
	for _, m := range marks {
		if m != marks[0] {
			return false
		}
	}
	for _, r := range runs[1:] {
		if len(r) != 3 {
			return false
		}
	}
	return true
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

// Round is the one rounding of money shown to a person: to the minor
// unit, half away from zero (2.345 TRY shows as 2.35, -2.345 as -2.35), as
// the commission arithmetic rounds a fee. JSON keeps the exact value.
func Round(d decimal.Decimal, minor int32) decimal.Decimal {
	return d.Round(minor)
}

// Shown is d rounded (Round) and written with exactly minor decimals, no
// grouping: "58.15" for 58.1483 TRY.
func Shown(d decimal.Decimal, minor int32) string {
	return Round(d, minor).StringFixed(minor)
}

// Exact writes d with exactly minor decimals: "11.30" for 11.3 TRY. A
// figure with more decimals than that (150.005 TRY) is written as it is:
// rounded, it would say more or less than it is. A minor below zero (a
// currency paycli does not know) writes d as it is.
func Exact(d decimal.Decimal, minor int32) string {
	if minor < 0 || !d.Equal(d.Round(minor)) {
		return d.String()
	}
	return d.StringFixed(minor)
}

// ExactIn is Exact in the decimals of currency (an ISO 4217 code).
func ExactIn(d decimal.Decimal, currency string) string {
	minor, ok := MinorUnit(currency)
	if !ok {
		minor = -1
	}
	return Exact(d, minor)
}

// Down is d cut to minor decimals, never rounded up: what paycli sends
// when it works an amount out itself (all that remains of a sale, say)
// can only be less than the figure it came from, never more.
func Down(d decimal.Decimal, minor int32) decimal.Decimal {
	return d.RoundDown(minor)
}
