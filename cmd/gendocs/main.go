// Command gendocs regenerates paycli's generated files from its command
// tree: the shell completions in completions/, the Markdown command
// reference in docs/reference/ and the man pages in docs/man/.
//
// Run it from the repository root after changing a command:
//
//	go run ./cmd/gendocs
//
// Those three folders belong to gendocs: it rewrites what changed, removes
// every file it did not generate (the page of a deleted command goes with
// it), and writes the same bytes on every run, so CI can regenerate and
// compare with what is committed.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paycli/paycli/internal/app"
)

func main() {
	dir := flag.String("dir", ".", "repository root to write into")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	// Refuse to scatter folders somewhere that is not the repository.
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return fmt.Errorf("%s is not the repository root (no go.mod there): run gendocs from the root or pass -dir", dir)
	}
	files, err := Generate(app.NewCommandTree)
	if err != nil {
		return err
	}
	return Write(dir, files)
}
