//go:build perfpeers

// Command hello is the floor of the start-up comparison in
// docs/performance.md: the cheapest Go program that prints a line. It is
// built only by docs/perf/run.sh (go build -tags perfpeers).
package main

import "fmt"

func main() { fmt.Println("hello") }
