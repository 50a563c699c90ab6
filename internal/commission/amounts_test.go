package commission

import (
	"testing"

	"github.com/shopspring/decimal"
)

func mustValue(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseValue(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The expected figures below were worked out by hand; each comment shows
// the arithmetic.
func TestComputeAmounts(t *testing.T) {
	tests := []struct {
		name       string
		amount     string
		n          int
		mp, mf     string // merchant percentage, fixed
		up, uf     string // user percentage, fixed
		minor      int32
		fee, net   string
		total      string
		inst, firs string
	}{
		// 1000 × 1.75 / 100 = 17.50; the buyer pays the price.
		{"TRY merchant-borne", "1000.00", 1, "1.7500", "0.0000", "0", "0", 2, "17.50", "982.50", "1000.00", "1000.00", "1000.00"},
		// 1000 + 1000 × 1.75 / 100 = 1017.50; /6 = 169.5833 → 169.58; first = 1017.50 − 5 × 169.58 = 169.60.
		{"TRY user-borne, 6 installments", "1000", 6, "0", "0", "1.75", "0", 2, "0.00", "1000.00", "1017.50", "169.58", "169.60"},
		// 1000 / 7 = 142.857… → 142.85; first = 1000 − 6 × 142.85 = 142.90: the remainder lands first.
		{"7-installment split", "1000.00", 7, "9.4900", "0.0000", "0", "0", 2, "94.90", "905.10", "1000.00", "142.85", "142.90"},
		// 1000 × 1.99 / 100 + 0.25 = 20.15.
		{"fixed part", "1000", 1, "1.9900", "0.2500", "0", "0", 2, "20.15", "979.85", "1000.00", "1000.00", "1000.00"},
		// 10 × 0.25 / 100 = 0.025 → 0.03 (half away from zero, not to even).
		{"half away from zero", "10.00", 1, "0.25", "0", "0.25", "0", 2, "0.03", "9.97", "10.03", "10.03", "10.03"},
		// 100.10 × 1.5 / 100 = 1.5015 → 1.50.
		{"rounds down below half", "100.10", 1, "1.5", "0", "0", "0", 2, "1.50", "98.60", "100.10", "100.10", "100.10"},
		// JPY has no minor unit: 10000 × 2.5 / 100 + 30 = 280; 10000 × 3.33 / 100 = 333 → 10333;
		// /3 = 3444.33 → 3444; first = 10333 − 2 × 3444 = 3445.
		{"JPY", "10000", 3, "2.5", "30", "3.33", "0", 0, "280", "9720", "10333", "3444", "3445"},
		// JPY half: 1234 × 1.5 / 100 = 18.51 → 19.
		{"JPY rounding", "1234", 1, "1.5", "0", "0", "0", 0, "19", "1215", "1234", "1234", "1234"},
		// KWD has 3 decimals: 12.345 × 1.5 / 100 = 0.185175 → 0.185;
		// 12.345 + 12.345 × 2.25 / 100 + 0.1 = 12.7227625 → 12.723; /2 = 6.3615 → 6.361; first 6.362.
		{"KWD", "12.345", 2, "1.5000", "0", "2.25", "0.100", 3, "0.185", "12.160", "12.723", "6.361", "6.362"},
		// A marker in an offered entry counts as zero (the saved-card entry: "-" for the user).
		{"marker counts as zero", "500", 1, "2.1000", "-", "-", "x", 2, "10.50", "489.50", "500.00", "500.00", "500.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rates := Rates{mustValue(t, tt.mp), mustValue(t, tt.mf), mustValue(t, tt.up), mustValue(t, tt.uf)}
			a, ok, err := ComputeAmounts(decimal.RequireFromString(tt.amount), tt.n, rates, tt.minor)
			if err != nil || !ok {
				t.Fatalf("ComputeAmounts: ok=%v err=%v", ok, err)
			}
			s := a.Strings()
			want := [6]string{decimal.RequireFromString(tt.amount).StringFixed(tt.minor), tt.fee, tt.net, tt.total, tt.inst, tt.firs}
			if s != want {
				t.Errorf("amounts = %v, want %v", s, want)
			}
			// The installments add up to the buyer's total exactly.
			sum := a.FirstInstallmentAmount.Add(a.InstallmentAmount.Mul(decimal.NewFromInt(int64(tt.n - 1))))
			if !sum.Equal(a.BuyerTotal) {
				t.Errorf("installments add up to %s, buyer total %s", sum, a.BuyerTotal)
			}
		})
	}
}

func TestComputeAmountsNotOffered(t *testing.T) {
	for _, r := range []Rates{
		{mustValue(t, "x"), mustValue(t, "x"), mustValue(t, "x"), mustValue(t, "x")},
		{mustValue(t, "X"), mustValue(t, "0.25"), mustValue(t, "-"), mustValue(t, "0")},
		{},
	} {
		if _, ok, err := ComputeAmounts(decimal.NewFromInt(100), 1, r, 2); ok || err != nil {
			t.Errorf("rates %+v: ok=%v err=%v, want not offered", r, ok, err)
		}
	}
}

func TestComputeAmountsRefusesBadInput(t *testing.T) {
	r := Rates{MerchantPercentage: mustValue(t, "1")}
	if _, _, err := ComputeAmounts(decimal.RequireFromString("10.005"), 1, r, 2); err == nil {
		t.Error("an amount finer than the minor unit was accepted")
	}
	if _, _, err := ComputeAmounts(decimal.RequireFromString("10"), 0, r, 2); err == nil {
		t.Error("0 installments were accepted")
	}
}

// TestSplitInstallmentsNegative: a negative total (a refund-like figure,
// or a rate below zero) is split rounding each installment down as well,
// toward minus infinity, the first taking what remains, so that they still
// add up to the total.
func TestSplitInstallmentsNegative(t *testing.T) {
	for _, tc := range []struct{ total, each, first string }{
		{"-10.00", "-3.34", "-3.32"},
		{"10.00", "3.33", "3.34"},
	} {
		each, first := SplitInstallments(decimal.RequireFromString(tc.total), 3, 2)
		if each.StringFixed(2) != tc.each || first.StringFixed(2) != tc.first {
			t.Errorf("%s in 3: each %s, first %s; want %s and %s", tc.total, each.StringFixed(2), first.StringFixed(2), tc.each, tc.first)
		}
		if sum := each.Mul(decimal.NewFromInt(2)).Add(first); !sum.Equal(decimal.RequireFromString(tc.total)) {
			t.Errorf("%s: installments add up to %s", tc.total, sum)
		}
	}
}
