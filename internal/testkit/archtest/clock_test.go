package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// clockHome is the one file of library code that may read the wall clock:
// the factory hands its clock (f.Now) to everything else.
const clockHome = "internal/app/factory.go"

// wallClockReads are the functions of package time that read the wall
// clock, or wait on it outside a context (time.After, time.Tick).
var wallClockReads = []string{"Now", "Since", "Until", "After", "Tick"}

// wallClockCalls returns "file:line: time.X" for each use of a wallClockReads
// function in src; a dot-import of time counts as one.
func wallClockCalls(fset *token.FileSet, file *ast.File) []string {
	var local []string
	var found []string
	for _, imp := range file.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != "time" {
			continue
		}
		switch {
		case imp.Name == nil:
			local = append(local, "time")
		case imp.Name.Name == ".":
			found = append(found, fset.Position(imp.Pos()).String()+": dot-import of time")
		case imp.Name.Name != "_":
			local = append(local, imp.Name.Name)
		}
	}
	if len(local) == 0 {
		return found
	}
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && slices.Contains(local, x.Name) && slices.Contains(wallClockReads, sel.Sel.Name) {
			found = append(found, fset.Position(sel.Pos()).String()+": time."+sel.Sel.Name)
		}
		return true
	})
	return found
}

// TestNoWallClockInLibraryCode fails when a package other than a main
// package reads the wall clock anywhere but in the factory: time is
// injected (docs/architecture.md), so that no test depends on the day it
// runs. A test that needs the real time passes time.Now itself.
func TestNoWallClockInLibraryCode(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for rel, file := range goFiles(t, fset, "") {
		if rel != clockHome && file.Name.Name != "main" {
			found = append(found, wallClockCalls(fset, file)...)
		}
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: library code reads the wall clock; take a clock (func() time.Time) from the constructor or the factory's Now", f)
	}
}

// TestWallClockCheckSeesEveryForm checks the checker: each form of a wall
// clock read is found, and a clock handed in is not.
func TestWallClockCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import "time"; var x = time.Now()`, 1},
		{`package p; import "time"; var f = time.Now`, 1},
		{`package p; import t "time"; func g(d t.Time) { _ = t.Since(d); _ = t.Until(d) }`, 2},
		{`package p; import "time"; func g() { <-time.After(1); _ = time.Tick(1) }`, 2},
		{`package p; import . "time"; var x = Now()`, 1},
		{`package p; import "time"; func g(now func() time.Time) time.Time { return now().Add(time.Second) }`, 0},
		{`package p; import "time"; type c struct{ Now func() time.Time }; func g(time c) { _ = time.Now() }`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := wallClockCalls(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
