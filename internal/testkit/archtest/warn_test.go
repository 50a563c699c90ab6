package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// handLabels are the labels of stderr's prose that IOStreams.Warnf and
// Notef write, wrapped to a terminal; a command writing one itself with
// fmt.Fprint* would leave it unwrapped.
var handLabels = []string{"warning:", "note:", "hint:"}

// handWrittenWarnings returns "file:line" for each fmt.Fprint, Fprintf or
// Fprintln in file whose text starts with a label of handLabels.
func handWrittenWarnings(fset *token.FileSet, file *ast.File) []string {
	var local []string
	for _, imp := range file.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "fmt" {
			name := "fmt"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local = append(local, name)
		}
	}
	var found []string
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains([]string{"Fprint", "Fprintf", "Fprintln"}, sel.Sel.Name) {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Obj != nil || !slices.Contains(local, x.Name) {
			return true
		}
		for _, arg := range call.Args[1:] {
			ast.Inspect(arg, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && slices.ContainsFunc(handLabels, func(l string) bool { return strings.HasPrefix(s, l) }) {
					found = append(found, fset.Position(call.Pos()).String())
				}
				return true
			})
		}
		return true
	})
	return found
}

// TestNoHandWrittenWarnings: no code writes a warning, note or hint on a
// stream by hand; IOStreams.Warnf and Notef wrap them at blanks on a
// terminal (issue: text at 80 columns) and leave them as they are piped.
func TestNoHandWrittenWarnings(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for _, file := range goFiles(t, fset, "") {
		found = append(found, handWrittenWarnings(fset, file)...)
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: a warning or note written by hand; use ios.Warnf or ios.Notef (ios.Warning for a writer of one's own)", f)
	}
}

// TestWarningCheckSeesEveryForm checks the checker.
func TestWarningCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import ("fmt"; "io"); func g(w io.Writer) { fmt.Fprintf(w, "warning: %v\n", 1) }`, 1},
		{`package p; import ("fmt"; "io"); func g(w io.Writer, s string) { fmt.Fprintln(w, "warning: "+s) }`, 1},
		{`package p; import ("fmt"; "io"); func g(w io.Writer) { fmt.Fprint(w, fmt.Sprintf("note: %d\n", 1)) }`, 1},
		{`package p; import f "fmt"; import "io"; func g(w io.Writer) { f.Fprintf(w, "hint: run it\n") }`, 1},
		{`package p; import ("fmt"; "io"); func g(w io.Writer) { fmt.Fprintf(w, "Refunded: %d\n", 1) }`, 0},
		{`package p; import "fmt"; func g() string { return fmt.Sprintf("warning: %d", 1) }`, 0},
		{`package p; type S struct{}; func (S) Warnf(string, ...any) {}; func g(s S) { s.Warnf("the journal is far") }`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := handWrittenWarnings(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
