package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The money pipeline's guard is the rule that an attempt of any kind whose
// outcome is not settled blocks every money command on its invoice
// (journal.Blocking), which only the re-send of that very attempt may pass
// (journal.MayResend). It is the pipeline's: an operation may narrow it
// through its Resend method (moneyop.Resender), never replace it.
const pipelineDir = "internal/moneyop"

// guardFuncs are the functions of internal/journal that decide the rule.
var guardFuncs = []string{"Blocking", "MayResend"}

// guardCallers are the pipeline's functions that may call them: the one
// that decides the rule for an intent, which a single command's first look
// at an invoice, the check of what it then sends, and every batch line
// under its invoice's lock call.
var guardCallers = []string{"unsettledRule"}

// attemptsMethods are the methods of the pipeline's interfaces that are
// shown an invoice's journal attempts: Resend narrows the rule to one
// re-send, and a Keyed operation's Resume and CheckKeys decide a batch
// line before the rule is applied to it under the invoice's lock.
var attemptsMethods = []string{"Resend", "Resume", "CheckKeys"}

// dependencyFields are the exported function-valued fields the pipeline's
// types may have: dependencies a command hands it (moneyop.Options) and
// the check of one command's flags (moneyop.Modes.Single) and the run's
// clock (moneyop.Env.Now), none of which
// is shown an attempt.
var dependencyFields = []string{
	"Options.Config", "Options.Format", "Options.Gateway", "Options.CommandContext",
	"Options.JournalPath", "Options.Journal", "Options.GatewayIdentity", "Options.Now",
	"Options.NewAttemptID", "Modes.Single", "Env.Now",
}

// journalName is the name file imports internal/journal under; "" when it
// does not.
func journalName(file *ast.File) string {
	for _, imp := range file.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != module+"/internal/journal" {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return "journal"
	}
	return ""
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok {
		t = idx.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// guardCallsIn returns "file:line: journal.X in F" for each call of a
// guardFuncs function in file that is not one of the pipeline's
// guardCallers (inPipeline: file is the pipeline's).
func guardCallsIn(fset *token.FileSet, file *ast.File, inPipeline bool) []string {
	name := journalName(file)
	if name == "" {
		return nil
	}
	var found []string
	check := func(where string, body ast.Node) {
		ast.Inspect(body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && x.Obj == nil && slices.Contains(guardFuncs, sel.Sel.Name) {
				if !inPipeline || !slices.Contains(guardCallers, where) {
					found = append(found, fset.Position(sel.Pos()).String()+": journal."+sel.Sel.Name+" in "+where)
				}
			}
			return true
		})
	}
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			check(funcName(fn), fn)
		} else {
			check("a declaration", d)
		}
	}
	return found
}

// replaceableGuard returns what in a file of the pipeline would let an
// operation decide the rule: an exported function-valued field (a hook)
// other than dependencyFields, and a method of an exported interface that
// is shown journal attempts other than attemptsMethods.
func replaceableGuard(fset *token.FileSet, file *ast.File) []string {
	name := journalName(file)
	var found []string
	seesAttempts := func(ft *ast.FuncType) bool {
		for _, p := range ft.Params.List {
			if arr, ok := p.Type.(*ast.ArrayType); ok {
				if sel, ok := arr.Elt.(*ast.SelectorExpr); ok && name != "" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && sel.Sel.Name == "Attempt" {
						return true
					}
				}
			}
		}
		return false
	}
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			if !ts.Name.IsExported() {
				continue
			}
			switch t := ts.Type.(type) {
			case *ast.StructType:
				for _, f := range t.Fields.List {
					if _, ok := f.Type.(*ast.FuncType); !ok {
						continue
					}
					for _, n := range f.Names {
						if n.IsExported() && !slices.Contains(dependencyFields, ts.Name.Name+"."+n.Name) {
							found = append(found, fset.Position(n.Pos()).String()+": hook "+ts.Name.Name+"."+n.Name)
						}
					}
				}
			case *ast.InterfaceType:
				for _, m := range t.Methods.List {
					ft, ok := m.Type.(*ast.FuncType)
					if !ok || len(m.Names) == 0 {
						continue
					}
					if seesAttempts(ft) && !slices.Contains(attemptsMethods, m.Names[0].Name) {
						found = append(found, fset.Position(m.Pos()).String()+": "+ts.Name.Name+"."+m.Names[0].Name+" is shown the journal's attempts")
					}
				}
			}
		}
	}
	return found
}

// repoFset holds the positions of every file goFiles returns: the
// repository is parsed once for all the checks of this package.
var repoFset = token.NewFileSet()

