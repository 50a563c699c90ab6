package commissionscmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/commission"
	"github.com/shopspring/decimal"
)

func TestDecimalString(t *testing.T) {
	for _, text := range []string{
		"0", "0.0000", "1.2500", "1.75", "10", "100.000", "12.5", "-0.50", "-0.00", "-0", "-3", "-12.340",
		"007", "00.5", "+1.5", ".25", "3.", "1e2", "1.5E-3", " 1.5", "1.5 ", "0.0001", "99999999999999999999.10",
	} {
		d, err := decimal.NewFromString(strings.TrimSpace(text))
		if err != nil {
			continue
		}
		if got, want := decimalString(text, d), d.String(); got != want {
			t.Errorf("decimalString(%q) = %q, want %q", text, got, want)
		}
	}
}

func FuzzDecimalString(f *testing.F) {
	f.Add("1.2500")
	f.Add("-0.00")
	f.Fuzz(func(t *testing.T, text string) {
		v, err := commission.ParseValue(text)
		if err != nil {
			return
		}
		d, ok := v.Decimal()
		if !ok {
			return
		}
		if got, want := decimalString(text, d), d.String(); got != want {
			t.Fatalf("decimalString(%q) = %q, want %q", text, got, want)
		}
	})
}
