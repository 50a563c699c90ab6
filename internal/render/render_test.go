package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

var (
	header = []string{"PROGRAM", "RATE", "NOTE"}
	rows   = [][]string{
		{"BONUS", "1.75%", ""},
		{"WORLD", "12.50% + 0.25", "Şükrü, \"quoted\""},
		{"AXESS", "–", "tab\there"},
	}
)

func TestWriteTablePlain(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, TableOptions{RightAlign: []int{1}}, header, rows); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d has trailing blanks: %q", i+1, line)
		}
	}
	golden(t, "table.golden", buf.Bytes())
}

func TestWriteTableColourOnlyWhenEnabled(t *testing.T) {
	var off, on bytes.Buffer
	if err := WriteTable(&off, TableOptions{}, header, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(off.String(), "\x1b[") {
		t.Errorf("colour off but output has escape codes:\n%q", off.String())
	}
	if err := WriteTable(&on, TableOptions{Palette: Palette{Enabled: true}}, header, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(on.String(), "\x1b[1mPROGRAM\x1b[22m") {
		t.Errorf("colour on but header is not bold:\n%q", on.String())
	}
	for _, line := range strings.Split(strings.TrimSuffix(on.String(), "\n"), "\n") {
		if strings.HasSuffix(strings.TrimSuffix(line, "\x1b[0m"), " ") {
			t.Errorf("coloured line has trailing blanks: %q", line)
		}
	}
}

func TestWriteRecords(t *testing.T) {
	var csvBuf, tsvBuf bytes.Buffer
	if err := WriteRecords(&csvBuf, CSV, header, rows); err != nil {
		t.Fatal(err)
	}
	golden(t, "records.csv", csvBuf.Bytes())
	if err := WriteRecords(&tsvBuf, TSV, header, rows); err != nil {
		t.Fatal(err)
	}
	golden(t, "records.tsv", tsvBuf.Bytes())
}

func TestWriteJSONKeepsTextReadable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, map[string]string{"title": "Taksit <3> & İade"}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"title\": \"Taksit <3> & İade\"\n}\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	if err := WriteJSONLine(&buf, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "[1,2]\n" {
		t.Errorf("JSON line: got %q", buf.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"table", "json", "csv", "tsv"} {
		if f, err := ParseFormat(ok); err != nil || string(f) != ok {
			t.Errorf("ParseFormat(%q) = %q, %v", ok, f, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "table, json, csv or tsv") {
		t.Errorf("ParseFormat(yaml) error = %v", err)
	}
}

func TestPaletteObeysDecisionNotGlobal(t *testing.T) {
	if got := (Palette{Enabled: false}).Red("x"); got != "x" {
		t.Errorf("disabled palette coloured: %q", got)
	}
	if got := (Palette{Enabled: true}).Red("x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("enabled palette: %q", got)
	}
}

// TestWriteJSONIsTheEncodersIndent: WriteJSON writes exactly what a
// json.Encoder with SetEscapeHTML(false) and SetIndent("", "  ") writes.
func TestWriteJSONIsTheEncodersIndent(t *testing.T) {
	for _, v := range []any{
		nil, 1.5, "a <b> & c", []int{}, map[string]any{},
		map[string]any{"b": []any{1, "x", nil, map[string]any{"c": []string{}}}, "a": json.RawMessage(`{"k" : [ 1 ,2 ]}`), "u": "İade\u2028"},
		[]map[string]int{{"x": 1}, {"y": 2}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("WriteJSON(%#v):\n%s\nwant\n%s", v, got.Bytes(), want.Bytes())
		}
	}
}
