package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kindOwners may compare words that are also kind names, outside the
// operations: the emulator and the command that drives it (its sales' and
// webhooks' own kinds), the client (a path's words: /purchase/link), the
// developer tools (they read users' journals from outside, as a person
// would) and the tests' kits.
var kindOwners = []string{"sandbox", "cli/sandboxcmd", "gateway", "devtools", "testkit"}

// kindComparisons returns "file:line: what" for each comparison with a
// kind's name in file: an == or != with a name (a string in names, or the
// journal's LegacyKind), or a case naming one in a switch on an attempt's
// kind (OpKind(), Intent.Kind), unless the name is a constant the package
// declares itself (own: its Kind… constants). Two kind values compared
// (the same operation?) name no kind. An operation compares its own kind;
// everything else asks the kind it is handed (journal.Kinds.For).
func kindComparisons(fset *token.FileSet, file *ast.File, names map[string]bool, own map[string]bool) []string {
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	// isValue: e is an attempt's kind.
	isValue := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.CallExpr:
			sel, ok := e.Fun.(*ast.SelectorExpr)
			return ok && sel.Sel.Name == "OpKind" && len(e.Args) == 0
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.SelectorExpr)
			return ok && e.Sel.Name == "Kind" && x.Sel.Name == "Intent"
		}
		return false
	}
	// name says whether e names a kind, and whether it is the package's own.
	name := func(e ast.Expr) (named, mine bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			return e.Kind == token.STRING && err == nil && names[s], false
		case *ast.Ident:
			return own[e.Name], own[e.Name]
		case *ast.SelectorExpr:
			// Commands do not import each other: another package's kind
			// constant can only be the journal's (LegacyKind).
			x, ok := e.X.(*ast.Ident)
			return ok && x.Name == "journal" && (e.Sel.Name == "LegacyKind" || strings.HasPrefix(e.Sel.Name, "Kind") && e.Sel.Name != "Kinds"), false
		}
		return false, false
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{n.X, n.Y} {
				named, mine := name(side)
				if named && !mine {
					report(n, "compares a kind")
					return true
				}
			}
		case *ast.SwitchStmt:
			if n.Tag == nil || !isValue(n.Tag) {
				return true
			}
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if named, mine := name(e); named && !mine {
						report(e, "switches on a kind")
					}
				}
			}
		}
		return true
	})
	return found
}

// ownKinds are the Kind… string constants file declares.
func ownKinds(file *ast.File) map[string]bool {
	own := map[string]bool{}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "Kind") {
					own[n.Name] = true
				}
			}
		}
	}
	return own
}

// TestNoKindComparedOutsideItsOperation: what an operation means is its
// own package's (journal.Kind: its reading, its words, its re-send); no
// other package switches on an attempt's kind or compares it with a
// kind's name (issue 40: 13 such places made a new operation an edit of
// moneyop, journalcmd and status).
func TestNoKindComparedOutsideItsOperation(t *testing.T) {
	t.Parallel()
	fset := repoFset
	names := operationKinds(t, fset)
	files := goFiles(t, fset, "internal")
	own := map[string]map[string]bool{} // package dir → its Kind… constants
	for rel, f := range files {
		dir := path.Dir(rel)
		if own[dir] == nil {
			own[dir] = map[string]bool{}
		}
		for k := range ownKinds(f) {
			own[dir][k] = true
		}
	}
	var found []string
	for rel, f := range files {
		if slices.ContainsFunc(kindOwners, func(o string) bool { return strings.HasPrefix(rel, "internal/"+o+"/") }) {
			continue
		}
		found = append(found, kindComparisons(fset, f, names, own[path.Dir(rel)])...)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s outside its operation's package; ask the attempt's journal.Kind (Kinds.For) instead", f)
	}
}

// TestKindCheckSeesEveryForm checks the checker.
func TestKindCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	names := map[string]bool{"refund": true, "walletpay": true}
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; func g(a journal.Attempt) bool { return a.Intent.OpKind() == journal.KindRefund }`, 1},
		{`package p; func g(a journal.Attempt) bool { return a.Intent.OpKind() != "walletpay" }`, 1},
		{`package p; func g(a journal.Attempt) bool { return "refund" == a.Intent.Kind }`, 1},
		{`package p; func g(a journal.Attempt) int { switch a.Intent.OpKind() { case "refund": return 1; case journal.KindRefund: return 2; case other: return 3 }; return 0 }`, 2},
		{`package p; func g(k string) bool { return k == "refund" }`, 1},
		{`package p; const KindDelete = "card-delete"; func g(a journal.Attempt) bool { return a.Intent.OpKind() == KindDelete }`, 0},
		{`package p; func g(a journal.Attempt, ks journal.Kinds) bool { return ks.For(a).OnTheSale }`, 0},
		{`package p; func g(a, b journal.Attempt) bool { return a.Intent.OpKind() == b.Intent.OpKind() }`, 0},
		{`package p; func g(k cmdutil.Kind) bool { return k == cmdutil.KindUsage }`, 0},
		{`package p; func g(e journal.Entry) bool { return e.Kind == journal.LegacyKind }`, 1},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := kindComparisons(fset, file, names, ownKinds(file)); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
