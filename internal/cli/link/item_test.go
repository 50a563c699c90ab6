package link

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseItem(t *testing.T) {
	for _, tc := range []struct {
		in, name, price string
		qty             int
		err             string
	}{
		{"Lamp:150.00", "Lamp", "150", 1, ""},
		{"Lamp:50:2", "Lamp", "50", 2, ""},
		{"Tea: green:50.00:1", "Tea: green", "50", 1, ""},
		{" Lamp :50", "Lamp", "50", 1, ""},
		{"Lamp", "", "", 0, "write NAME:PRICE"},
		{":50", "", "", 0, "name is empty"},
		{"Lamp:0", "", "", 0, "the price"},
		{"Lamp:1,50", "", "", 0, "the price"},
		{"Lamp:50:0", "", "", 0, "quantity"},
		{"Lamp:50:two", "", "", 0, "quantity"},
		{"La\x00mp:50", "", "", 0, "control characters"},
	} {
		it, price, err := ParseItem(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseItem(%q) = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || it.Name != tc.name || price.String() != tc.price || it.Quantity != tc.qty {
			t.Errorf("ParseItem(%q) = %+v %s %v", tc.in, it, price, err)
		}
	}
}

// FuzzParseItem: an accepted line has a non-empty UTF-8 name without
// control characters, a positive price and a quantity in range.
func FuzzParseItem(f *testing.F) {
	for _, s := range []string{"Lamp:150.00", "Tea: green:50.00:1", "a:b:c:d", ":", "x:1e3:2", "x:-1", "x:99999999999999999999999:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it, price, err := ParseItem(s)
		if err != nil {
			return
		}
		if it.Name == "" || !utf8.ValidString(it.Name) || hasControl(it.Name) || !price.IsPositive() || it.Quantity < 1 || it.Quantity > maxQuantity {
			t.Fatalf("ParseItem(%q) = %+v, %s", s, it, price)
		}
	})
}

// TestQRFitsEightyColumns: a long link of a real gateway still draws in
// 80 columns; one that does not fit says so instead.
func TestQRFitsEightyColumns(t *testing.T) {
	link := "https://provisioning.sipay.com.tr/ccpayment/purchase/link/" + strings.Repeat("a1b2c3d4", 6)
	var b strings.Builder
	if err := WriteQR(&b, link, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 || n != utf8.RuneCountInString(lines[0]) {
			t.Fatalf("line of %d columns:\n%s", n, b.String())
		}
	}
	b.Reset()
	if err := WriteQR(&b, link, 20); err != nil || !strings.HasPrefix(b.String(), "(the QR code needs ") {
		t.Errorf("narrow terminal: %q %v", b.String(), err)
	}
}