// repoFiles are the repository's non-test Go files, parsed once into
// repoFset, keyed by their slash-separated paths relative to the
// repository; testdata and hidden folders are skipped.
var repoFiles = sync.OnceValues(func() (map[string]*ast.File, error) {
	root := filepath.Join("..", "..", "..")
	files := map[string]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(repoFset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	return files, err
})

// goFiles are the non-test Go files under dir (relative to the
// repository; "" is all of it), keyed by their slash-separated paths
// relative to the repository, their positions in fset, which must be
// repoFset. testdata and hidden folders are skipped.
func goFiles(t *testing.T, fset *token.FileSet, dir string) map[string]*ast.File {
	t.Helper()
	if fset != repoFset {
		t.Fatal("goFiles: the files' positions are in repoFset")
	}
	all, err := repoFiles()
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.ToSlash(filepath.Clean(dir)) + "/"
	files := map[string]*ast.File{}
	for rel, f := range all {
		if dir == "" || strings.HasPrefix(rel, prefix) {
			files[rel] = f
		}
	}
	return files
}

// TestOnlyThePipelineGuards fails when code outside the money pipeline's
// own steps decides the rule over unsettled attempts (journal.Blocking,
// journal.MayResend): a command, or a helper of the pipeline an operation
// could reach, would then be a second guard that can drift from the first.
// The journal package, which defines the rule and keeps it in the store
// too, is its home.
func TestOnlyThePipelineGuards(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for _, dir := range []string{"internal", "cmd"} {
		for rel, f := range goFiles(t, fset, dir) {
			if strings.HasPrefix(rel, "internal/journal/") {
				continue
			}
			found = append(found, guardCallsIn(fset, f, strings.HasPrefix(rel, pipelineDir+"/"))...)
		}
	}
	if len(found) > 0 {
		t.Errorf("the rule over unsettled attempts is decided outside the pipeline's steps (%s):\n  %s",
			strings.Join(guardCallers, ", "), strings.Join(found, "\n  "))
	}
}

// TestOperationCannotReplaceTheGuard fails when the pipeline offers an
// operation a way to decide the rule itself: a function-valued field (a
// hook an operation fills in), or a method of its interfaces that is shown
// the invoice's attempts, beyond Resend, which only narrows the rule.
func TestOperationCannotReplaceTheGuard(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for _, f := range goFiles(t, fset, pipelineDir) {
		found = append(found, replaceableGuard(fset, f)...)
	}
	if len(found) > 0 {
		t.Errorf("an operation could replace the pipeline's guard:\n  %s", strings.Join(found, "\n  "))
	}
}

// TestGuardChecksSeeEveryForm: each way of breaking the two rules above is
// found, and the pipeline's own forms are not.
func TestGuardChecksSeeEveryForm(t *testing.T) {
	t.Parallel()
	const head = "package p\n\nimport j \"" + module + "/internal/journal\"\n\n"
	for _, c := range []struct {
		name, src  string
		inPipeline bool
		calls      int
		hooks      int
	}{
		{"a command calls the rule", head + "func run() { _ = j.Blocking(nil, j.Scope{}, \"\") }\n", false, 1, 0},
		{"a command narrows by hand", head + "func run() bool { return j.MayResend(j.Entry{}, nil) }\n", false, 1, 0},
		{"a pipeline helper calls it", head + "func helper() { _ = j.Blocking(nil, j.Scope{}, \"\") }\n", true, 1, 0},
		{"the pipeline's rule calls it", head + "func unsettledRule() { _ = j.Blocking(nil, j.Scope{}, \"\") }\n", true, 0, 0},
		{"the pipeline's look calls it", head + "type look struct{}\nfunc (l *look) lock() { _ = j.Blocking(nil, j.Scope{}, \"\") }\n", true, 1, 0},
		{"a guard hook", head + "type Operation struct { Guard func([]j.Attempt) error }\n", true, 0, 1},
		{"any hook", head + "type Operation struct { Check func(string) error }\n", true, 0, 1},
		{"a guard method", head + "type Guard[In any] interface { Allow(In, []j.Attempt) bool }\n", true, 0, 1},
		{"Resend narrows", head + "type Resender[In any] interface { Resend(In, []j.Attempt) (In, *j.Attempt, error) }\n", true, 0, 0},
		{"a dependency", head + "type Options struct { Now func() int }\n", true, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", c.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := guardCallsIn(fset, f, c.inPipeline); len(got) != c.calls {
				t.Errorf("calls found %q, want %d", got, c.calls)
			}
			if got := replaceableGuard(fset, f); len(got) != c.hooks {
				t.Errorf("hooks found %q, want %d", got, c.hooks)
			}
		})
	}
}
