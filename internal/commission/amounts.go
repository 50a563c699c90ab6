package commission

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
)

// Amounts is what one commission entry means for one sale: what the
// merchant pays and keeps, and what the buyer pays, in total and per
// installment. Every figure is a whole number of the currency's minor unit.
type Amounts struct {
	// Amount is the sale's price, as the merchant set it.
	Amount decimal.Decimal
	// MerchantFee = Amount × merchant% / 100 + merchant fixed.
	MerchantFee decimal.Decimal
	// MerchantNet = Amount − MerchantFee.
	MerchantNet decimal.Decimal
	// BuyerTotal = Amount + Amount × user% / 100 + user fixed.
	BuyerTotal decimal.Decimal
	// InstallmentAmount = BuyerTotal / n, rounded down.
	InstallmentAmount decimal.Decimal
	// FirstInstallmentAmount = BuyerTotal − (n − 1) × InstallmentAmount:
	// the first installment takes the remainder, so that the installments
	// add up to BuyerTotal exactly.
	FirstInstallmentAmount decimal.Decimal
	// MinorUnit is the currency's number of decimals; String writes the
	// figures with exactly that many.
	MinorUnit int32
}

// Rates are the four figures of an entry that the amount maths uses.
type Rates struct {
	MerchantPercentage, MerchantFixed, UserPercentage, UserFixed Value
}

// RatesOf returns the rates of an entry.
func RatesOf(e Entry) Rates {
	return Rates{
		MerchantPercentage: e.MerchantCommissionPercentage,
		MerchantFixed:      e.MerchantCommissionFixed,
		UserPercentage:     e.UserCommissionPercentage,
		UserFixed:          e.UserCommissionFixed,
	}
}

// Offered reports whether the rates price anything: at least one of the
// two percentages is a number. An entry whose percentages are both
// not-offered markers ("x", "X", "-", "", null) is not offered, whatever
// its fixed parts say.
func (r Rates) Offered() bool {
	return r.MerchantPercentage.Available() || r.UserPercentage.Available()
}

// ComputeAmounts works out the amounts of a sale of amount, paid in n
// installments, at rates, in a currency with minorUnit decimals. A rate
// written as a not-offered marker in an offered entry counts as zero (the
// saved-card-token entry, for one, has a merchant rate and "-" for the
// user). Money figures are rounded to the minor unit by money.Round (half
// away from zero),
// except InstallmentAmount, which is rounded down; see Amounts.
//
// ok is false when the entry is not offered (see Rates.Offered). amount
// must already be a whole number of minor units and n at least 1.
func ComputeAmounts(amount decimal.Decimal, n int, rates Rates, minorUnit int32) (a Amounts, ok bool, err error) {
	if !rates.Offered() {
		return Amounts{}, false, nil
	}
	if n < 1 {
		return Amounts{}, false, fmt.Errorf("installment count %d: must be at least 1", n)
	}
	if !amount.Equal(amount.Round(minorUnit)) {
		return Amounts{}, false, fmt.Errorf("amount %s has more than %d decimals", amount, minorUnit)
	}
	hundred := decimal.NewFromInt(100)
	num := func(v Value) decimal.Decimal {
		d, _ := v.Decimal() // the zero decimal for a marker
		return d
	}
	a = Amounts{Amount: amount, MinorUnit: minorUnit}
	a.MerchantFee = money.Round(amount.Mul(num(rates.MerchantPercentage)).Div(hundred).Add(num(rates.MerchantFixed)), minorUnit)
	a.MerchantNet = amount.Sub(a.MerchantFee)
	a.BuyerTotal = money.Round(amount.Add(amount.Mul(num(rates.UserPercentage)).Div(hundred)).Add(num(rates.UserFixed)), minorUnit)
	a.InstallmentAmount, a.FirstInstallmentAmount = SplitInstallments(a.BuyerTotal, n, minorUnit)
	return a, true, nil
}

// SplitInstallments splits what the buyer pays in all into n installments
// in a currency with minorUnit decimals: each one is total / n rounded
// down to the minor unit, and the first takes the remainder, so that the
// installments add up to total exactly. n must be at least 1.
func SplitInstallments(total decimal.Decimal, n int, minorUnit int32) (each, first decimal.Decimal) {
	count := decimal.NewFromInt(int64(n))
	// QuoRem truncates toward zero at the given precision, exactly: no
	// division rounding can push a quotient over a minor unit. Totals are
	// not negative for any real rate, so toward zero is down.
	each, _ = total.QuoRem(count, minorUnit)
	if total.IsNegative() {
		each = total.Div(count).RoundFloor(minorUnit)
	}
	return each, total.Sub(count.Sub(decimal.NewFromInt(1)).Mul(each))
}

// Strings returns the figures written with exactly MinorUnit decimals, in
// the order of the Amounts fields.
func (a Amounts) Strings() [6]string {
	f := func(d decimal.Decimal) string { return d.StringFixed(a.MinorUnit) }
	return [6]string{f(a.Amount), f(a.MerchantFee), f(a.MerchantNet), f(a.BuyerTotal), f(a.InstallmentAmount), f(a.FirstInstallmentAmount)}
}
