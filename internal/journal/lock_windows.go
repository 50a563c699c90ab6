//go:build windows

package journal

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile does nothing on Windows: appends rely on O_APPEND alone there.
func lockFile(*os.File) (func(), error) { return func() {}, nil }

// tryLock takes an exclusive lock on one byte of f, far past what is
// written in it (so that others can still read who holds it), without
// waiting; busy reports that another open file holds it. Windows releases
// it when the file is closed or its process ends.
func tryLock(f *os.File) (busy bool, err error) {
	ol := windows.Overlapped{OffsetHigh: 1}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// removeLocked: an open file cannot be removed on Windows; the invoice's
// lock file stays, unlocked, for the next holder.
const removeLocked = false
