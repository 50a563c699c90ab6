//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive flock on f without waiting; busy reports that
// another open file holds it. Closing f releases it, and so does the
// kernel when the process dies.
func TryLock(f *os.File) (busy bool, err error) {
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
