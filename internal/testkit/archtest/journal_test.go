package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// saleWords are the gateway's words for where a sale or a refund stands
// (transaction_status, refund_info's status, three_d_status), by their
// letters: read only by the client (gateway.SaleStateOf, RefundInfo.State,
// Sale.AwaitsMerchant), which every command consumes typed.
var saleWords = map[string]bool{
	"completed": true, "success": true, "successful": true, "refunded": true, "partiallyrefunded": true, "partialrefunded": true,
	"failed": true, "fail": true, "pending": true, "preauthorized": true, "preauthorization": true, "cancelled": true, "canceled": true,
	"awaitingmerchantcompletion": true, "rejected": true, "refused": true, "awaitingapproval": true,
}

// wordsOwners may read the gateway's words: the client, the emulator (it
// writes them), the webhook's own protocol, and the developer tools that
// drive and check the emulator.
var wordsOwners = []string{"gateway", "sandbox", "webhook", "devtools/soak", "devtools/loadgen"}

// letters is s in lower case, letters only (gateway.letters).
func letters(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z':
			return c
		case c >= 'A' && c <= 'Z':
			return c + 'a' - 'A'
		}
		return -1
	}, s)
}

// saleWordReads returns "file:line: word" for each sale word file reads:
// a case of a switch, an operand of == or !=, an argument of a strings,
// bytes or slices function, or an element of a []string or a map's key.
// A word written (a constant, a field of a result, a message) is not a
// reading.
func saleWordReads(fset *token.FileSet, file *ast.File) []string {
	var found []string
	check := func(e ast.Expr) {
		if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if s, err := strconv.Unquote(b.Value); err == nil && saleWords[letters(s)] {
				found = append(found, fmt.Sprintf("%s: %q", fset.Position(b.Pos()), s))
			}
		}
		if name, ok := stateConstant(e); ok {
			found = append(found, fmt.Sprintf("%s: gateway.%s", fset.Position(e.Pos()), name))
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CaseClause:
			for _, e := range n.List {
				check(e)
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X)
				check(n.Y)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "strings" || x.Name == "bytes" || x.Name == "slices") {
					for _, a := range n.Args {
						check(a)
					}
				}
			}
		case *ast.CompositeLit:
			switch t := n.Type.(type) {
			case *ast.ArrayType:
				if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "string" {
					for _, e := range n.Elts {
						check(e)
					}
				}
			case *ast.MapType:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						check(kv.Key)
					}
				}
			}
		}
		return true
	})
	return found
}

// stateConstant reports whether e names one of the client's state words
// by its constant (gateway.SaleRefunded, gateway.PreAuthOpen,
// gateway.RefundWaiting…): compared outside the client, it is the same
// reading as its letters. A caller asks gateway.Sale's questions instead
// (Taken, Refundable, Voided, AwaitsMerchant…).
func stateConstant(e ast.Expr) (string, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "gateway" {
		return "", false
	}
	name := sel.Sel.Name
	switch {
	case strings.HasPrefix(name, "Sale") && name != "SaleStateOf",
		strings.HasPrefix(name, "PreAuth"),
		name == "RefundMade" || name == "RefundWaiting" || name == "RefundRefused",
		strings.HasPrefix(name, "ThreeD"):
		return name, true
	}
	return "", false
}

// TestSaleWordsOnlyInTheClient: what check status says of a sale is read
// once, by the gateway client, into a typed state (gateway.Sale); no
// package outside it keeps a list of the gateway's words (issue 32: four
// readings had drifted apart).
func TestSaleWordsOnlyInTheClient(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for rel, file := range goFiles(t, fset, "internal") {
		if !slices.ContainsFunc(wordsOwners, func(owner string) bool { return strings.HasPrefix(rel, "internal/"+owner+"/") }) {
			found = append(found, saleWordReads(fset, file)...)
		}
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: a sale-state word read outside the gateway client; consume gateway.Sale (SaleState, RefundState) instead", f)
	}
}

// TestSaleWordCheckSeesEveryForm checks the checker.
func TestSaleWordCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; func g(s string) bool { switch s { case "completed", "Partially Refunded": return true }; return false }`, 2},
		{`package p; func g(s string) bool { return s == "Pending" || "failed" != s }`, 2},
		{`package p; import "strings"; func g(s string) bool { return strings.EqualFold(s, "Refunded") }`, 1},
		{`package p; var taken = []string{"completed", "success"}`, 2},
		{`package p; var states = map[string]int{"cancelled": 1}`, 1},
		{`package p; const Pending = "pending"`, 0},
		{`package p; func g() string { return "Completed" }`, 0},
		{`package p; func g(s string) bool { return s == "complete" || s == "cancel" }`, 0},
		{`package p; func g(s gateway.Sale) bool { return s.State == gateway.SaleCancelled || s.PreAuth != gateway.PreAuthOpen }`, 2},
		{`package p; func g(s gateway.Sale) int { switch s.State { case gateway.SaleRefunded, gateway.SalePartlyRefunded: return 1 }; return 0 }`, 2},
		{`package p; func g(r gateway.RefundInfo) bool { return r.State() == gateway.RefundWaiting }`, 1},
		{`package p; func g(s gateway.Sale) bool { return s.Voided() || s.Refundable() }`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := saleWordReads(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}

// storeTypes are the journal's concrete stores, by package and type name.
var storeTypes = map[string][]string{"journal": {"File"}, "pgjournal": {"Store"}}

// storeTypeChecks returns "file:line: pkg.Type" for each type assertion or
// type switch case in file that names a concrete store.
func storeTypeChecks(fset *token.FileSet, file *ast.File) []string {
	local := map[string]string{} // local name → package
	for _, imp := range file.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if _, ok := storeTypes[name]; !ok || path != module+"/internal/"+name {
			continue
		}
		if imp.Name != nil {
			local[imp.Name.Name] = name
			continue
		}
		local[name] = name
	}
	var found []string
	check := func(e ast.Expr) {
		if star, ok := e.(*ast.StarExpr); ok {
			e = star.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return
		}
		if x, ok := sel.X.(*ast.Ident); ok {
			for _, typ := range storeTypes[local[x.Name]] {
				if sel.Sel.Name == typ {
					found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), x.Name, typ))
				}
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				check(n.Type)
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					check(e)
				}
			}
		}
		return true
	})
	return found
}

// TestCommandsAskNoStoreItsType: a command asks a journal what it can do
// (journal's capability interfaces), never which store it is: a store it
// did not know fell into "internal error" (issue 32, item 3).
func TestCommandsAskNoStoreItsType(t *testing.T) {
	t.Parallel()
	fset := repoFset
	var found []string
	for _, file := range goFiles(t, fset, "internal/cli") {
		found = append(found, storeTypeChecks(fset, file)...)
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: a command asks which store it holds; assert a capability interface of internal/journal instead", f)
	}
}

// TestStoreTypeCheckSeesEveryForm checks the checker.
func TestStoreTypeCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	const imports = `import ("github.com/paycli/paycli/internal/journal"; pg "github.com/paycli/paycli/internal/pgjournal"); `
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`func g(s journal.Store) bool { _, ok := s.(*journal.File); return ok }`, 1},
		{`func g(s journal.Store) { switch s.(type) { case *journal.File, *pg.Store: } }`, 2},
		{`func g(s journal.Store) { switch v := s.(type) { case *pg.Store: _ = v } }`, 1},
		{`func g(s journal.Store) bool { _, ok := s.(journal.Indexed); return ok }`, 0},
		{`func g(err error) bool { _, ok := err.(*pg.LoginError); return ok }`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", "package p; "+imports+tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := storeTypeChecks(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}
