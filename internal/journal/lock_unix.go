//go:build unix

package journal

import (
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

// removeLocked: an invoice's lock file is removed by its holder, under the
// lock (lockInvoice checks that the file it locked still has its name).
const removeLocked = true
