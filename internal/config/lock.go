package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paycli/paycli/internal/filelock"
	"github.com/paycli/paycli/internal/pause"
)

// lockWait bounds how long a writer waits for another paycli writing the
// same config file; writes take milliseconds, so running out means a
// process is stuck holding the lock.
const lockWait = 10 * time.Second

// lockPath is the lock file beside the config file (beside its target when
// the config file is a symbolic link, so that every path to one file takes
// one lock).
func lockPath(path string) string {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// lockFile takes the exclusive lock that every writer of the config file
// at path holds from reading the file to saving it, so that two writers
// never both start from the same content and lose one's change. It returns
// the function that releases it. The lock file stays in place: removing it
// would let a waiting writer lock a file that no longer has a name.
func lockFile(path string, wait time.Duration) (unlock func(), err error) {
	lp := lockPath(path)
	if err := ensureFolder(filepath.Dir(lp)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("cannot lock it: %w", err)
	}
	// A timer, not the clock, bounds the wait.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		busy, err := filelock.TryLock(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock it: %w", err)
		}
		if !busy {
			// Closing the file releases the lock.
			return func() { _ = f.Close() }, nil
		}
		if ctx.Err() != nil {
			_ = f.Close()
			return nil, fmt.Errorf("another paycli is changing it (waited %s for the lock %s)", wait, lp)
		}
		_ = pause.For(ctx, delay)
	}
}
