package journal

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenRegular opens the journal (or its index) at path, refusing anything
// but a regular file. A named pipe would block open(2) until a writer came
// along, so the file is looked at with Lstat first and opened without
// blocking; fstat then checks what was actually opened, in case the path
// changed in between.
func OpenRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, NotRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, flag|oNonblock, perm)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, NotRegular(path, info.Mode())
	}
	return f, nil
}

func NotRegular(path string, mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case mode.IsDir():
		what = "a folder, not a regular file"
	case mode&fs.ModeDevice != 0:
		what = "a device, not a regular file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	}
	return fmt.Errorf("journal: %s is %s; move it away or set XDG_STATE_HOME to a folder paycli can keep its journal in", path, what)
}
