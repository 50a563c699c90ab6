package render

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkWriteTable writes a commissions-sized matrix (40 programs × 12
// installment counts), without and with colour.
func BenchmarkWriteTable(b *testing.B) {
	header := []string{"PROGRAM"}
	var align []int
	for n := 1; n <= 12; n++ {
		header = append(header, fmt.Sprint(n))
		align = append(align, n)
	}
	rows := make([][]string, 40)
	for p := range rows {
		rows[p] = []string{fmt.Sprintf("Program %03d", p)}
		for n := 1; n <= 12; n++ {
			rows[p] = append(rows[p], fmt.Sprintf("%d.%02d%% + 0.25", n, p))
		}
	}
	for _, colour := range []bool{false, true} {
		opts := TableOptions{RightAlign: align, RightAlignHeader: true, Palette: Palette{Enabled: colour},
			Highlight: func(row, col int) bool { return row == col }}
		b.Run(fmt.Sprintf("colour=%v", colour), func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := WriteTable(&buf, opts, header, rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteTableLong writes the commissions long layout's shape, 480
// rows (40 programs × 12 installment counts) × 8 columns, with cells
// already built: what tablewriter alone costs for the largest table of
// the commissions budget (docs/performance.md, Commissions).
func BenchmarkWriteTableLong(b *testing.B) {
	header := []string{"INSTALLMENT", "KIND", "PROGRAM", "MERCHANT %", "MERCHANT FIXED", "USER %", "USER FIXED", "POS"}
	var rows [][]string
	for n := 1; n <= 12; n++ {
		for p := range 40 {
			rows = append(rows, []string{fmt.Sprint(n), "regular", fmt.Sprintf("Program %03d", p),
				fmt.Sprintf("%d.%02d00", n, p), "0.0000", "0", "0", fmt.Sprint(1000 + p)})
		}
	}
	opts := TableOptions{RightAlign: []int{0, 3, 4, 5, 6, 7}, RightAlignHeader: true}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteTable(&buf, opts, header, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)*len(header)), "ns/cell")
}
