// Package userenv keeps the settings a user of paycli has in the
// environment (PAYCLI_BASE_URL, PAYCLI_PROFILE, PAYCLI_JOURNAL, …) out of
// the tests: every test binary that links the configuration calls Clear
// (through Main, or first in its own TestMain), so that the README's test
// command passes whatever PAYCLI_* variables the person running it has
// set. The variables that steer the tests themselves (Knobs) stay.
package userenv

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Knobs are the PAYCLI_* variables the tests read to know how to run
// (which components are required, a model's seed, where to write a
// report); Clear keeps them. A new one is added here.
var Knobs = []string{
	"PAYCLI_REQUIRE_POSTGRES", "PAYCLI_REQUIRE_PGBOUNCER", "PAYCLI_REQUIRE_KEYRING", "PAYCLI_REQUIRE_CHROMIUM", "PAYCLI_REQUIRE_PODMAN",
	"PAYCLI_MODEL_SEED", "PAYCLI_MODEL_REPORT", "PAYCLI_MODEL_CLOCK_SKEW",
	"PAYCLI_DESK_SCALE", "PAYCLI_DESK_CHAOS_SEED", "PAYCLI_DESK_CHAOS_DURATION",
	"PAYCLI_JOURNAL_GEN", "PAYCLI_JOURNAL_GEN_N",
	"PAYCLI_CHROMIUM", "PAYCLI_SCREENSHOT_DIR", "PAYCLI_IMAGE_CONTEXT",
	"PAYCLI_TEST_CONTROL", "PAYCLI_TEST_RUN_MAIN", "PAYCLI_PGTEST_ORPHAN_CHILD", "PAYCLI_KEYRINGTEST_ORPHAN_CHILD",
}

// Clear unsets every PAYCLI_* variable of the process but the Knobs.
// It is called before the tests start (the process's environment is
// shared by every test and every child it starts), never in a test binary
// started again as paycli, whose PAYCLI_* variables its test set.
func Clear() {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PAYCLI_") && !slices.Contains(Knobs, name) {
			_ = os.Unsetenv(name)
		}
	}
}

// Main is the TestMain of a package that needs nothing else: Clear, then
// the tests.
func Main(m *testing.M) {
	Clear()
	os.Exit(m.Run())
}
