// Command paycli-bench is the sandbox's load generator, a developer tool
// kept out of the binary merchants run: it loads a running `paycli
// sandbox serve` and reports its throughput and latency, then checks that
// every invoice holds one sale (internal/loadgen). docs/perf/run.sh runs
// it for docs/performance.md.
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
		func(f *cmdutil.Factory) *cobra.Command { return NewCmdBench(f, nil) })
	stop()
	os.Exit(code)
}
