//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// lockFile holds an exclusive flock on f until the returned function runs,
// so that appends from other processes wait for this one.
func lockFile(f *os.File) (func(), error) {
	fd := int(f.Fd())
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }, nil
	}
}

// tryLock takes an exclusive flock on f without waiting; busy reports that
// another open file holds it. Closing f releases it, and so does the
// kernel when the process dies.
func tryLock(f *os.File) (busy bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return true, nil
		}
		return false, err
	}
}

// removeLocked: an invoice's lock file is removed by its holder, under the
// lock (lockInvoice checks that the file it locked still has its name).
const removeLocked = true
