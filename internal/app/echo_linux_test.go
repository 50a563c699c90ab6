package app_test

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitEchoOff waits until the terminal behind the pseudo-terminal master
// tty no longer echoes (a secret prompt has turned echo off): the prompt
// is written before echo goes, and what is typed in between is echoed.
func waitEchoOff(t *testing.T, tty *os.File) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // only bounds a broken test
	for {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatalf("read the terminal's settings: %v", err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the prompt never turned echo off")
		}
		time.Sleep(time.Millisecond)
	}
}
