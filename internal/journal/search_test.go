package journal

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSearch: every whole line holding a needle is visited once, with its
// offset, wherever it falls against the blocks search reads; a line
// longer than any entry and a last line without its newline are not; a
// needle added while visiting is looked for from there on.
func TestSearch(t *testing.T) {
	var file bytes.Buffer
	want := map[int64]string{}
	line := func(s string, hit bool) {
		if hit {
			want[int64(file.Len())] = s
		}
		file.WriteString(s + "\n")
	}
	filler := strings.Repeat("x", 300)
	for i := 0; file.Len() < 3*searchBlock; i++ {
		hit := i%997 == 0
		s := fmt.Sprintf(`{"n":%d,"f":%q}`, i, filler)
		if hit {
			s = fmt.Sprintf(`{"n":%d,"needle":"NEEDLE","f":%q}`, i, filler)
		}
		line(s, hit)
		if file.Len() > searchBlock-200 && file.Len() < searchBlock {
			// A line across the first block's end.
			line(`{"needle":"NEEDLE","across":"`+strings.Repeat("y", 400)+`"}`, true)
		}
	}
	// The longest line an entry may have is visited.
	longest := `{"needle":"NEEDLE","pad":"`
	line(longest+strings.Repeat("p", maxLine-len(longest)-2)+`"}`, true)
	// Overlong lines, not visited: one read whole, one skipped as it is read.
	file.WriteString(`{"needle":"NEEDLE","long":"` + strings.Repeat("z", maxLine+10) + "\"}\n")
	file.WriteString(`{"needle":"NEEDLE","longer":"` + strings.Repeat("z", 4*searchBlock) + "\"}\n")
	line(`{"needle":"NEEDLE","after":"the overlong lines"}`, true)
	line(`{"added":"LATER"}`, true)
	line(`{"needle":"NEEDLE","last":true}`, true)
	file.WriteString(`{"needle":"NEEDLE","torn":`) // no newline: not visited

	needles := [][]byte{[]byte(`"NEEDLE"`)}
	got := map[int64]string{}
	err := search(context.Background(), bytes.NewReader(file.Bytes()), func() [][]byte { return needles }, func(l Line) {
		if _, seen := got[l.Off]; seen {
			t.Errorf("line at %d visited twice", l.Off)
		}
		got[l.Off] = string(l.Data)
		if strings.Contains(string(l.Data), `"after"`) {
			needles = append(needles, []byte(`"LATER"`))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("visited %d lines, want %d", len(got), len(want))
	}
	for off, s := range want {
		if got[off] != s {
			t.Errorf("at %d: got %.60q, want %.60q", off, got[off], s)
		}
	}
}
