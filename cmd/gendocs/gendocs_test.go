package main

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/spf13/cobra"
)

// snapshot reads every file under dir, keyed by slash path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The real tree: every command a user can run, and every help topic, has
// exactly one reference page and one man page, and nothing else has one.
func TestGenerateCoversEveryCommand(t *testing.T) {
	files, err := Generate(app.NewCommandTree)
	if err != nil {
		t.Fatal(err)
	}

	want := map[string]bool{}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		want[path.Join(completionsDir, CompletionFiles("paycli")[shell])] = true
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if c.Hidden || c.Deprecated != "" || c.Name() == "help" {
			return
		}
		want[ReferenceFile(c)] = true
		want[ManFile(c)] = true
		for _, child := range c.Commands() {
			visit(child)
		}
	}
	visit(app.NewCommandTree())

	for p := range want {
		if len(files[p]) == 0 {
			t.Errorf("no %s", p)
		}
	}
	for p := range files {
		if !want[p] {
			t.Errorf("unexpected generated file %s", p)
		}
	}
	// Topics are listed from the root's pages.
	for _, topic := range []string{"environment", "exit-codes"} {
		if !strings.Contains(string(files["docs/reference/paycli.md"]), "(paycli_"+topic+".md)") {
			t.Errorf("paycli.md does not link the %s topic", topic)
		}
		if !strings.Contains(string(files["docs/man/paycli.1"]), `\fBpaycli-`+topic+`(1)\fP`) {
			t.Errorf("paycli.1 does not list the %s topic", topic)
		}
	}
}

// Two runs give the same bytes, and nothing in them changes with the day.
func TestGenerateIsDeterministic(t *testing.T) {
	first, err := Generate(app.NewCommandTree)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Generate(app.NewCommandTree)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Fatalf("%d files, then %d", len(first), len(second))
	}
	today := []string{time.Now().Format("2-Jan-2006"), time.Now().Format("Jan 2006")}
	for p, b := range first {
		if !bytes.Equal(b, second[p]) {
			t.Errorf("%s differs between two runs", p)
		}
		for _, d := range today {
			if d != manDate().Format("Jan 2006") && strings.Contains(string(b), d) {
				t.Errorf("%s contains today's date %q", p, d)
			}
		}
		if strings.Contains(string(b), "Auto generated") {
			t.Errorf("%s has cobra's auto-generated footer", p)
		}
	}
}

