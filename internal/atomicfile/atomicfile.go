// Package atomicfile replaces files so that a reader, or the file after a
// crash or a power cut, sees either the old content or the new content,
// never a mix. It is the one writer of every file paycli replaces whole:
// the config file, the token cache and the sandbox's address file, and
// (through Replace) the journal's index when it is rebuilt.
//
// The data go to a temporary file in the same folder (a rename is atomic
// only within one file system), which is synced to disk and closed; it is
// then renamed over the target, and the folder is synced last so that the
// rename itself survives a power cut.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultMode is the mode of a written file when Writer.Mode is zero: the
// files paycli replaces may hold secrets.
const DefaultMode fs.FileMode = 0o600

// Writer writes files atomically. The zero value writes 0600 files.
type Writer struct {
	// Mode is the written file's mode, whatever the umask; 0 means
	// DefaultMode.
	Mode fs.FileMode
	// BeforeRename, when set, runs after the temporary file is complete and
	// closed, just before the rename. An error from it aborts the write as a
	// crash at that moment would (tests use it to prove the old file
	// survives and no temporary file is left behind).
	BeforeRename func(tmpPath string) error
}

// WriteFile writes data to path with the defaults of the zero Writer.
func WriteFile(path string, data []byte) error { return Writer{}.WriteFile(path, data) }

// WriteFile replaces path with data. The folder must exist. When path is a
// symbolic link the link's target is replaced and the link kept, so dotfile
// managers that link a file elsewhere keep working. On failure the old file
// is left as it was and no temporary file remains.
func (w Writer) WriteFile(path string, data []byte) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := w.Mode
	if mode == 0 {
		mode = DefaultMode
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmpPath := tmp.Name()
	defer func() {
		if err != nil {
			_ = tmp.Close() // may already be closed; the error is the first one's
			_ = os.Remove(tmpPath)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	// Chmod states the mode whatever the platform's CreateTemp or the umask
	// did.
	if err := os.Chmod(tmpPath, mode); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if w.BeforeRename != nil {
		if err := w.BeforeRename(tmpPath); err != nil {
			return err
		}
	}
	if err := Replace(tmpPath, path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// Replace renames tmpPath, a complete file already synced to disk, over
// path in the same folder, and syncs the folder so that the rename
// survives a power cut: the last step of every whole-file replacement
// (WriteFile's, and the journal index's rebuilt database).
func Replace(tmpPath, path string) error {
	if err := os.Rename(tmpPath, path); err != nil {
		return err
	}
	return SyncFolder(filepath.Dir(path))
}

// SyncFolder makes a rename or a new file in dir durable. Windows cannot
// open folders for syncing; there the rename is as durable as the file
// system makes it.
func SyncFolder(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("cannot sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("cannot sync folder %s: %w", dir, err)
	}
	return nil
}
