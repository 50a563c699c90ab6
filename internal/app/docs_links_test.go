package app_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink finds relative links in Markdown: [text](path) without a scheme.
var mdLink = regexp.MustCompile(`\]\(([^)\s:#]+)(#[^)\s]*)?\)`)

// TestDocsLinks checks that every relative link in README.md and docs/*.md
// points at a file or folder that exists, and that docs/README.md links
// every page of docs/, so a new page is not left out of the index.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(docsDir, "..", "README.md"))
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		shown := "docs/" + filepath.Base(page)
		if filepath.Dir(page) != filepath.Clean(docsDir) {
			shown = "README.md"
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := filepath.Join(filepath.Dir(page), filepath.FromSlash(m[1]))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which does not exist", shown, m[1])
			}
		}
	}

	index, err := os.ReadFile(filepath.Join(docsDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		name := filepath.Base(page)
		if filepath.Dir(page) != filepath.Clean(docsDir) || name == "README.md" {
			continue
		}
		if !strings.Contains(string(index), "]("+name+")") {
			t.Errorf("docs/README.md does not link %s", name)
		}
	}
}

// TestReadmeWarnsAboutTheFirstRun: the README's first command downloads
// and compiles modules on a cold machine, silently, for a minute or more;
// the paragraph right after it must say so, or a newcomer thinks it hung.
func TestReadmeWarnsAboutTheFirstRun(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(docsDir, "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "go run ./cmd/paycli")
	if i < 0 {
		t.Fatal("README.md has no 'go run ./cmd/paycli' command")
	}
	_, after, _ := strings.Cut(text[i:], "```\n")
	next, _, _ := strings.Cut(strings.TrimLeft(after, "\n"), "\n\n")
	for _, want := range []string{"first", "downloads", "minute"} {
		if !strings.Contains(next, want) {
			t.Errorf("the paragraph after README's first command does not mention %q:\n%s", want, next)
		}
	}
}
