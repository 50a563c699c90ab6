//go:build unix || windows

package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// Each os.OpenFile is its own open file, so two in one process contend
// for the lock as two processes do.
func TestTryLockOneHolderAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		return f
	}
	first, second := open(), open()
	if busy, err := TryLock(first); busy || err != nil {
		t.Fatalf("first TryLock = busy %v, %v; want it taken", busy, err)
	}
	if busy, err := TryLock(second); !busy || err != nil {
		t.Fatalf("second TryLock while the first holds it = busy %v, %v; want busy", busy, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if busy, err := TryLock(second); busy || err != nil {
		t.Fatalf("TryLock after the holder closed = busy %v, %v; want it taken", busy, err)
	}
}
