//go:build perfpeers

// Command libraries links what paycli's start-up cannot do without and
// does nothing: cobra, and the two libraries that work at init whichever
// command runs (tablewriter builds an 8,192-entry width cache, gojq its
// builtins). It shows, in docs/performance.md, how much of paycli's
// start-up is theirs. Built only by docs/perf/run.sh (go build -tags
// perfpeers).
package main

import (
	_ "github.com/itchyny/gojq"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/spf13/cobra"
)

func main() {}
