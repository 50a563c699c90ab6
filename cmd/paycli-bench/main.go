// Command paycli-bench is the sandbox's load generator, a developer tool
// kept out of the binary merchants run: it loads a running `paycli
// sandbox serve` and reports its throughput and latency, then checks that
// every invoice holds one sale (internal/loadgen). docs/perf/run.sh runs
// it for docs/performance.md.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/cmdutil"
)

func main() {
	os.Exit(app.RunToolMain(func(f *cmdutil.Factory) *cobra.Command { return NewCmdBench(f, nil) }))
}
