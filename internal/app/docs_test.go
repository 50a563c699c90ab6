package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/testkit/doctest"
)

// docsDir holds the hand-written pages; docs/reference and docs/man below it
// are generated from the command tree and have no examples to run.
const docsDir = "../../docs"

// TestDocExamples runs every example of every docs/*.md page and of the
// top-level README.md (the convention is in docs/README.md and package
// doctest) with the real
// command tree, in process. Each page gets its own empty HOME and XDG
// folders, shared by its examples in order, as by a reader following along.
func TestDocExamples(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatalf("no pages in %s", docsDir)
	}
	// The top-level README's tour is run too: a newcomer follows it first.
	pages = append(pages, filepath.Join(docsDir, "..", "README.md"))
	total := 0
	for _, path := range pages {
		name := "docs/" + filepath.Base(path)
		if filepath.Dir(path) != filepath.Clean(docsDir) {
			name = filepath.Base(path)
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			page, err := doctest.Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			// A relative path in an example lands in the page's folder,
			// not in the source tree.
			dir := t.TempDir()
			t.Chdir(dir)
			ran, failure := runPage(t.Context(), page, dir)
			total += ran
			if failure != "" {
				t.Fatal(failure)
			}
			t.Logf("%s: %d examples run, %d block(s) marked untested", name, ran, page.Untested)
		})
	}
	t.Logf("%d examples run in %d pages", total, len(pages))
}

