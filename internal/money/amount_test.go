package money

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"50", "50"}, {"50.00", "50"}, {" 50.5 ", "50.5"}, {"0.01", "0.01"}, {"007", "7"},
		{"50.000", "50"},
		{strings.Repeat("9", MaxIntegerDigits), strings.Repeat("9", MaxIntegerDigits)},
		{"1." + strings.Repeat("1", MaxDecimals), "1." + strings.Repeat("1", MaxDecimals)},
	} {
		d, err := ParseAmount(tc.in)
		if err != nil || d.String() != tc.want {
			t.Errorf("ParseAmount(%q) = %s, %v; want %s", tc.in, d, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want Problem
	}{
		{"", NotPlain}, {"1e3", NotPlain}, {"1,5", NotPlain}, {"+5", NotPlain}, {".5", NotPlain}, {"5.", NotPlain},
		{"1.2.3", NotPlain}, {"5 0", NotPlain}, {"-", NotPlain}, {"--5", NotPlain}, {"١٢", NotPlain}, {"0x10", NotPlain},
		{"-5", Negative}, {"-0.01", Negative},
		{"0", Zero}, {"0.00", Zero}, {"000", Zero},
		{strings.Repeat("9", MaxIntegerDigits+1), TooLong}, {"1." + strings.Repeat("1", MaxDecimals+1), TooLong},
	} {
		_, err := ParseAmount(tc.in)
		var ae *AmountError
		if !errors.As(err, &ae) || ae.Problem != tc.want || ae.Text != tc.in {
			t.Errorf("ParseAmount(%q): %#v, want problem %d", tc.in, err, tc.want)
		}
	}
}

func TestParsePlain(t *testing.T) {
	for in, want := range map[string]string{"150": "150", "150.00": "150", "-150.5": "-150.5", "0100": "100", "0": "0"} {
		if d, ok := ParsePlain(in); !ok || d.String() != want {
			t.Errorf("ParsePlain(%q) = %s, %v; want %s", in, d, ok, want)
		}
	}
	for _, in := range []string{"", "1e3", "+1", " 1", "1 ", "1,5", "-", "1." + strings.Repeat("0", MaxDecimals+1)} {
		if _, ok := ParsePlain(in); ok {
			t.Errorf("ParsePlain(%q) read a number", in)
		}
	}
}

// TestCheckDecimals: decimals are counted by value, so trailing zeros
// change nothing (issue 23, defect 10: 50.000 TRY was refused as "3
// decimals").
func TestCheckDecimals(t *testing.T) {
	try, _ := LookupCurrency("TRY")
	jpy, _ := LookupCurrency("JPY")
	for _, tc := range []struct {
		amount string
		cur    Currency
		ok     bool
	}{
		{"50.000", try, true}, {"50.10", try, true}, {"50", try, true}, {"50.0010", try, false}, {"5.001", try, false},
		{"100.0", jpy, true}, {"100.5", jpy, false},
	} {
		err := CheckDecimals(decimal.RequireFromString(tc.amount), tc.cur)
		if (err == nil) != tc.ok {
			t.Errorf("CheckDecimals(%s %s) = %v", tc.amount, tc.cur.Code, err)
		}
	}
	err := CheckDecimals(decimal.RequireFromString("5.0010"), try)
	var de *DecimalsError
	if !errors.As(err, &de) || de.Decimals() != 3 || err.Error() != "5.001 has 3 decimals; TRY amounts have 2" {
		t.Errorf("error %v", err)
	}
}

// TestDownNeverRoundsUp: an amount paycli works out itself is cut, never
// rounded up (issue 23: 150.005 with --full was refunded as 150.01).
func TestDownNeverRoundsUp(t *testing.T) {
	for in, want := range map[string]string{"150.005": "150.00", "150.009": "150.00", "150.01": "150.01", "0.999": "0.99", "7": "7.00"} {
		if got := Down(decimal.RequireFromString(in), 2).StringFixed(2); got != want {
			t.Errorf("Down(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestGatewayZone(t *testing.T) {
	at := time.Date(2026, 11, 22, 19, 35, 3, 0, GatewayZone())
	if _, off := at.Zone(); off != 3*60*60 {
		t.Errorf("offset %d, want +3h", off)
	}
}
