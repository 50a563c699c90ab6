package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteTableHighlight(t *testing.T) {
	header := []string{"PROGRAM", "1", "2"}
	rows := [][]string{{"Axess", "1.75%", "3.45%"}, {"Bonus", "1.79%", "3.40%"}}
	cheapest := func(row, col int) bool { return (row == 0 && col == 1) || (row == 1 && col == 2) }

	var plain, plainHighlighted bytes.Buffer
	if err := WriteTable(&plain, TableOptions{RightAlign: []int{1, 2}}, header, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&plainHighlighted, TableOptions{RightAlign: []int{1, 2}, Highlight: cheapest}, header, rows); err != nil {
		t.Fatal(err)
	}
	if plain.String() != plainHighlighted.String() {
		t.Errorf("without colour Highlight changed the table:\n%s\nvs\n%s", plainHighlighted.String(), plain.String())
	}

	var on bytes.Buffer
	if err := WriteTable(&on, TableOptions{Palette: Palette{Enabled: true}, RightAlign: []int{1, 2}, Highlight: cheapest}, header, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(on.String(), "\n")
	if want := "\x1b[1;32m1.75%"; !strings.Contains(lines[1], want) || strings.Contains(lines[1], "\x1b[1;32m3.45%") {
		t.Errorf("row 1 = %q, want only 1.75%% highlighted", lines[1])
	}
	if want := "\x1b[1;32m3.40%"; !strings.Contains(lines[2], want) {
		t.Errorf("row 2 = %q, want 3.40%% highlighted", lines[2])
	}
	// Colour must not change the layout: stripped of escapes, the
	// coloured table is the plain one.
	if got := stripANSI(on.String()); got != plain.String() {
		t.Errorf("coloured table, escapes removed:\n%s\nwant\n%s", got, plain.String())
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestGroupThousands(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0", "0"}, {"999.99", "999.99"}, {"1000", "1,000"}, {"1017.50", "1,017.50"},
		{"-1234567.125", "-1,234,567.125"}, {"123456", "123,456"}, {"x", "x"}, {"", ""}, {"1e5", "1e5"},
	} {
		if got := GroupThousands(tt.in); got != tt.want {
			t.Errorf("GroupThousands(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriteTableRightAlignHeader(t *testing.T) {
	header := []string{"PROGRAM", "12"}
	rows := [][]string{{"Axess", "15.45%"}}
	var left, right bytes.Buffer
	if err := WriteTable(&left, TableOptions{RightAlign: []int{1}}, header, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&right, TableOptions{RightAlign: []int{1}, RightAlignHeader: true}, header, rows); err != nil {
		t.Fatal(err)
	}
	if want := "PROGRAM  12\nAxess    15.45%\n"; left.String() != want {
		t.Errorf("default header alignment:\n%q\nwant\n%q", left.String(), want)
	}
	if want := "PROGRAM      12\nAxess    15.45%\n"; right.String() != want {
		t.Errorf("RightAlignHeader:\n%q\nwant\n%q", right.String(), want)
	}
}
