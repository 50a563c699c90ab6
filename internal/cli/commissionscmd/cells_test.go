package commissionscmd

import "testing"

// TestInstallmentsText: the odd cents the first installment carries are
// shown, not hidden behind "3×416.83" (issue 34, part 2, item 2).
func TestInstallmentsText(t *testing.T) {
	for _, tc := range []struct {
		n           int
		first, each string
		want        string
	}{
		{3, "416.84", "416.83", "416.84 + 2×416.83"},
		{2, "625.26", "625.25", "625.26 + 625.25"},
		{12, "104.30", "104.20", "104.30 + 11×104.20"},
		{4, "250.00", "250.00", "4×250.00"},
		{1, "1,250.50", "1,250.50", "1×1,250.50"},
	} {
		if got := installmentsText(tc.n, tc.first, tc.each); got != tc.want {
			t.Errorf("installmentsText(%d, %s, %s) = %q, want %q", tc.n, tc.first, tc.each, got, tc.want)
		}
	}
}

// TestPercentText: percentages read one way, two decimals at least
// (issue 34, part 2, item 8: "2.6%" beside "2.45%").
func TestPercentText(t *testing.T) {
	for in, want := range map[string]string{"2.6": "2.60", "2.45": "2.45", "2": "2.00", "0": "0.00", "3.125": "3.125", "-0.5": "-0.50", "10": "10.00"} {
		if got := percentText(in); got != want {
			t.Errorf("percentText(%q) = %q, want %q", in, got, want)
		}
	}
}
