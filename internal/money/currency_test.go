package money

import "testing"

func TestCurrencies(t *testing.T) {
	cs := Currencies()
	if len(cs) < 150 {
		t.Fatalf("only %d currencies", len(cs))
	}
	for i, c := range cs {
		if len(c.Code) != 3 || c.Name == "" || c.MinorUnit < 0 || c.MinorUnit > 4 {
			t.Errorf("bad entry %+v", c)
		}
		if i > 0 && cs[i-1].Code >= c.Code {
			t.Errorf("not sorted or duplicated: %s then %s", cs[i-1].Code, c.Code)
		}
	}
	cs[0].Code = "changed"
	if Currencies()[0].Code == "changed" {
		t.Error("Currencies hands out the table itself")
	}
}

func TestMinorUnit(t *testing.T) {
	for code, want := range map[string]int32{
		"TRY": 2, "try": 2, "USD": 2, "EUR": 2, "GBP": 2, "JPY": 0, "KRW": 0, "CLP": 0,
		"KWD": 3, "BHD": 3, "JOD": 3, "OMR": 3, "TND": 3, "CLF": 4, "UYW": 4,
	} {
		got, ok := MinorUnit(code)
		if !ok || got != want {
			t.Errorf("MinorUnit(%q) = %d, %v; want %d", code, got, ok, want)
		}
	}
	for _, code := range []string{"", "XX", "TRYY", "XAU", "XXX", "ZZZ"} {
		if _, ok := LookupCurrency(code); ok {
			t.Errorf("LookupCurrency(%q) found a currency", code)
		}
	}
}
