package archtest

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestJournalKnowsNoOperation: adding a money operation touches its
// command's package, the client and the sandbox, never the journal. The
// command declares its kind and how check status settles it
// (moneyop.KindsOf), and the app hands the list down (journal.Kinds), so:
// internal/journal's code uses none of the kind constants it still
// declares for older lines (but walletpay, the kind of lines written
// without one: Entry.OpKind) nor their strings; pgjournal's code names
// none; and the shared journal's SQL, as its latest migration defines
// each function, compares no kind with a literal.
func TestJournalKnowsNoOperation(t *testing.T) {
	fset := token.NewFileSet()
	journalFiles := goFiles(t, fset, filepath.Join("internal", "journal"))
	kinds := map[string]string{} // constant name → its string
	for _, f := range journalFiles {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if strings.HasPrefix(n.Name, "Kind") && i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							kinds[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	if len(kinds) == 0 {
		t.Fatal("found no Kind constant in internal/journal: the test reads the wrong files")
	}
	values := map[string]bool{}
	for _, v := range kinds {
		values[v] = true
	}
	var found []string
	for _, f := range journalFiles {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				continue // the declarations themselves
			}
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					if _, ok := kinds[n.Name]; ok && !(n.Name == "KindWalletPay" && fn != nil && fn.Name.Name == "OpKind") {
						found = append(found, fset.Position(n.Pos()).String()+": uses "+n.Name)
					}
				case *ast.BasicLit:
					if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && values[s] {
						found = append(found, fset.Position(n.Pos()).String()+": names the kind "+n.Value)
					}
				}
				return true
			})
		}
	}
	for _, f := range goFiles(t, fset, filepath.Join("internal", "pgjournal")) {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "journal" && kinds[sel.Sel.Name] != "" {
					found = append(found, fset.Position(n.Pos()).String()+": uses journal."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	found = append(found, sqlKindLiterals(t)...)
	for _, f := range found {
		t.Error(f)
	}
}

// sqlKindLiterals returns the functions of the shared journal's schema
// whose latest definition compares a kind with a literal ('refund').
func sqlKindLiterals(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "pgjournal", "migrations")
	names, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations in %s: %v", dir, err)
	}
	sort.Strings(names)
	create := regexp.MustCompile(`(?i)CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.]+)`)
	literal := regexp.MustCompile(`(?i)kind\s*(?:=|<>|!=|IN\s*\()\s*'|'\s*(?:=|<>|!=)\s*[\w.]*kind\b`)
	latest := map[string]string{} // function → "file: body"
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		at := create.FindAllStringSubmatchIndex(text, -1)
		for i, m := range at {
			end := len(text)
			if i+1 < len(at) {
				end = at[i+1][0]
			}
			latest[text[m[2]:m[3]]] = filepath.Base(n) + "\x00" + text[m[0]:end]
		}
	}
	var found []string
	for fn, def := range latest {
		file, body, _ := strings.Cut(def, "\x00")
		if m := literal.FindString(body); m != "" {
			found = append(found, file+": "+fn+" compares a kind with a literal: "+m)
		}
	}
	sort.Strings(found)
	return found
}
