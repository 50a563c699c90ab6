package render

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

func fitted(t *testing.T, opts TableOptions, header []string, rows [][]string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTable(&b, opts, header, rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFitRule pins each step of the one rule that fits a table to a
// terminal, in order.
func TestFitRule(t *testing.T) {
	header := []string{"N", "BUYER TOTAL", "NOTE"}
	rows := [][]string{{"1", "6,000.00", "paid at the desk by card"}, {"12", "500.00", "ok"}}
	for _, tt := range []struct {
		name string
		opts TableOptions
		want string
	}{
		{"fits as it is", TableOptions{MaxWidth: 41},
			"N   BUYER TOTAL  NOTE\n" +
				"1   6,000.00     paid at the desk by card\n" +
				"12  500.00       ok\n"},
		{"headers wrap first", TableOptions{MaxWidth: 40, RightAlign: []int{1}},
			"N   BUYER     NOTE\n" +
				"    TOTAL\n" +
				"1   6,000.00  paid at the desk by card\n" +
				"12    500.00  ok\n"},
		{"then free text wraps", TableOptions{MaxWidth: 30, Wrap: []int{2}},
			"N   BUYER     NOTE\n" +
				"    TOTAL\n" +
				"1   6,000.00  paid at the desk\n" +
				"              by card\n" +
				"12  500.00    ok\n"},
		{"then low-value columns go", TableOptions{MaxWidth: 34, Drop: []int{0}},
			"BUYER     NOTE\n" +
				"TOTAL\n" +
				"6,000.00  paid at the desk by card\n" +
				"500.00    ok\n"},
		{"then one block per row", TableOptions{MaxWidth: 30},
			"N            1\n" +
				"BUYER TOTAL  6,000.00\n" +
				"NOTE         paid at the desk\n" +
				"             by card\n" +
				"\n" +
				"N            12\n" +
				"BUYER TOTAL  500.00\n" +
				"NOTE         ok\n"},
		{"values under their names when narrower still", TableOptions{MaxWidth: 20},
			"N\n  1\nBUYER TOTAL\n  6,000.00\nNOTE\n  paid at the desk\n  by card\n" +
				"\n" +
				"N\n  12\nBUYER TOTAL\n  500.00\nNOTE\n  ok\n"},
		{"a matrix splits into blocks of columns", TableOptions{MaxWidth: 30, KeepColumns: 1},
			"N   BUYER TOTAL\n" +
				"1   6,000.00\n" +
				"12  500.00\n" +
				"\n" +
				"N   NOTE\n" +
				"1   paid at the desk by card\n" +
				"12  ok\n"},
		{"no width: the whole table", TableOptions{Wrap: []int{2}, Drop: []int{0}},
			"N   BUYER TOTAL  NOTE\n" +
				"1   6,000.00     paid at the desk by card\n" +
				"12  500.00       ok\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := fitted(t, tt.opts, header, rows); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestFitMatrixBlocks(t *testing.T) {
	header := []string{"PROGRAM", "ONE", "TWO"}
	rows := [][]string{{"Bonus", "1.75%", "3.45%"}}
	got := fitted(t, TableOptions{MaxWidth: 16, KeepColumns: 1}, header, rows)
	want := "PROGRAM  ONE\nBonus    1.75%\n\nPROGRAM  TWO\nBonus    3.45%\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWrapTextBreaksAtSeparators(t *testing.T) {
	for _, tt := range []struct {
		in    string
		width int
		want  string
	}{
		{"total|installment|currency_code", 20, "total|installment|\ncurrency_code"},
		{"https://example.com/ccpayment", 20, "https://example.com/\nccpayment"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"short", 10, "short"},
		{"2026-11-25 21:19:12 +00:00", 22, "2026-11-25\n21:19:12 +00:00"},
		{"card payments (2D, 3D, pre-authorization)", 16, "card payments\n(2D, 3D, pre-\nauthorization)"},
		{"two words", 5, "two\nwords"},
	} {
		if got := wrapText(tt.in, tt.width); got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

// TestFittedTablesFit: whatever the table, every line of it fits the
// width it was given, and colour changes no line's width.
func TestFittedTablesFit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "INVOICE", "6,000.00", "2026-11-25 21:19:12 +03:00", "declined by the issuer",
		"VP17956415523821299", "total|installment|currency_code|merchant_key", "ş", "435508******4358"}
	for i := range 150 {
		cols := 1 + r.IntN(9)
		header := make([]string, cols)
		for c := range header {
			header[c] = strings.ToUpper(words[r.IntN(len(words))])
		}
		rows := make([][]string, 1+r.IntN(4))
		for ri := range rows {
			rows[ri] = make([]string, cols)
			for c := range rows[ri] {
				rows[ri][c] = words[r.IntN(len(words))]
			}
		}
		width := 20 + r.IntN(80)
		opts := TableOptions{MaxWidth: width, Wrap: []int{r.IntN(cols)}, Drop: []int{r.IntN(cols)}}
		for _, colour := range []bool{false, true} {
			opts.Palette = Palette{Enabled: colour}
			out := fitted(t, opts, header, rows)
			for line := range strings.Lines(out) {
				if w := twwidth.Width(stripANSI(strings.TrimSuffix(line, "\n"))); w > width {
					t.Fatalf("table %d, width %d, colour %v: a line is %d wide:\n%s", i, width, colour, w, out)
				}
			}
		}
	}
}

// TestFitShortens: a Shorten column is cut to one line ending in "…"
// rather than wrapped, after the low-value columns made room for a phrase
// of it; when even the phrase cannot fit, every low-value column goes and
// the text takes what is left.
func TestFitShortens(t *testing.T) {
	header := []string{"WHEN", "CODE", "WHY"}
	rows := [][]string{{"07:49:01", "41", "Payment failed; payment_reason_code 51 (Insufficient funds)"}, {"07:50:00", "100", ""}}
	for _, tt := range []struct {
		width int
		want  string
	}{
		{40, "WHEN      CODE  WHY\n" +
			"07:49:01    41  Payment failed; payment…\n" +
			"07:50:00   100\n"},
		{34, "WHEN      WHY\n" +
			"07:49:01  Payment failed; payment…\n" +
			"07:50:00\n"},
		{24, "WHEN      WHY\n" +
			"07:49:01  Payment faile…\n" +
			"07:50:00\n"},
	} {
		got := fitted(t, TableOptions{MaxWidth: tt.width, RightAlign: []int{1}, Shorten: []int{2}, Drop: []int{1}}, header, rows)
		if got != tt.want {
			t.Errorf("at %d columns:\n%s\nwant:\n%s", tt.width, got, tt.want)
		}
	}
}
