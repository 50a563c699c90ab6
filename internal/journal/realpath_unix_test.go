//go:build unix

package journal_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// TestRealPathFollowsLinks: a journal reached through symbolic links,
// absolute or relative, chained, to a file not made yet, is the file the
// kernel opens.
func TestRealPathFollowsLinks(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "desk", journal.FileName)
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	mustLink := func(target, link string) {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(real, filepath.Join(dir, "absolute.jsonl"))
	mustLink(filepath.Join("desk", journal.FileName), filepath.Join(dir, "relative.jsonl"))
	mustLink("relative.jsonl", filepath.Join(dir, "chained.jsonl"))
	for _, p := range []string{real, filepath.Join(dir, "absolute.jsonl"), filepath.Join(dir, "relative.jsonl"), filepath.Join(dir, "chained.jsonl")} {
		if got, err := journal.RealPath(p); err != nil || got != real {
			t.Errorf("RealPath(%s) = %q, %v; want %s", p, got, err, real)
		}
	}
}
