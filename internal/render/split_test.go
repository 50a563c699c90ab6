package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteTableSplitsToMaxWidth(t *testing.T) {
	header := []string{"NAME", "ONE", "TWO", "THREE"}
	rows := [][]string{{"alpha", "1.00", "22.00", "333.00"}, {"beta", "4.00", "55.00", "666.00"}}
	opts := TableOptions{RightAlign: []int{1, 2, 3}, RightAlignHeader: true, KeepColumns: 1, MaxWidth: 20,
		Highlight: func(row, col int) bool { return row == 1 && col == 3 }}
	var plain bytes.Buffer
	if err := WriteTable(&plain, opts, header, rows); err != nil {
		t.Fatal(err)
	}
	want := "NAME    ONE    TWO\n" +
		"alpha  1.00  22.00\n" +
		"beta   4.00  55.00\n" +
		"\n" +
		"NAME    THREE\n" +
		"alpha  333.00\n" +
		"beta   666.00\n"
	if plain.String() != want {
		t.Errorf("split table:\n%s\nwant:\n%s", plain.String(), want)
	}

	// The highlight follows its cell into the second block.
	opts.Palette = Palette{Enabled: true}
	var coloured bytes.Buffer
	if err := WriteTable(&coloured, opts, header, rows); err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(coloured.String(), "\n\n")
	if len(blocks) != 2 || strings.Contains(blocks[0], "\x1b[1;32m") || !strings.Contains(blocks[1], "\x1b[1;32m666.00") {
		t.Errorf("highlight in the wrong block:\n%q", coloured.String())
	}

	// Wide enough, or no width: one table.
	for _, width := range []int{0, 80} {
		opts := TableOptions{RightAlign: []int{1, 2, 3}, KeepColumns: 1, MaxWidth: width}
		var one bytes.Buffer
		if err := WriteTable(&one, opts, header, rows); err != nil {
			t.Fatal(err)
		}
		if strings.Count(one.String(), "NAME") != 1 {
			t.Errorf("width %d: split:\n%s", width, one.String())
		}
	}
}
