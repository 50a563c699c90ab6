//go:build perfpeers

// Command linked links every package of paycli's binary and does
// nothing: the start-up paycli pays before its own code runs (the Go
// runtime loading a binary of its size, and every package's
// initialisation). docs/performance.md compares it with paycli version.
// Built only by docs/perf/run.sh (go build -tags perfpeers).
package main

import _ "github.com/paycli/paycli/internal/app"

func main() {}
