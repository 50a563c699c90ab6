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
