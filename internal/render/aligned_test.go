package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// writeAligned must write tablewriter's bytes for every table it takes:
// random tables of mixed text (wide, ambiguous and combining characters,
// blanks at either end, empty cells and columns), every alignment.
func TestWriteAlignedMatches(t *testing.T) {
	pieces := []string{"a", "Z", "7", ".", "%", " ", "  ", "–", "×", "é", "Ş", "中文", "😀", "e\u0301", "1,017.50", "saved card token", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 500 {
		cols := 1 + rng.IntN(6)
		header := make([]string, cols)
		for c := range header {
			header[c] = text()
		}
		rows := make([][]string, rng.IntN(5))
		for r := range rows {
			rows[r] = make([]string, cols)
			for c := range rows[r] {
				rows[r][c] = text()
			}
		}
		var align []int
		for c := range cols {
			if rng.IntN(2) == 0 {
				align = append(align, c)
			}
		}
		opts := TableOptions{RightAlign: append(align, -1, cols), RightAlignHeader: rng.IntN(2) == 0}
		if !alignable(header, rows) {
			t.Fatalf("table %d: not alignable", i)
		}
		var got, want bytes.Buffer
		if err := writeAligned(&got, opts, header, rows); err != nil {
			t.Fatal(err)
		}
		if err := writeTablewriter(&want, opts, header, rows); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("table %d (%q %q, %+v):\n got %q\nwant %q", i, header, rows, opts, got.String(), want.String())
		}
	}
}

// Tables writeAligned does not take go through tablewriter.
func TestAlignable(t *testing.T) {
	tests := []struct {
		header []string
		rows   [][]string
		want   bool
	}{
		{[]string{"A", "B"}, [][]string{{"1", "–"}}, true},
		{[]string{"A", "B"}, nil, true},
		{nil, nil, false},
		{[]string{"A", "B"}, [][]string{{"1"}}, false},
		{[]string{"A", "B"}, [][]string{{"1", "2", "3"}}, false},
		{[]string{"A", "B"}, [][]string{{"1", "two\nlines"}}, false},
		{[]string{"A", "B"}, [][]string{{"1", "tab\there"}}, false},
		{[]string{"A", "\x1b[1mB\x1b[0m"}, nil, false},
		{[]string{"A", "B\x7f"}, nil, false},
	}
	for _, tt := range tests {
		if got := alignable(tt.header, tt.rows); got != tt.want {
			t.Errorf("alignable(%q, %q) = %v, want %v", tt.header, tt.rows, got, tt.want)
		}
	}
}

// BenchmarkWriteTable compares the two writers on a commissions-sized
// matrix (40 programs × 12 installment counts).
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
	opts := TableOptions{RightAlign: align, RightAlignHeader: true}
	for _, bench := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"aligned", func(w *bytes.Buffer) error { return writeAligned(w, opts, header, rows) }},
		{"tablewriter", func(w *bytes.Buffer) error { return writeTablewriter(w, opts, header, rows) }},
	} {
		b.Run(bench.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := bench.write(&buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
