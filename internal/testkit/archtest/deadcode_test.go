package archtest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLinkerDropsUnusedMethods: paycli's binary does not reach
// reflect.Value.MethodByName or Method. When either is reachable (any
// text/template or html/template execution: a cobra usage or help
// template, a template-rendered page), the linker must keep every
// exported method of every type it links, which made paycli 3 MiB larger
// and slower to start (docs/performance.md, Start-up). Help is written by
// app.writeUsage and the sandbox's pages by internal/sandbox/pages.go
// instead. cobra checks the same of its own default configuration.
func TestLinkerDropsUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("links paycli")
	}
	t.Parallel() // waits on go build, a process of its own, while the other checks run
	touchSources(t)
	bin := filepath.Join(t.TempDir(), "paycli")
	// -w: no DWARF, a third of the link's time; the symbol table nm reads
	// and the linker's dead-code pass are the same without it.
	build := exec.Command("go", "build", "-ldflags=-w", "-o", bin, module+"/cmd/paycli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, sym := range []string{"reflect.Value.MethodByName", "reflect.Value.Method"} {
		for line := range bytes.Lines(out) {
			if f := bytes.Fields(line); len(f) >= 3 && string(f[len(f)-1]) == sym {
				t.Errorf("paycli's binary links %s: a template (text/template, html/template) is executed somewhere", sym)
			}
		}
	}
}
