package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layers is the diagram of docs/architecture.md ("The layers"), read from
// the page itself so that the page and these tests cannot drift apart.
type layers struct {
	// floors lists the packages of each floor, top first; a name ending
	// in "/*" stands for the packages under it. The leaves are the last.
	floors [][]string
	// testsOnly are the packages only tests import.
	testsOnly []string
}

var diagramPackage = regexp.MustCompile(`^(cmd|internal)/[A-Za-z0-9_/*-]+$`)

// parseLayers reads the first ```text block after "## The layers": a
// line "│" separates floors, a package path starts a line, "leaves:" lists
// the last floor's short names (its lines continued by indented ones),
// and "tests only:" the packages for tests.
func parseLayers(doc []byte) (layers, error) {
	var l layers
	_, after, ok := bytes.Cut(doc, []byte("## The layers"))
	if !ok {
		return l, fmt.Errorf(`no "## The layers" section`)
	}
	_, block, ok := bytes.Cut(after, []byte("```text\n"))
	if !ok {
		return l, fmt.Errorf("no ```text block in The layers")
	}
	block, _, ok = bytes.Cut(block, []byte("```"))
	if !ok {
		return l, fmt.Errorf("the diagram's block is never closed")
	}
	floor := []string{}
	inLeaves, inTests := false, false
	sc := bufio.NewScanner(bytes.NewReader(block))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			inLeaves, inTests = false, false
		case trimmed == "│":
			l.floors = append(l.floors, floor)
			floor = []string{}
		case strings.HasPrefix(trimmed, "tests only:") || inTests && strings.HasPrefix(line, " "):
			// Its lines continued by indented ones, as the leaves'.
			inTests = true
			for _, f := range strings.Fields(trimmed) {
				if diagramPackage.MatchString(f) {
					l.testsOnly = append(l.testsOnly, f)
				}
			}
		case strings.HasPrefix(trimmed, "leaves:") || inLeaves && strings.HasPrefix(line, " "):
			inLeaves = true
			names := strings.TrimPrefix(trimmed, "leaves:")
			for n := range strings.SplitSeq(names, ",") {
				if n = strings.TrimSpace(n); n != "" {
					floor = append(floor, "internal/"+n)
				}
			}
		default:
			if f := strings.Fields(trimmed); diagramPackage.MatchString(f[0]) {
				floor = append(floor, f[0])
			}
		}
	}
	l.floors = append(l.floors, floor)
	if len(l.floors) < 3 {
		return l, fmt.Errorf("the diagram has %d floors", len(l.floors))
	}
	return l, nil
}

// floorOf returns the floor of a package path relative to the module, -1
// for one the diagram does not name; testOnly reports a package for tests.
func (l layers) floorOf(rel string) (floor int, testOnly bool) {
	if slices.Contains(l.testsOnly, rel) {
		return -1, true
	}
	for i, f := range l.floors {
		for _, name := range f {
			if name == rel || strings.HasSuffix(name, "/*") && strings.HasPrefix(rel, strings.TrimSuffix(name, "*")) {
				return i, false
			}
		}
	}
	return -1, false
}

func (l layers) isLeaf(floor int) bool { return floor == len(l.floors)-1 }

func readLayers(t *testing.T) layers {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseLayers(doc)
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	return l
}

func rel(path string) string { return strings.TrimPrefix(path, module+"/") }

func inModule(path string) bool { return strings.HasPrefix(path, module+"/") }

// TestLayersNameEveryPackage: the diagram places every package of the
// module, and names none that does not exist.
func TestLayersNameEveryPackage(t *testing.T) {
	t.Parallel()
	l := readLayers(t)
	pkgs := list(t, module+"/...")
	var have []string
	for _, p := range pkgs {
		have = append(have, rel(p.ImportPath))
		if f, testOnly := l.floorOf(rel(p.ImportPath)); f < 0 && !testOnly {
			t.Errorf("docs/architecture.md: the layer diagram does not place %s", rel(p.ImportPath))
		}
	}
	named := map[string]bool{}
	for _, name := range slices.Concat(slices.Concat(l.floors...), l.testsOnly) {
		if named[name] {
			t.Errorf("docs/architecture.md: the layer diagram names %s twice", name)
		}
		named[name] = true
		prefix, glob := strings.CutSuffix(name, "*")
		if !slices.ContainsFunc(have, func(h string) bool { return h == name || glob && strings.HasPrefix(h, prefix) }) {
			t.Errorf("docs/architecture.md: the layer diagram names %s, which is no package", name)
		}
	}
}

// importsUp returns the imports of p's code (not its tests) that break
// the diagram: one on its own floor or above (a leaf may import leaves),
// one the diagram does not place, or a package for tests.
func (l layers) importsUp(p pkg) []string {
	from, _ := l.floorOf(rel(p.ImportPath))
	var bad []string
	for _, imp := range p.Imports {
		if !inModule(imp) {
			continue
		}
		to, testOnly := l.floorOf(rel(imp))
		switch {
		case testOnly:
			bad = append(bad, rel(imp)+" (a package for tests)")
		case to < 0:
			bad = append(bad, rel(imp)+" (not in the diagram)")
		case to <= from && !(l.isLeaf(from) && l.isLeaf(to)):
			bad = append(bad, rel(imp)+fmt.Sprintf(" (floor %d, not below %d)", to+1, from+1))
		}
	}
	return bad
}