// Writing into a folder twice changes nothing; a stale page (a command that
// was removed) disappears, and files outside the owned folders stay.
func TestWriteRemovesStaleFilesAndIsIdempotent(t *testing.T) {
	files, err := Generate(app.NewCommandTree)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keep := filepath.Join(dir, "docs", "configuration.md")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("hand-written\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	first := snapshot(t, dir)

	stale := []string{"docs/reference/paycli_gone.md", "docs/man/paycli-gone.1", "completions/paycli.old"}
	for _, p := range stale {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte("stale\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A generated file edited by hand is put back.
	if err := os.WriteFile(filepath.Join(dir, "docs", "man", "paycli.1"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	second := snapshot(t, dir)

	for p, content := range first {
		if second[p] != content {
			t.Errorf("%s changed on the second write", p)
		}
	}
	for p := range second {
		if _, ok := first[p]; !ok {
			t.Errorf("%s survived the second write", p)
		}
	}
	if first["docs/configuration.md"] != "hand-written\n" {
		t.Error("a hand-written file outside the owned folders was touched")
	}
}

func TestWriteRefusesFilesOutsideOwnedFolders(t *testing.T) {
	err := Write(t.TempDir(), Files{"README.md": []byte("x")})
	if err == nil || !strings.Contains(err.Error(), "outside the folders gendocs owns") {
		t.Fatalf("err = %v", err)
	}
}

// A made-up tree with what the real one may grow: hidden and deprecated
// commands get no pages, a hidden topic neither, and angle brackets in
// usage and help survive into the man page instead of being read as HTML.
func TestGenerateSkipsHiddenAndKeepsPlaceholders(t *testing.T) {
	newTree := func() *cobra.Command {
		root := &cobra.Command{Use: "tool", Short: "A tool", Run: func(*cobra.Command, []string) {}}
		root.PersistentFlags().String("config", "", "config file (default <user config dir>/tool.yaml)")
		run := func(*cobra.Command, []string) {}
		root.AddCommand(
			&cobra.Command{Use: "pay <invoice>", Short: "Pay an <invoice>", Long: "Pay it.\n\n  tool pay <invoice>\n\nThen check.", Run: run},
			&cobra.Command{Use: "secret", Short: "Hidden", Hidden: true, Run: run},
			&cobra.Command{Use: "old", Short: "Old", Deprecated: "use pay", Run: run},
			&cobra.Command{Use: "topic", Short: "A topic", Long: "About <things>."},
			&cobra.Command{Use: "hidden-topic", Short: "Hidden topic", Hidden: true},
		)
		return root
	}
	files, err := Generate(newTree)
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for p := range files {
		if !strings.HasPrefix(p, completionsDir+"/") {
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	want := []string{
		"docs/man/tool-pay.1", "docs/man/tool-topic.1", "docs/man/tool.1",
		"docs/reference/tool.md", "docs/reference/tool_pay.md", "docs/reference/tool_topic.md",
	}
	if !slices.Equal(pages, want) {
		t.Fatalf("pages:\n got %q\nwant %q", pages, want)
	}

	man := string(files["docs/man/tool-pay.1"])
	for _, s := range []string{`tool pay <invoice>`, `Pay an <invoice>`, `<user config dir>`, ".EX\n  tool pay <invoice>\n.EE"} {
		if !strings.Contains(man, s) {
			t.Errorf("tool-pay.1 lacks %q:\n%s", s, man)
		}
	}
	md := string(files["docs/reference/tool_pay.md"])
	for _, s := range []string{"Pay an \\<invoice\\>", "```\n  tool pay <invoice>\n```\n\nThen check."} {
		if !strings.Contains(md, s) {
			t.Errorf("tool_pay.md lacks %q:\n%s", s, md)
		}
	}
	topic := string(files["docs/man/tool-topic.1"])
	for _, s := range []string{".TH \"TOOL-TOPIC\" \"1\" \"Nov 2026\" \"tool\" \"tool manual\"", "tool-topic - A topic", `\fBtool help topic\fP`, "About <things>"} {
		if !strings.Contains(topic, s) {
			t.Errorf("tool-topic.1 lacks %q:\n%s", s, topic)
		}
	}
}

func TestMarkdownText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain <x>", `plain \<x\>`},
		{"Intro:\n  a <b>\n  c", "Intro:\n\n```\n  a <b>\n  c\n```"},
		{"Intro:\n\n  a\n\n  b\n\nAfter.", "Intro:\n\n```\n  a\n\n  b\n```\n\nAfter."},
		{"Intro:\n  a\nAfter.", "Intro:\n\n```\n  a\n```\n\nAfter."},
		{"\tx", "```\n\tx\n```"},
	}
	for _, tt := range tests {
		if got := markdownText(tt.in); got != tt.want {
			t.Errorf("markdownText(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestGenerateRefusesClashingPageNames(t *testing.T) {
	newTree := func() *cobra.Command {
		run := func(*cobra.Command, []string) {}
		root := &cobra.Command{Use: "tool", Run: run}
		a := &cobra.Command{Use: "a", Run: run}
		a.AddCommand(&cobra.Command{Use: "b-c", Run: run})
		ab := &cobra.Command{Use: "a-b", Run: run}
		ab.AddCommand(&cobra.Command{Use: "c", Run: run})
		root.AddCommand(a, ab)
		return root
	}
	_, err := Generate(newTree)
	if err == nil || !strings.Contains(err.Error(), "tool-a-b-c.1") {
		t.Fatalf("err = %v, want a clash on tool-a-b-c.1", err)
	}
}
