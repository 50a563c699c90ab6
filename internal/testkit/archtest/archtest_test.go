// Package archtest holds tests of the repository's import rules; see
// docs/architecture.md.
package archtest

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/paycli/paycli"

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

// list runs `go list -json` with args; Deps lists every package linked.
func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	touchSources(t)
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// touchSources stats every Go file of the module: go test's cache does
// not see what the `go list` child reads, but it does see the files the
// test itself stats, so an edited import invalidates a cached pass.
func touchSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join("..", "..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isCLI(path string) bool { return strings.HasPrefix(path, module+"/internal/cli/") }

// cliImports returns the internal/cli packages p imports (its tests
// included), other than itself.
func cliImports(p pkg) []string {
	var out []string
	for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports, p.Deps) {
		if isCLI(imp) && imp != p.ImportPath && !slices.Contains(out, imp) {
			out = append(out, imp)
		}
	}
	return out
}

// TestCommandsAreLeaves: no package under internal/cli imports another
// one, directly or through a package below it; what commands share lives
// one floor down (internal/cmdutil, internal/moneyop, internal/sandboxmode…).
func TestCommandsAreLeaves(t *testing.T) {
	t.Parallel()
	pkgs := list(t, module+"/internal/cli/...")
	if len(pkgs) < 5 {
		t.Fatalf("go list found %d cli packages; the pattern is wrong", len(pkgs))
	}
	for _, p := range pkgs {
		if bad := cliImports(p); len(bad) > 0 {
			t.Errorf("%s imports %s: commands are leaves; move what they share below internal/cli", p.ImportPath, strings.Join(bad, ", "))
		}
	}
}

// TestWalletPayLinksNoEmulator: the money-moving commands link neither
// the sandbox's database (bbolt) nor the soak harness nor the emulator.
// A money-moving command is found by what it imports: every cli package
// that goes through internal/moneyop, so a new one (refund…) is covered
// without being named here.
func TestWalletPayLinksNoEmulator(t *testing.T) {
	t.Parallel()
	var moving []string
	for _, p := range list(t, module+"/internal/cli/...") {
		if !slices.Contains(p.Imports, module+"/internal/moneyop") {
			continue
		}
		cmd := strings.TrimPrefix(p.ImportPath, module+"/internal/cli/")
		moving = append(moving, cmd)
		if !slices.Contains(p.Deps, module+"/internal/gateway") {
			t.Fatalf("the dependency list of %s lacks internal/gateway; go list answered %d deps", cmd, len(p.Deps))
		}
		for _, banned := range []string{"go.etcd.io/bbolt", module + "/internal/devtools/soak", module + "/internal/sandbox"} {
			if slices.Contains(p.Deps, banned) {
				t.Errorf("internal/cli/%s links %s", cmd, banned)
			}
		}
	}
	// The discovery itself is checked: these commands move money today.
	for _, cmd := range []string{"walletpay", "preauth", "complete", "api"} {
		if !slices.Contains(moving, cmd) {
			t.Errorf("internal/cli/%s is not found as a money-moving command (found: %s)", cmd, strings.Join(moving, ", "))
		}
	}
}

// developerTools are the packages behind the developer commands
// (cmd/paycli-soak, cmd/paycli-bench): they run or load paycli from
// outside, and are no part of the binary merchants run.
var developerTools = []string{module + "/internal/devtools/soak", module + "/internal/devtools/loadgen"}

// TestUserBinaryLinksNoDeveloperTools: paycli's binary links neither the
// chaos soak nor the load generator, and the developer commands do (so
// that the rule looks where they are).
func TestUserBinaryLinksNoDeveloperTools(t *testing.T) {
	t.Parallel()
	pkgs := list(t, module+"/cmd/paycli", module+"/cmd/paycli-soak", module+"/cmd/paycli-bench")
	deps := map[string][]string{}
	for _, p := range pkgs {
		deps[strings.TrimPrefix(p.ImportPath, module+"/")] = p.Deps
	}
	if len(deps["cmd/paycli"]) < 20 {
		t.Fatalf("go list answered %d deps for cmd/paycli", len(deps["cmd/paycli"]))
	}
	for _, tool := range developerTools {
		if slices.Contains(deps["cmd/paycli"], tool) {
			t.Errorf("cmd/paycli links %s: developer tools live under cmd/ beside it", tool)
		}
	}
	if !slices.Contains(deps["cmd/paycli-soak"], module+"/internal/devtools/soak") || !slices.Contains(deps["cmd/paycli-bench"], module+"/internal/devtools/loadgen") {
		t.Errorf("the developer commands do not link their packages: the rule looks in the wrong place")
	}
}

// TestOnlyAppImportsTheCommands: no package but internal/app imports a
// command (internal/cli/...), in its code or its tests: app assembles them,
// and the generators and developer tools ask app (app.NewCommandTree,
// app.WriteCompletion, app.RunTool).
func TestOnlyAppImportsTheCommands(t *testing.T) {
	t.Parallel()
	pkgs := list(t, module+"/...")
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; the pattern is wrong", len(pkgs))
	}
	for _, p := range pkgs {
		// kindtest hands the readers' tests the kinds the operations
		// declare, as the app does; only tests link it.
		if p.ImportPath == module+"/internal/app" || p.ImportPath == module+"/internal/testkit/kindtest" || isCLI(p.ImportPath) {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if isCLI(imp) {
				t.Errorf("%s imports %s: only internal/app imports the commands", p.ImportPath, imp)
			}
		}
	}
}

// TestCLIImportsSeesEveryPath: the rule catches a cli package reached
// through production code, its tests, or a package below it.
func TestCLIImportsSeesEveryPath(t *testing.T) {
	t.Parallel()
	self := module + "/internal/cli/walletpay"
	other := module + "/internal/cli/status"
	for _, p := range []pkg{
		{ImportPath: self, Imports: []string{other}},
		{ImportPath: self, TestImports: []string{other}},
		{ImportPath: self, XTestImports: []string{other}},
		{ImportPath: self, Deps: []string{module + "/internal/moneyop", other}},
	} {
		if got := cliImports(p); !slices.Equal(got, []string{other}) {
			t.Errorf("cliImports(%+v) = %v", p, got)
		}
	}
	if got := cliImports(pkg{ImportPath: self, Imports: []string{self, module + "/internal/cmdutil"}}); len(got) != 0 {
		t.Errorf("a package importing only itself and cmdutil: %v", got)
	}
}

// signers are the packages that may make or check a hash_key themselves:
// the gateway client (which signs every request paycli sends), the
// emulator, the webhook checks, `paycli hash`, and the developer tools
// (the chaos soak and the load generator, which build raw requests).
// Everything else asks the gateway client, so that signing is written once.
var signers = append([]string{
	module + "/internal/hashkey",
	module + "/internal/gateway",
	module + "/internal/sandbox",
	module + "/internal/webhook",
	module + "/internal/cli/hashcmd",
}, developerTools...)

// TestOnlyTheProtocolSigns: no other package imports internal/hashkey in
// its production code (tests may check a hash_key with it).
func TestOnlyTheProtocolSigns(t *testing.T) {
	t.Parallel()
	pkgs := list(t, module+"/...")
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; the pattern is wrong", len(pkgs))
	}
	for _, p := range pkgs {
		if slices.Contains(p.Imports, module+"/internal/hashkey") && !slices.Contains(signers, p.ImportPath) &&
			!strings.HasPrefix(p.ImportPath, module+"/docs/") {
			t.Errorf("%s imports internal/hashkey: let the gateway client sign (gateway.Client, SignObject)", p.ImportPath)
		}
	}
}
