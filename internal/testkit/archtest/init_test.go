package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// initCalls are the calls a package-level variable may be initialised
// with: a sentinel error is a value, made once, that errors.Is compares,
// and sync.OnceValue defers the work of its function to the first use.
var initCalls = []string{"errors.New", "fmt.Errorf", "sync.OnceValue", "sync.OnceValues", "sync.OnceFunc"}

// workAtInit returns "file:line: NAME" for each package-level variable of
// file whose initialiser does work when the program starts: a call (other
// than initCalls), a map (built at init), or a composite literal,
// conversion or expression holding one. Constants, literals of arrays,
// slices and structs of such values, functions and references are laid
// out by the linker and cost nothing; a func() T that builds on first use
// (sync.OnceValue) is the way to keep a table.
func workAtInit(fset *token.FileSet, file *ast.File) []string {
	var found []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				if why := initWork(v); why != "" {
					name := "_"
					if i < len(vs.Names) {
						name = vs.Names[i].Name
					}
					found = append(found, fset.Position(v.Pos()).String()+": "+name+" ("+why+")")
				}
			}
		}
	}
	return found
}

// initWork says what work evaluating e at init does, or "" for none.
func initWork(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.Ident, *ast.SelectorExpr, *ast.FuncLit:
		return ""
	case *ast.ParenExpr:
		return initWork(e.X)
	case *ast.UnaryExpr:
		return initWork(e.X)
	case *ast.BinaryExpr:
		if w := initWork(e.X); w != "" {
			return w
		}
		return initWork(e.Y)
	case *ast.KeyValueExpr:
		if w := initWork(e.Key); w != "" {
			return w
		}
		return initWork(e.Value)
	case *ast.CompositeLit:
		if _, isMap := e.Type.(*ast.MapType); isMap {
			return "a map, built at init"
		}
		for _, elt := range e.Elts {
			if w := initWork(elt); w != "" {
				return w
			}
		}
		return ""
	case *ast.CallExpr:
		switch e.Fun.(type) {
		case *ast.ArrayType, *ast.ParenExpr:
			// A conversion, []byte("…") or (*T)(nil): laid out by the
			// linker when its operand is.
			for _, arg := range e.Args {
				if w := initWork(arg); w != "" {
					return w
				}
			}
			return ""
		}
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && slices.Contains(initCalls, pkg.Name+"."+sel.Sel.Name) {
				for _, arg := range e.Args {
					if w := initWork(arg); w != "" {
						return w
					}
				}
				return ""
			}
		}
		return "a call at init"
	}
	return "an expression evaluated at init"
}

// TestNoWorkAtInit: the packages of paycli's binary do nothing when the
// program starts. Go runs the initialisation of every package linked into
// the binary, whichever command runs, so a template parsed, a pattern
// compiled or a map built at package level is paid by `paycli version`
// too (docs/performance.md, Start-up). Tests and the developer tools may.
func TestNoWorkAtInit(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	pkgs := list(t, module+"/cmd/paycli")
	var dirs []string
	for _, dep := range pkgs[0].Deps {
		if rel, ok := strings.CutPrefix(dep, module+"/"); ok {
			dirs = append(dirs, filepath.Join(root, filepath.FromSlash(rel)))
		}
	}
	if len(dirs) < 20 {
		t.Fatalf("cmd/paycli links %d of paycli's packages; go list answered %v", len(dirs), pkgs[0].Deps)
	}
	fset := token.NewFileSet()
	var found []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, workAtInit(fset, file)...)
		}
	}
	for _, f := range found {
		t.Errorf("%s: work at init; build it on first use (sync.OnceValue) or write it as constants", f)
	}
}

// TestInitCheckSeesEveryForm checks the checker.
func TestInitCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import "regexp"; var re = regexp.MustCompile("x")`, 1},
		{`package p; var m = map[string]bool{"a": true}`, 1},
		{`package p; var s = []struct{ m map[string]int }{{m: map[string]int{}}}`, 1},
		{`package p; var b = []byte("x"); var _ I = (*T)(nil)`, 0},
		{`package p; var b = []byte(f())`, 1},
		{`package p; import "sync"; var t = sync.OnceValue(func() int { return 1 })`, 0},
		{`package p; import "sync"; var t = sync.OnceValue(build())`, 1},
		{`package p; var x, y = f(), 2`, 1},
		{`package p; import "errors"; var ErrX = errors.New("x")`, 0},
		{`package p; import "fmt"; var ErrY = fmt.Errorf("y %d", 64)`, 0},
		{`package p; var s = []string{"a", "b"}; var a = [...]int{1, 2}; var n = len("ab") + 1`, 1},
		{`package p; type T struct{ A string; B []int }; var ts = []T{{A: "x", B: []int{1}}}; var p = &T{A: "y"}`, 0},
		{`package p; var f = func() int { return 1 }; var g = other.Func; var c = -1`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := workAtInit(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
