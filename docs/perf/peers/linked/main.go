//go:build perfpeers

// Command linked is paycli's binary doing nothing: with no arguments it
// returns at once, after what paycli pays before its own code runs (the Go
// runtime loading a binary of paycli's size, and every package's
// initialisation); with arguments it is paycli, which keeps all of paycli
// reachable, so the linker links what paycli's binary links.
// docs/performance.md compares it with paycli version. Built only by
// docs/perf/run.sh (go build -tags perfpeers).
package main

import (
	"os"

	"github.com/paycli/paycli/internal/app"
)

func main() {
	if len(os.Args) > 1 {
		os.Exit(app.Main())
	}
}
