//go:build windows

package journal

import "os"

// lockFile does nothing on Windows: appends rely on O_APPEND alone there.
func lockFile(*os.File) (func(), error) { return func() {}, nil }

// removeLocked: an open file cannot be removed on Windows; the invoice's
// lock file stays, unlocked, for the next holder.
const removeLocked = false
