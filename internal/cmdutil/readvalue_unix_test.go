//go:build unix

package cmdutil

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to blocks open(); cancelling the context (SIGTERM)
// must end the read.
func TestReadValueBlockedFIFOEndsWithContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled once the read is under way, as a signal would; without
	// the fix the test hangs in open().
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := ReadValue(ctx, strings.NewReader(""), "token", "@"+fifo, "token")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Unblock the abandoned open so the goroutine ends with the test.
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		_, _ = io.WriteString(w, "x")
		w.Close()
	}
}
