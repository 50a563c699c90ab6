package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

// TestMoneyCommandsDeclareTheirKinds: every command that moves money is
// registered with its operations' kinds, so that the journal's readers
// (`journal --kind`, reconcile, status) know a new operation without a
// line in internal/journal. A kind without a reading is one check status
// cannot settle (reconcile leaves it out); those of users' journals today
// are all settled by it.
func TestMoneyCommandsDeclareTheirKinds(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios, func(string) (string, bool) { return "", false })
	for _, c := range topLevelCommands() {
		var moves bool
		var walk func(*cobra.Command)
		walk = func(cmd *cobra.Command) {
			if e, ok := cmdutil.ExitsOf(cmd); ok && e.MovesMoney {
				moves = true
			}
			for _, sub := range cmd.Commands() {
				walk(sub)
			}
		}
		walk(c.build(f))
		if moves && c.kinds == nil {
			t.Errorf("%s moves money but declares no journal kind", c.name)
		}
		if c.kinds == nil {
			continue
		}
		for _, k := range c.kinds() {
			if k.Name == "" {
				t.Errorf("%s declares a kind without a name", c.name)
			}
		}
	}
	names := moneyKinds().Names()
	if got := f.Kinds().Names(); !slices.Equal(got, names) {
		t.Errorf("the factory hands down %v, the command tree declares %v", got, names)
	}
	for i, n := range names {
		if slices.Index(names, n) != i {
			t.Errorf("kind %q declared twice", n)
		}
	}
	// The kinds users' journals hold keep their names.
	for _, n := range []string{"walletpay", "refund", "preauth-capture", "preauth-cancel", "complete", "complete-cancel", "api"} {
		if !moneyKinds().Reconcilable(n) {
			t.Errorf("kind %q is no longer declared, or no longer settled by check status: %v", n, names)
		}
	}
}

// TestMoneyCallsHaveKinds: a call `paycli api` journals under another
// command's kind (gateway.MoneyCall) is a kind that command declares.
// The calls are the MoneyCall constants of gateway/money.go, read from
// the source, so that a new operation's call is checked without a line
// here.
func TestMoneyCallsHaveKinds(t *testing.T) {
	kinds := moneyKinds()
	calls := moneyCallConstants(t)
	if len(calls) < 6 {
		t.Fatalf("found %d MoneyCall constants in gateway/money.go (%v); the reading is wrong", len(calls), calls)
	}
	for _, call := range calls {
		if !kinds.Reconcilable(call) {
			t.Errorf("paycli api journals %q, a kind no command declares", call)
		}
	}
}

// moneyCallConstants are the values of gateway/money.go's MoneyCall
// constants that name an operation: all but NoMoney and MoneyPayment
// (a payment paycli has no command for, journaled as api).
func moneyCallConstants(t *testing.T) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "gateway", "money.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if id, typed := v.Type.(*ast.Ident); !typed || id.Name != "MoneyCall" || !ok || name.Name == "NoMoney" || name.Name == "MoneyPayment" {
					continue
				}
				value, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				calls = append(calls, value)
			}
		}
	}
	return calls
}

// TestKindTestAgreesWithTheApp: the kinds the journal readers' tests use
// are kinds the app hands down, read alike (a new operation's kind need
// not be added there).
func TestKindTestAgreesWithTheApp(t *testing.T) {
	app, test := moneyKinds(), kindtest.Paycli()
	// The same reading: each kind's reader finds the same in the same
	// answers (the reader is a function, compared by what it says).
	answers := []journal.Check{
		{Res: &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "I", TransactionStatus: "Completed", TransactionType: "PreAuth"}},
		{Res: &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "I", TransactionStatus: "Cancelled"}},
		{Res: &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "I", TransactionStatus: "Completed"}},
		{Err: gateway.ErrNotFound},
	}
	for _, k := range test {
		declared, ok := app.Of(k.Name)
		if !ok {
			t.Errorf("kindtest lists %q, which no command declares (%v)", k.Name, app.Names())
			continue
		}
		a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Kind: k.Name, Invoice: "I", Ref: "RF1"}}
		for _, c := range answers {
			if c.Res != nil {
				c.Sale = c.Res.Sale()
			}
			if got, want := declared.Read(a, c), k.Read(a, c); got != want {
				t.Errorf("%s: the app reads %+v, kindtest %+v", k.Name, got, want)
			}
		}
	}
}
