// Command gendocs regenerates paycli's generated files from its command
// tree: the shell completions in completions/, the Markdown command
// reference in docs/reference/ and the man pages in docs/man/; and the
// sandbox's OpenAPI description, docs/sandbox-openapi.json.
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
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/sandbox"
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
	if err := Write(dir, files); err != nil {
		return err
	}
	return writeOpenAPI(dir)
}

// OpenAPIFile is where the sandbox's OpenAPI description is written.
const OpenAPIFile = "docs/sandbox-openapi.json"

// writeOpenAPI writes the sandbox's OpenAPI description, when it changed.
func writeOpenAPI(dir string) error {
	doc, err := sandbox.OpenAPIDocument()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, filepath.FromSlash(OpenAPIFile))
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, doc) {
		return nil
	}
	return os.WriteFile(path, doc, 0o644)
}
