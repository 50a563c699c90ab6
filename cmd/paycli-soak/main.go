// Command paycli-soak is paycli's chaos soak, a developer tool kept out
// of the binary merchants run: many paycli processes that move money
// against a faulty sandbox killed and restarted, then a checker that
// finds every double, loss or unexplained exit code (internal/soak).
// CI runs it (.ci/run); docs/reliability.md says what it demands.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/cmdutil"
)

func main() {
	os.Exit(app.RunToolMain(func(f *cmdutil.Factory) *cobra.Command { return NewCmdSoak(f, nil) }))
}