// runPage runs a page's examples in order until one fails, and returns how
// many passed and the failure, naming the page's file and line.
func runPage(ctx context.Context, page *doctest.Page, dir string) (int, string) {
	home := filepath.Join(dir, "home")
	sh := &docShell{
		home: home,
		env: map[string]string{
			"HOME":            home,
			"XDG_CONFIG_HOME": home + "/.config",
			"XDG_CACHE_HOME":  home + "/.cache",
			"XDG_STATE_HOME":  home + "/.local/state",
		},
	}
	for i, ex := range page.Examples {
		out, code, err := sh.run(ctx, ex.Command)
		if err != nil {
			return i, fmt.Sprintf("%s: $ %s\n%v", ex.Where(), ex.Command, err)
		}
		got := doctest.Lines(out)
		ok, err := doctest.Match(ex.Want, got)
		if err != nil {
			return i, fmt.Sprintf("%s: %v", ex.Where(), err)
		}
		if !ok || code != ex.ExitCode {
			var b strings.Builder
			fmt.Fprintf(&b, "%s: $ %s\n", ex.Where(), ex.Command)
			if code != ex.ExitCode {
				fmt.Fprintf(&b, "exit code %d, the page says %d", code, ex.ExitCode)
				if ex.ExitCode == 0 {
					b.WriteString(" (add \"# exit N\" to the command if that is intended)")
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "--- the page shows:\n%s\n--- paycli printed:\n%s", strings.Join(ex.Want, "\n"), strings.Join(got, "\n"))
			return i, b.String()
		}
	}
	return len(page.Examples), ""
}

// docShell runs the few shell forms the pages use: `paycli ...` through
// app.Run, `export NAME=VALUE`, `unset NAME`, `echo`, `printf` (%s, \n,
// \t), `cat`, pipes between them and a final `> FILE`. Output naming the
// page's home folder shows it as "~", as the pages do.
type docShell struct {
	home string
	env  map[string]string
}

func (s *docShell) lookupEnv(name string) (string, bool) {
	v, ok := s.env[name]
	return v, ok
}

func (s *docShell) run(ctx context.Context, line string) (string, int, error) {
	line, err := s.substitute(ctx, line)
	if err != nil {
		return "", 0, err
	}
	words, _, err := doctest.Split(line)
	if err != nil {
		return "", 0, err
	}
	// "> FILE" at the end sends the last command's stdout to FILE, with
	// mode 0644 as a shell with the usual umask 022 makes it, whatever the
	// umask of the test (the pages show paycli's warning about such files).
	var redirect string
	if n := len(words); n >= 2 && words[n-2].Redirect {
		redirect = words[n-1].Value(func(name string) string { return s.env[name] })
		words = words[:n-2]
	}
	var stages [][]string
	var cur []string
	for _, w := range words {
		if w.Redirect {
			return "", 0, fmt.Errorf("> is supported only as the last thing on the line: > FILE")
		}
		if w.Pipe {
			stages, cur = append(stages, cur), nil
			continue
		}
		cur = append(cur, w.Value(func(name string) string { return s.env[name] }))
	}
	stages = append(stages, cur)

	var combined bytes.Buffer
	var stdin []byte
	code := 0
	for i, args := range stages {
		if len(args) == 0 {
			return "", 0, fmt.Errorf("empty command in a pipe")
		}
		out := io.Writer(&combined)
		var piped bytes.Buffer
		if i < len(stages)-1 || redirect != "" {
			out = &piped
		}
		code, err = s.runOne(ctx, args, stdin, out, &combined)
		if err != nil {
			return "", 0, err
		}
		stdin = piped.Bytes()
	}
	if redirect != "" {
		err := os.WriteFile(redirect, stdin, 0o644)
		if err == nil {
			err = os.Chmod(redirect, 0o644)
		}
		if err != nil {
			fmt.Fprintf(&combined, "%s: cannot write\n", redirect)
			code = 1
		}
	}
	return strings.ReplaceAll(combined.String(), s.home, "~"), code, nil
}

// commandSubstitution finds $(COMMAND) with no parentheses inside.
var commandSubstitution = regexp.MustCompile(`\$\(([^()]*)\)`)

// substitute replaces each $(COMMAND) in line with what COMMAND prints on
// stdout, trailing newlines removed, as a shell does; the pages use it to
// keep a token in a variable (export T=$(paycli sandbox wallet-token ...)).
// The result is pasted into the line before it is split into words, so it
// must not need quoting (tokens, ids): a command that fails, or prints
// something with spaces or quotes, fails the example.
func (s *docShell) substitute(ctx context.Context, line string) (string, error) {
	var failure error
	out := commandSubstitution.ReplaceAllStringFunc(line, func(m string) string {
		inner := commandSubstitution.FindStringSubmatch(m)[1]
		words, _, err := doctest.Split(inner)
		if err != nil {
			failure = err
			return ""
		}
		var args []string
		for _, w := range words {
			if w.Pipe || w.Redirect {
				failure = fmt.Errorf("$(%s): only a single command is supported inside $( )", inner)
				return ""
			}
			args = append(args, w.Value(func(name string) string { return s.env[name] }))
		}
		var stdout, stderr bytes.Buffer
		code, err := s.runOne(ctx, args, nil, &stdout, &stderr)
		if err == nil && code != 0 {
			err = fmt.Errorf("$(%s) exited %d: %s", inner, code, stderr.String())
		}
		text := strings.TrimRight(stdout.String(), "\n")
		if err == nil && strings.ContainsAny(text, " \t\n'\"\\$|>#") {
			err = fmt.Errorf("$(%s) printed %q, which would need quoting", inner, text)
		}
		if err != nil {
			failure = err
			return ""
		}
		return text
	})
	return out, failure
}

func (s *docShell) runOne(ctx context.Context, args []string, stdin []byte, out, errOut io.Writer) (int, error) {
	switch args[0] {
	case "paycli":
		ios, _, _, _ := iostreams.Test()
		ios.In, ios.Out, ios.ErrOut = bytes.NewReader(stdin), out, errOut
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		return app.Run(ctx, args[1:], ios, s.lookupEnv), nil
	case "export":
		for _, a := range args[1:] {
			name, value, ok := strings.Cut(a, "=")
			if !ok {
				return 0, fmt.Errorf("export %s: write export NAME=VALUE", a)
			}
			s.env[name] = value
		}
		return 0, nil
	case "unset":
		for _, a := range args[1:] {
			delete(s.env, a)
		}
		return 0, nil
	case "echo":
		fmt.Fprintln(out, strings.Join(args[1:], " "))
		return 0, nil
	case "printf":
		if len(args) < 2 {
			return 0, fmt.Errorf("printf: write printf FORMAT [ARG...]")
		}
		fmt.Fprint(out, shellPrintf(args[1], args[2:]))
		return 0, nil
	case "cat":
		if len(args) == 1 {
			_, err := out.Write(stdin)
			return 0, err
		}
		for _, name := range args[1:] {
			data, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintf(errOut, "cat: %s: no such file\n", strings.ReplaceAll(name, s.home, "~"))
				return 1, nil
			}
			if _, err := out.Write(data); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%s: the docs' examples can run paycli, export, unset, echo, printf and cat (with | and > FILE); show other programs in a ```sh untested block", args[0])
}

// shellPrintf is printf(1) for the formats the pages need: %s, %%, \n and
// \t; the format is reused while arguments remain, as printf(1) does.
func shellPrintf(format string, args []string) string {
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format) && format[i+1] == 'n':
				b.WriteByte('\n')
				i++
			case c == '\\' && i+1 < len(format) && format[i+1] == 't':
				b.WriteByte('\t')
				i++
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%' && i+1 < len(format) && format[i+1] == 's':
				if used < len(args) {
					b.WriteString(args[used])
				}
				used++
				i++
			default:
				b.WriteByte(c)
			}
		}
		args = args[min(used, len(args)):]
		if used == 0 || len(args) == 0 {
			return b.String()
		}
	}
}

