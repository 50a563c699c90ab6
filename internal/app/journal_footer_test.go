package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
)

// TestJournalFooterReconcilesTheSandbox: a --sandbox walletpay whose
// outcome is unknown, listed by a plain `paycli journal` (no --sandbox):
// the footer's `paycli journal reconcile` carries --sandbox, and run as
// printed it settles the attempt (without it, it would ask the default
// profile, which has no gateway: exit 2).
func TestJournalFooterReconcilesTheSandbox(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		code := Run(ctx, args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		return code, out.String(), errOut.String()
	}
	if code, _, stderr := run("walletpay", "--sandbox", "--invoice", "T-4", "--token", sandboxWalletToken(t, "10.69"),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("walletpay: exit %d, want 7\n%s", code, stderr)
	}
	code, _, stderr := run("journal")
	const prefix = "Ask the gateway and record what it says with: paycli "
	i := strings.LastIndex(stderr, prefix)
	if code != ExitOK || i < 0 || !strings.HasSuffix(stderr, "\n") {
		t.Fatalf("journal: exit %d\n%s", code, stderr)
	}
	suggested := strings.TrimSuffix(stderr[i+len(prefix):], "\n")
	if suggested != "journal reconcile --sandbox" {
		t.Errorf("suggested %q, want journal reconcile --sandbox", suggested)
	}
	code, stdout, stderr := run(strings.Fields(suggested)...)
	if code != ExitOK || !strings.Contains(stdout, "T-4") || !strings.Contains(stdout, "succeeded") {
		t.Errorf("paycli %s: exit %d\n%s%s", suggested, code, stdout, stderr)
	}
}
