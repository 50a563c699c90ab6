package sandboxcmd

import (
	"context"
	"fmt"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/sandbox"
)

// runningSandbox returns the base URL of the serve running over the state
// folder, or "" when none answers.
func runningSandbox(ctx context.Context, stateDir string, probe func(context.Context, string) bool) string {
	if u := sandbox.ReadAddress(stateDir); u != "" && probe(ctx, u) {
		return u
	}
	return ""
}

// sandboxURL is the sandbox a command that can work either over HTTP or
// on the state folder talks to: the --sandbox-url given, which must
// answer, else the state folder's running serve, else "" (no serve: the
// command opens the state itself).
func sandboxURL(ctx context.Context, given, stateDir string, probe func(context.Context, string) bool) (string, error) {
	if given == "" {
		return runningSandbox(ctx, stateDir, probe), nil
	}
	if !probe(ctx, given) {
		return "", cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("no sandbox answers at %s", given), "Fix --sandbox-url, or start the sandbox.")
	}
	return given, nil
}
