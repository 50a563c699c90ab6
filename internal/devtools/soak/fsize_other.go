//go:build !linux

package soak

import "errors"

// limitFileSize is only available on Linux (prlimit(2)); elsewhere the
// soak runs without disk-full processes.
func limitFileSize(pid int, limit int64) error {
	return errors.New("soak: file-size limits of another process need Linux")
}
