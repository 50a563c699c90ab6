package cmdutil

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/render"
)

// runJSONCmd runs a command that writes doc through AddJSONFlags, with a
// root carrying -o as paycli's root does.
func runJSONCmd(t *testing.T, doc any, args ...string) (format render.Format, stdout string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "paycli", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().StringP("output", "o", "table", "")
	var out bytes.Buffer
	cmd := &cobra.Command{Use: "show", RunE: func(cmd *cobra.Command, args []string) error { return nil }}
	jf := AddJSONFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		f, err := jf.Format(func() (render.Format, error) {
			o, _ := cmd.Flags().GetString("output")
			return render.ParseFormat(o)
		})()
		if err != nil {
			return err
		}
		format = f
		if f != render.JSON {
			return nil
		}
		return jf.Write(cmd.Context(), &out, doc)
	}
	root.AddCommand(cmd)
	root.SetArgs(append([]string{"show"}, args...))
	err = root.ExecuteContext(context.Background())
	return format, out.String(), err
}

func TestJSONFlags(t *testing.T) {
	doc := map[string]any{"a": "text", "n": uint64(12345678901234567890), "list": []int{1, 2}}
	tests := []struct {
		name       string
		args       []string
		wantFormat render.Format
		wantOut    string
		wantKind   Kind
		wantErr    string
	}{
		{"no jq keeps the format", nil, render.Table, "", 0, ""},
		{"-o json prints indented JSON", []string{"-o", "json"}, render.JSON,
			"{\n  \"a\": \"text\",\n  \"list\": [\n    1,\n    2\n  ],\n  \"n\": 12345678901234567890\n}\n", 0, ""},
		{"--jq implies json, strings unquoted", []string{"--jq", ".a"}, render.JSON, "text\n", 0, ""},
		{"--jq with -o json", []string{"-o", "json", "--jq", ".list"}, render.JSON, "[1,2]\n", 0, ""},
		{"big numbers are kept exactly", []string{"--jq", ".n"}, render.JSON, "12345678901234567890\n", 0, ""},
		{"several results, one per line", []string{"--jq", ".list[]"}, render.JSON, "1\n2\n", 0, ""},
		{"halt keeps what came before", []string{"--jq", ".a, halt, .n"}, render.JSON, "text\n", 0, ""},
		{"a runtime error prints nothing", []string{"--jq", `.a, error("boom")`}, render.JSON, "", KindUnexpected, "--jq: error: boom"},
		{"a parse error is a usage error", []string{"--jq", ".["}, "", "", KindUsage, "invalid --jq expression"},
		{"an undefined function is a usage error", []string{"--jq", "nosuch(1)"}, "", "", KindUsage, "invalid --jq expression"},
		{"-o table with --jq is refused", []string{"-o", "table", "--jq", "."}, "", "", KindUsage, "cannot be combined with -o table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			format, out, err := runJSONCmd(t, doc, tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if kind, _ := KindOf(err); kind != tt.wantKind {
					t.Errorf("kind = %v, want %v", kind, tt.wantKind)
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			}
			if format != tt.wantFormat {
				t.Errorf("format = %q, want %q", format, tt.wantFormat)
			}
			if out != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out, tt.wantOut)
			}
		})
	}
}

func TestJSONFlagsNilWritesJSON(t *testing.T) {
	var j *JSONFlags
	var out bytes.Buffer
	if err := j.WriteLine(context.Background(), &out, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"a\":1}\n" {
		t.Errorf("WriteLine = %q", out.String())
	}
	if j.Filtering() {
		t.Error("a nil JSONFlags filters")
	}
}

func TestJSONFlagsKeepsEarlierPreRunE(t *testing.T) {
	ran := false
	cmd := &cobra.Command{Use: "x", PreRunE: func(*cobra.Command, []string) error { ran = true; return nil }, RunE: func(*cobra.Command, []string) error { return nil }}
	AddJSONFlags(cmd)
	cmd.SetArgs([]string{"--jq", "."})
	if err := cmd.Execute(); err != nil || !ran {
		t.Fatalf("err %v, earlier PreRunE ran %v", err, ran)
	}
}

// TestFlagOutputFormat: the one-value commands take their format from -o
// on the command line only, and --jq still means JSON.
func TestFlagOutputFormat(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want render.Format
	}{
		{"nothing given is table, whatever the flag's default", nil, render.Table},
		{"-o json", []string{"-o", "json"}, render.JSON},
		{"-o csv", []string{"-o", "csv"}, render.CSV},
		{"--jq is json", []string{"--jq", "."}, render.JSON},
		{"an -o equal to the default still counts as given", []string{"--output", "table"}, render.Table},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := &cobra.Command{Use: "paycli", SilenceErrors: true, SilenceUsage: true}
			root.PersistentFlags().StringP("output", "o", "json", "")
			cmd := &cobra.Command{Use: "value"}
			jf := AddJSONFlags(cmd)
			var got render.Format
			cmd.RunE = func(cmd *cobra.Command, args []string) error {
				var err error
				got, err = jf.Format(FlagOutputFormat(cmd))()
				return err
			}
			root.AddCommand(cmd)
			root.SetArgs(append([]string{"value"}, tt.args...))
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("format %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFlagOutputFormatRefusesAnUnknownFormat(t *testing.T) {
	cmd := &cobra.Command{Use: "value"}
	cmd.Flags().StringP("output", "o", "table", "")
	if err := cmd.Flags().Set("output", "xml"); err != nil {
		t.Fatal(err)
	}
	_, err := FlagOutputFormat(cmd)()
	if kind, _ := KindOf(err); kind != KindUsage || !strings.Contains(err.Error(), `unknown output format "xml"`) {
		t.Errorf("err %v (kind %v), want a usage error naming xml", err, kind)
	}
}

// TestWriteFieldsFiltersWhatJSONShows: --jq is given the fields as -o json
// prints them, an invoice_id that is a card number masked and order_no
// whole, not the fields as the command made them.
func TestWriteFieldsFiltersWhatJSONShows(t *testing.T) {
	code, err := CompileJQ(".invoice_id, .order_no")
	if err != nil {
		t.Fatal(err)
	}
	j := &JSONFlags{code: code}
	fs := []render.Field{render.StringField("invoice_id", "4111111111111111"), render.StringField("order_no", "VP4012888888881881")}
	var out bytes.Buffer
	if err := j.WriteFields(context.Background(), &out, render.JSON, render.TableOptions{}, fs); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "411111******1111\nVP4012888888881881\n"; got != want {
		t.Errorf("--jq printed %q, want %q", got, want)
	}
}
