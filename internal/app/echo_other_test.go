//go:build !linux

package app_test

import (
	"os"
	"testing"
	"time"
)

// waitEchoOff gives the prompt a moment to turn echo off, where the
// terminal's settings cannot be read from the master side.
func waitEchoOff(t *testing.T, _ *os.File) {
	t.Helper()
	time.Sleep(200 * time.Millisecond)
}
