//go:build unix

package journal

import "syscall"

// oNonblock keeps open(2) of a FIFO from waiting for a writer; it changes
// nothing for a regular file.
const oNonblock = syscall.O_NONBLOCK
