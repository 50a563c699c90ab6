package config

import (
	"os"
	"os/exec"
	"testing"
)

// TestPassesWithTheUsersEnvironment (issue 39, defect 11): the tests that
// read the environment pass when the person running them has paycli's
// settings in theirs (as a user of paycli has), because the test binary
// clears them first (TestMain, testkit/userenv). The binary runs them
// again as a child, with a handful of PAYCLI_* variables set.
func TestPassesWithTheUsersEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the package's tests again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestPrecedence|TestSecretSources|TestGatewayPicksTheBaseURL|TestViperKeepsValuesAsWritten|FuzzViperReadsWhatTheFileSays)$")
	cmd.Env = append(os.Environ(), "PAYCLI_BASE_URL=http://x", "PAYCLI_PROFILE=foo", "PAYCLI_APP_SECRET=zz",
		"PAYCLI_JOURNAL=postgres://a@b/c", "PAYCLI_OUTPUT=json", "PAYCLI_TIMEOUT=1s", "PAYCLI_CONFIG=/nonexistent/config.yaml",
		"PAYCLI_LANG=en", "PAYCLI_SANDBOX=1", "PAYCLI_APP_SECRET_FILE=/nonexistent/secret")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with PAYCLI_* set: %v\n%s", err, out)
	}
}
