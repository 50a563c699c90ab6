// Command paycli-soak is paycli's chaos soak, a developer tool kept out
// of the binary merchants run: many paycli processes that move money
// against a faulty sandbox killed and restarted, then a checker that
// finds every double, loss or unexplained exit code (internal/soak).
// CI runs it (.ci/run); docs/reliability.md says what it demands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.RunTool(ctx, os.Args[1:], iostreams.System(), os.LookupEnv,
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdSoak(f, nil) })
	stop()
	os.Exit(code)
}
