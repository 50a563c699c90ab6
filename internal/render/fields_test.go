package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func TestWriteFields(t *testing.T) {
	fs := []Field{
		{Name: "status", JSON: json.RawMessage(`1`), Text: "1"},
		{Name: "amount", JSON: json.RawMessage(`12.3500`), Text: "12.3500"},
		{Name: "note", JSON: json.RawMessage(`"a, b"`), Text: "a, b"},
		{Name: "none"},
	}
	tests := []struct {
		format Format
		want   string
	}{
		{JSON, "{\n  \"status\": 1,\n  \"amount\": 12.3500,\n  \"note\": \"a, b\",\n  \"none\": null\n}\n"},
		{CSV, "status,amount,note,none\n1,12.3500,\"a, b\",\n"},
		{Table, "FIELD   VALUE\nstatus  1\namount  12.3500\nnote    a, b\nnone\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteFields(&b, tt.format, TableOptions{}, fs); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.format, b.String(), tt.want)
		}
	}
}

func TestOmitEmpty(t *testing.T) {
	fs := []Field{StringField("a", "x"), StringField("b", ""), IntField("c", 0), {Name: "d", JSON: json.RawMessage(`null`)}}
	names := func(fs []Field) (s []string) {
		for _, f := range fs {
			s = append(s, f.Name)
		}
		return s
	}
	if got := names(OmitEmpty(fs, Table)); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("table keeps %v", got)
	}
	for _, f := range []Format{JSON, CSV, TSV} {
		if got := names(OmitEmpty(fs, f)); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
			t.Errorf("%s keeps %v", f, got)
		}
	}
}