// TestDocExampleFailuresNameTheLine checks the harness itself: a page whose
// example is wrong fails with its file and line, and a right one passes.
func TestDocExampleFailuresNameTheLine(t *testing.T) {
	tests := []struct {
		name string
		page string
		want string // "" = passes
	}{
		{
			name: "passes",
			page: "# t\n\n```console\n$ paycli hash generate --plaintext 'a|b' --iv 1234567890123456 --salt abcd   # exit 2\nerror: no app_secret .* (re)\n...\n```\n",
		},
		{
			name: "wrong output",
			page: "# t\n\n```console\n$ echo hello\nhullo\n```\n",
			want: "docs/t.md:4: $ echo hello\n--- the page shows:\nhullo\n--- paycli printed:\nhello",
		},
		{
			name: "unexpected exit code",
			page: "text\n\n```console\n$ export PAYCLI_OUTPUT=xml\n$ paycli config list\n...\n```\n",
			want: "docs/t.md:5: $ paycli config list\nexit code 2, the page says 0 (add \"# exit N\"",
		},
		{
			name: "command substitution",
			page: "```console\n$ export V=$(echo one-two)\n$ echo [$V]\n[one-two]\n```\n",
		},
		{
			name: "command substitution that needs quoting",
			page: "```console\n$ export V=$(echo one two)\n```\n",
			want: "docs/t.md:2: $ export V=$(echo one two)\n$(echo one two) printed \"one two\", which would need quoting",
		},
		{
			name: "command substitution that fails",
			page: "```console\n$ export V=$(paycli version -o xml)\n```\n",
			want: "docs/t.md:2: $ export V=$(paycli version -o xml)\n$(paycli version -o xml) exited 2",
		},
		{
			name: "unknown program",
			page: "```console\n$ curl -s http://127.0.0.1/\n```\n",
			want: "docs/t.md:2: $ curl -s http://127.0.0.1/\ncurl: the docs' examples can run paycli",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := doctest.Parse("docs/t.md", []byte(tt.page))
			if err != nil {
				t.Fatal(err)
			}
			_, failure := runPage(t.Context(), page, t.TempDir())
			if tt.want == "" {
				if failure != "" {
					t.Fatalf("failed:\n%s", failure)
				}
				return
			}
			if !strings.HasPrefix(failure, tt.want) {
				t.Fatalf("failure:\n%s\nwant it to start with:\n%s", failure, tt.want)
			}
		})
	}
}
