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

// TestJournalKnowsNoOperation: adding an operation touches its own
// package, the client and the sandbox, never the journal. Each operation
// declares its kind, its reading of check status and its words in one
// value of its package (journal.Kind), and the app hands the list down,
// so: no kind name an operation declares (a Kind… constant of a package
// under internal/cli) is written in internal/journal's code (but
// LegacyKind, walletpay, the kind of lines written without one:
// Entry.OpKind) or pgjournal's; and the shared journal's SQL, as its
// latest migration defines each function, compares no kind with a
// literal.
func TestJournalKnowsNoOperation(t *testing.T) {
	t.Parallel()
	fset := repoFset
	values := operationKinds(t, fset)
	if !values["refund"] || !values["walletpay"] {
		t.Fatalf("found kinds %v under internal/cli: the test reads the wrong files", values)
	}
	var found []string
	for _, dir := range []string{"journal", "pgjournal"} {
		for _, f := range goFiles(t, fset, filepath.Join("internal", dir)) {
			ast.Inspect(f, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "LegacyKind" {
					return false // the journal's one compatibility fact
				}
				if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
					if s, err := strconv.Unquote(b.Value); err == nil && values[s] {
						found = append(found, fset.Position(n.Pos()).String()+": names the kind "+b.Value)
					}
				}
				return true
			})
		}
	}
	found = append(found, sqlKindLiterals(t)...)
	for _, f := range found {
		t.Error(f)
	}
}

// operationKinds are the kind names the operations declare: the string
// Kind… constants of the packages under internal/cli.
func operationKinds(t *testing.T, fset *token.FileSet) map[string]bool {
	t.Helper()
	values := map[string]bool{}
	for _, f := range goFiles(t, fset, filepath.Join("internal", "cli")) {
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
							v, _ := strconv.Unquote(lit.Value)
							values[v] = true
						}
					}
				}
			}
		}
	}
	return values
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