// TestImportsPointDown: each package's code imports only packages on
// floors below its own, as the diagram of docs/architecture.md draws them;
// leaves import only leaves; no code imports a package for tests.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	l := readLayers(t)
	pkgs := list(t, module+"/...")
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; the pattern is wrong", len(pkgs))
	}
	for _, p := range pkgs {
		if _, testOnly := l.floorOf(rel(p.ImportPath)); testOnly {
			continue
		}
		for _, bad := range l.importsUp(p) {
			t.Errorf("%s imports %s: dependencies point down (docs/architecture.md, The layers)", rel(p.ImportPath), bad)
		}
	}
}

// TestLayerCheckSeesEveryBreak checks the checker on a small diagram.
func TestLayerCheckSeesEveryBreak(t *testing.T) {
	t.Parallel()
	l, err := parseLayers([]byte("## The layers\n\n```text\ncmd/x   main\n   │\ninternal/a   top\ninternal/b   beside a\n   │\ninternal/cli/*   commands\n   │\n" +
		"leaves: c,\n        d\n\ntests only: internal/t\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"cmd/x"}, {"internal/a", "internal/b"}, {"internal/cli/*"}, {"internal/c", "internal/d"}}; fmt.Sprint(l.floors) != fmt.Sprint(want) || fmt.Sprint(l.testsOnly) != "[internal/t]" {
		t.Fatalf("parsed %v, tests only %v", l.floors, l.testsOnly)
	}
	for _, tc := range []struct {
		from, to string
		bad      bool
	}{
		{"cmd/x", "internal/a", false},
		{"cmd/x", "internal/c", false},
		{"internal/a", "internal/cli/status", false},
		{"internal/a", "internal/b", true},
		{"internal/c", "internal/d", false},
		{"internal/c", "internal/a", true},
		{"internal/cli/status", "internal/a", true},
		{"internal/a", "internal/t", true},
		{"internal/a", "internal/new", true},
		{"internal/a", "fmt", false},
	} {
		to := tc.to
		if tc.to != "fmt" {
			to = module + "/" + tc.to
		}
		got := l.importsUp(pkg{ImportPath: module + "/" + tc.from, Imports: []string{to}})
		if (len(got) > 0) != tc.bad {
			t.Errorf("%s importing %s: found %v, want bad=%v", tc.from, tc.to, got, tc.bad)
		}
	}
}

// TestTestPackagesOnlyInTests: the packages for tests are imported only
// by tests (and by one another), so that no binary links them.
func TestTestPackagesOnlyInTests(t *testing.T) {
	t.Parallel()
	l := readLayers(t)
	for _, p := range list(t, module+"/...") {
		if _, testOnly := l.floorOf(rel(p.ImportPath)); testOnly {
			continue // one package for tests may use another (tiedproc)
		}
		for _, dep := range p.Deps {
			if inModule(dep) && slices.Contains(l.testsOnly, rel(dep)) {
				t.Errorf("%s links %s, a package for tests", rel(p.ImportPath), rel(dep))
			}
		}
	}
}

// sharedByGatewayAndSandbox are what the gateway client and the emulator
// may both link of paycli, as docs/architecture.md lists them: leaves, and
// never a type of the protocol's requests and answers.
var sharedByGatewayAndSandbox = []string{"internal/commission", "internal/hashkey", "internal/money", "internal/redact", "internal/cardno", "internal/pause", "internal/atomicfile"}

// TestGatewayAndSandboxShareOnlyLeaves: the client and the emulator meet
// over HTTP; of paycli's packages they share only the leaves the page
// names (and neither links the other).
func TestGatewayAndSandboxShareOnlyLeaves(t *testing.T) {
	t.Parallel()
	deps := map[string][]string{}
	for _, p := range list(t, module+"/internal/gateway", module+"/internal/sandbox") {
		deps[rel(p.ImportPath)] = append(p.Deps, p.ImportPath)
	}
	if len(deps["internal/gateway"]) < 5 || len(deps["internal/sandbox"]) < 5 {
		t.Fatalf("go list answered %d and %d deps", len(deps["internal/gateway"]), len(deps["internal/sandbox"]))
	}
	for _, d := range deps["internal/gateway"] {
		if inModule(d) && slices.Contains(deps["internal/sandbox"], d) && !slices.Contains(sharedByGatewayAndSandbox, rel(d)) {
			t.Errorf("internal/gateway and internal/sandbox both link %s: they share only %s", rel(d), strings.Join(sharedByGatewayAndSandbox, ", "))
		}
	}
}

// TestEmulatorAndClientWrittenApart: the sandbox links nothing of the
// gateway client, and the wallet token decoder nothing of the sandbox, so
// that each side checks the other.
func TestEmulatorAndClientWrittenApart(t *testing.T) {
	t.Parallel()
	for _, p := range list(t, module+"/internal/sandbox", module+"/internal/wallettoken") {
		banned := module + "/internal/gateway"
		if rel(p.ImportPath) == "internal/wallettoken" {
			banned = module + "/internal/sandbox"
		}
		if slices.Contains(p.Deps, banned) {
			t.Errorf("%s links %s: the emulator and the client are written independently", rel(p.ImportPath), rel(banned))
		}
	}
}

// TestGatewayNeverPrints: the gateway client links neither cobra nor
// render, and its code writes to no standard stream and through no global
// logger: it returns typed errors and logs only to the logger it is given.
func TestGatewayNeverPrints(t *testing.T) {
	t.Parallel()
	p := list(t, module+"/internal/gateway")[0]
	for _, banned := range []string{"github.com/spf13/cobra", module + "/internal/render"} {
		if slices.Contains(p.Deps, banned) {
			t.Errorf("internal/gateway links %s", banned)
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "gateway", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no gateway sources (%v)", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range printCalls(fset, file) {
			t.Errorf("%s: the gateway client prints; return an error, or log to the logger it is given", f)
		}
	}
}

// printing are the package-level names that write to a standard stream.
var printing = map[string][]string{
	"os":   {"Stdout", "Stderr"},
	"fmt":  {"Print", "Printf", "Println"},
	"log":  {"Print", "Printf", "Println", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln", "Default"},
	"slog": {"Debug", "Info", "Warn", "Error", "Log", "LogAttrs", "DebugContext", "InfoContext", "WarnContext", "ErrorContext", "Default"},
}

// printCalls returns "file:line: pkg.Name" for each use in file of a name
// that writes to a standard stream, and of the builtins print and println.
func printCalls(fset *token.FileSet, file *ast.File) []string {
	local := map[string]string{} // local name → package
	for _, imp := range file.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if _, ok := printing[name]; !ok || path != "os" && path != "fmt" && path != "log" && path != "log/slog" {
			continue
		}
		if imp.Name != nil {
			local[imp.Name.Name] = name
		} else {
			local[name] = name
		}
	}
	var found []string
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && slices.Contains(printing[local[x.Name]], n.Sel.Name) {
				found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(n.Pos()), x.Name, n.Sel.Name))
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Obj == nil && (id.Name == "print" || id.Name == "println") {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), id.Name))
			}
		}
		return true
	})
	return found
}

// TestPrintCheckSeesEveryForm checks the checker.
func TestPrintCheckSeesEveryForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import "fmt"; func g() { fmt.Println(1); fmt.Printf("") }`, 2},
		{`package p; import "os"; import "fmt"; func g() { fmt.Fprintln(os.Stderr, 1) }`, 1},
		{`package p; import f "fmt"; func g() { f.Print(1) }`, 1},
		{`package p; import "log"; func g() { log.Printf("") }`, 1},
		{`package p; import "log/slog"; func g() { slog.Info("") }`, 1},
		{`package p; func g() { println(1) }`, 1},
		{`package p; import "fmt"; func g() string { return fmt.Sprintf("%d", 1) }`, 0},
		{`package p; import ("io"; "fmt"); func g(w io.Writer) { fmt.Fprintf(w, "") }`, 0},
		{`package p; import "log/slog"; func g(l *slog.Logger) { l.Info("") }`, 0},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := printCalls(fset, file); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.src, got, tc.want)
		}
	}
}

// libraryHomes are the packages that may import each library that does a
// job for all of paycli (docs/architecture.md, "One implementation per
// job", and the leaves' table for render).
var libraryHomes = map[string][]string{
	"github.com/olekukonko/tablewriter": {"internal/render"},
	"github.com/fatih/color":            {"internal/render"},
	"github.com/itchyny/gojq":           {"internal/cmdutil"},
	"go.etcd.io/bbolt":                  {"internal/sandbox", "internal/journalindex"},
	"github.com/golang-jwt/jwt":         {"internal/gateway", "internal/sandbox"},
	"go.yaml.in/yaml/v3":                {"internal/config"},
	"github.com/jackc/pgx":              {"internal/pgjournal", "internal/testkit/pgtest"},
	"github.com/spf13/cobra/doc":        {"cmd/gendocs"},
	"github.com/spf13/viper":            {"internal/config"},
	"github.com/zalando/go-keyring":     {"internal/keyring"},
}

// homeOf returns the library that import path belongs to, "" for none.
func homeOf(imp string) string {
	for lib := range libraryHomes {
		if imp == lib || strings.HasPrefix(imp, lib+"/") {
			return lib
		}
	}
	return ""
}

// TestOneHomePerLibrary: each library that does a job for all of paycli
// is imported only by the packages the page names, so that the job has
// one implementation (tables by render, --jq by cmdutil, …).
func TestOneHomePerLibrary(t *testing.T) {
	t.Parallel()
	for _, p := range list(t, module+"/...") {
		for _, imp := range p.Imports {
			if lib := homeOf(imp); lib != "" && !slices.Contains(libraryHomes[lib], rel(p.ImportPath)) {
				t.Errorf("%s imports %s: only %s may (one implementation per job)", rel(p.ImportPath), imp, strings.Join(libraryHomes[lib], ", "))
			}
		}
	}
}
