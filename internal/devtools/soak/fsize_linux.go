package soak

import "golang.org/x/sys/unix"

// limitFileSize sets the file-size limit (RLIMIT_FSIZE) of the running
// process pid: a write that would take one of its files beyond limit
// bytes fails with EFBIG, as on a full disk, while the rest of the run
// keeps its disk. The process is paycli, a Go program: the runtime
// handles SIGXFSZ and lets the write fail instead of dying of it.
func limitFileSize(pid int, limit int64) error {
	return unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: uint64(limit), Max: uint64(limit)}, nil)
}
