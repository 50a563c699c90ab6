package doctest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	page := "# Title\n" + // 1
		"\n" + // 2
		"```console\n" + // 3
		"$ paycli version\n" + // 4
		"paycli 1.0\n" + // 5
		"\n" + // 6
		"$ paycli hash generate \\\n" + // 7
		"    --plaintext 'a|b'   # exit 2\n" + // 8
		"error: ...\n" + // 9
		"```\n" + // 10
		"```sh untested\n" + // 11
		"paycli sandbox serve\n" + // 12
		"```\n" + // 13
		"```go\n" + // 14
		"$ not a command\n" + // 15
		"```\n" + // 16
		"```sh\n" + // 17
		"curl -s http://127.0.0.1/\n" + // 18
		"```\n" + // 19
		"```\n" + // 20
		"paycli 1.0 (output that names paycli)\n" + // 21
		"```\n" + // 22
		"- in a list:\n" + // 23
		"  ```console\n" + // 24
		"  $ paycli token\n" + // 25
		"    indented output\n" + // 26
		"  ```\n"
	got, err := Parse("docs/p.md", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := &Page{
		Examples: []Example{
			{File: "docs/p.md", Line: 4, Command: "paycli version", Want: []string{"paycli 1.0", ""}},
			{File: "docs/p.md", Line: 7, Command: "paycli hash generate --plaintext 'a|b'", ExitCode: 2, Want: []string{"error: ..."}},
			{File: "docs/p.md", Line: 25, Command: "paycli token", Want: []string{"  indented output"}},
		},
		Untested: 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{"untested paycli in sh", "x\n```sh\npaycli token\n```\n", "docs/p.md:2: a code block runs paycli but is not tested"},
		{"command substitution in bash", "```bash\nT=$(paycli token)\n```\n", "docs/p.md:1: a code block runs paycli"},
		{"transcript in an untagged block", "```\n$ paycli token\n```\n", "docs/p.md:1: a code block runs paycli"},
		{"transcript in a text block", "```text\n$ paycli token\n```\n", "docs/p.md:1: a code block runs paycli"},
		{"output before command", "```console\nhello\n```\n", "docs/p.md:2: output before any command"},
		{"other comment", "```console\n$ paycli token # see below\n```\n", "docs/p.md:2: comment \"see below\""},
		{"unclosed fence", "a\n```console\n$ paycli token\n", "docs/p.md:2: code block never closed"},
		{"continued to the end", "```console\n$ paycli token \\\n```\n", "docs/p.md:2: command continued"},
		{"unterminated quote", "```console\n$ paycli 'token\n```\n", "docs/p.md:2: unterminated '"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("docs/p.md", []byte(tt.page))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to start with %q", err, tt.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	env := map[string]string{"HOME": "/h", "X": "x y"}
	lookup := func(name string) string { return env[name] }
	tests := []struct {
		line    string
		words   []string
		comment string
	}{
		{`paycli  version`, []string{"paycli", "version"}, ""},
		{`paycli hash generate --plaintext '100.00|1|$X' # exit 2`, []string{"paycli", "hash", "generate", "--plaintext", "100.00|1|$X"}, "exit 2"},
		{`echo "$X" $X ${X}z '$X' \$X "\$X"`, []string{"echo", "x y", "x y", "x yz", "$X", "$X", "$X"}, ""},
		{`cat ~/.config/a ~ a~b`, []string{"cat", "/h/.config/a", "/h", "a~b"}, ""},
		{`export C=~/c D=a~`, []string{"export", "C=/h/c", "D=a~"}, ""},
		{`echo a|paycli x | cat`, []string{"echo", "a", "|", "paycli", "x", "|", "cat"}, ""},
		{`echo a#b "#" $UNSET.`, []string{"echo", "a#b", "#", "."}, ""},
		{`echo '' "" x`, []string{"echo", "", "", "x"}, ""},
		{`printf 'a>b' >~/f`, []string{"printf", "a>b", ">", "/h/f"}, ""},
	}
	for _, tt := range tests {
		words, comment, err := Split(tt.line)
		if err != nil {
			t.Errorf("Split(%q): %v", tt.line, err)
			continue
		}
		var got []string
		for _, w := range words {
			got = append(got, w.Value(lookup))
		}
		if !reflect.DeepEqual(got, tt.words) || comment != tt.comment {
			t.Errorf("Split(%q) = %q, comment %q; want %q, %q", tt.line, got, comment, tt.words, tt.comment)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name      string
		want, got string
		ok        bool
	}{
		{"exact", "a\nb", "a\nb\n", true},
		{"trailing spaces and blank lines", "a  \nb\n\n", "a\nb   \n\n", true},
		{"differs", "a\nb", "a\nc", false},
		{"missing line", "a\nb", "a", false},
		{"extra line", "a", "a\nb", false},
		{"ellipsis: none", "a\n...\nb", "a\nb", true},
		{"ellipsis: many", "a\n...\nb", "a\nx\ny\nb", true},
		{"ellipsis at the end", "a\n...", "a\nx\ny", true},
		{"ellipsis needs what follows", "...\nz", "a\nb", false},
		{"ellipsis backtracks", "...\nb\nc", "b\nx\nb\nc", true},
		{"regex", `[0-9a-f]{4}:\w+ (re)`, "0f1e:abc", true},
		{"regex is anchored", `[0-9]+ (re)`, "12a", false},
		{"regex alternation is anchored", `a|b (re)`, "ab", false},
		{"dots are literal outside ...", "a.c", "abc", false},
		{"empty", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := Match(strings.Split(tt.want, "\n"), strings.Split(tt.got, "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok {
				t.Fatalf("Match(%q, %q) = %v, want %v", tt.want, tt.got, ok, tt.ok)
			}
		})
	}
	if _, err := Match([]string{"a( (re)"}, []string{"a("}); err == nil {
		t.Fatal("a bad expression is not an error")
	}
}
