package sandboxcmd

import (
	"strings"
	"testing"
)

// TestServeAsFlag (issue 33, item 3): --as takes the names the sandbox
// answers as, in any case; another name is a usage error (exit 2) that
// lists them, before anything is served.
func TestServeAsFlag(t *testing.T) {
	for _, name := range []string{"qnbpay", "QNBpay", "sipay"} {
		got, err := parseServe(t, "--as", name)
		if err != nil || got.As != strings.ToLower(name) {
			t.Errorf("--as %s: %v, %+v", name, err, got)
		}
	}
	got, err := parseServe(t, "--as", "paybull")
	if !isUsage(err) || got != nil || !strings.Contains(err.Error(), "one of sipay, qnbpay") {
		t.Errorf("--as paybull: %v", err)
	}
}
