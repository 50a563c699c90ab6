package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// openDescriptors counts this process's descriptors open on path.
func openDescriptors(t *testing.T, path string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// TestCloseReleasesTheFile: a journal, and a file store that appended to
// it, hold the file open until Close and no longer after it (a process
// that opens a store per command must not leak one descriptor each).
func TestCloseReleasesTheFile(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	e := journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: "gw-1", Attempt: "att-1", Time: t0,
		Profile: "p", Invoice: "INV-1", Amount: "1.00", Currency: "TRY", Ref: "RF-1"}

	t.Run("Journal", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), journal.FileName)
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
		if n := openDescriptors(t, path); n != 1 {
			t.Fatalf("%d descriptors on the journal while open, want 1", n)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if n := openDescriptors(t, path); n != 0 {
			t.Errorf("%d descriptors on the journal after Close, want 0", n)
		}
		if err := j.Close(); err != nil {
			t.Errorf("a second Close: %v, want nothing to do", err)
		}
	})
	t.Run("File", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), journal.FileName)
		f := journal.OpenFile(path, func() time.Time { return t0 })
		if err := f.Close(); err != nil {
			t.Errorf("Close before any Append: %v, want nothing to do", err)
		}
		if err := f.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		if n := openDescriptors(t, path); n != 1 {
			t.Fatalf("%d descriptors on the journal after Append, want 1", n)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if n := openDescriptors(t, path); n != 0 {
			t.Errorf("%d descriptors on the journal after Close, want 0", n)
		}
		attempts, err := f.Attempts(context.Background(), "INV-1")
		if err != nil || len(attempts) != 1 {
			t.Errorf("Attempts after Close: %d, %v; want the intent, read from the file", len(attempts), err)
		}
	})
}
