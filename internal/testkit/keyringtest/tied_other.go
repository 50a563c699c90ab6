//go:build !linux

package keyringtest

import "os/exec"

// startTied: only Linux kills a child with its parent; elsewhere the
// test's cleanup does.
func startTied(cmd *exec.Cmd) error { return cmd.Start() }
