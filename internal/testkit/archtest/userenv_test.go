package archtest

import (
	"slices"
	"strings"
	"testing"
)

// TestConfigTestsClearTheUsersEnvironment (issue 39, defect 11): every
// package whose test binary links the configuration (which reads the
// PAYCLI_* environment) clears the user's settings from it before its
// tests run (testkit/userenv, from its TestMain), so that its tests pass
// whatever the person running them has set.
func TestConfigTestsClearTheUsersEnvironment(t *testing.T) {
	t.Parallel()
	const config, userenv = module + "/internal/config", module + "/internal/testkit/userenv"
	own := map[string]bool{}
	for _, p := range list(t, module+"/...") {
		own[p.ImportPath] = slices.Contains(p.TestImports, userenv) || slices.Contains(p.XTestImports, userenv)
	}
	checked := 0
	for _, p := range list(t, "-test", module+"/...") {
		pkg, ok := strings.CutSuffix(p.ImportPath, ".test")
		if !ok || !slices.Contains(p.Deps, config) || pkg == userenv {
			continue
		}
		checked++
		if !own[pkg] {
			t.Errorf("%s: its tests link %s but do not clear the user's PAYCLI_* settings: add a TestMain calling userenv.Main (or userenv.Clear first)", rel(pkg), rel(config))
		}
	}
	if checked < 10 {
		t.Fatalf("only %d test binaries link the configuration: go list -test answered unexpectedly", checked)
	}
}
