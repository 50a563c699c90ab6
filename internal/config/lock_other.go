//go:build !unix

package config

import "os"

// tryLock does nothing where flock(2) does not exist: concurrent writers
// there can still lose an update, as they could before locking existed.
func tryLock(*os.File) (busy bool, err error) { return false, nil }
