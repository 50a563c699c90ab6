//go:build !unix && !windows

package journal

import "os"

// lockFile does nothing where flock(2) does not exist: appends rely on
// O_APPEND alone there.
func lockFile(*os.File) (func(), error) { return func() {}, nil }

const removeLocked = false
