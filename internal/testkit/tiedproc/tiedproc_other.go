//go:build !linux

// Package tiedproc starts a test's child processes (a D-Bus daemon, a
// keyring, PgBouncer) so that they die with the test process, however it
// ends: a SIGKILL of the test binary leaves no orphan.
package tiedproc

import "os/exec"

// Start: only Linux kills a child with its parent; elsewhere the test's
// cleanup does.
func Start(cmd *exec.Cmd) error { return cmd.Start() }
