//go:build unix

package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileModesWithPermissiveUmask checks the modes do not depend on
// the umask: with umask 000 a careless writer would make a 0666 file and a
// 0777 folder. The umask is per process, so this test must not run in
// parallel with others that create files.
func TestWriteFileModesWithPermissiveUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	dir := filepath.Join(t.TempDir(), "paycli")
	path := filepath.Join(dir, "config.yaml")
	e, err := OpenEdit(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Set("default", "lang", "tr"); err != nil {
		t.Fatal(err)
	}
	if err := e.Save(AtomicWriter{}); err != nil {
		t.Fatal(err)
	}
	if got := perm(t, path); got != 0o600 {
		t.Errorf("file mode %04o, want 0600", got)
	}
	if got := perm(t, dir); got != 0o700 {
		t.Errorf("folder mode %04o, want 0700", got)
	}
	f, err := ReadFile(path)
	if err != nil || f.Mode != 0o600 {
		t.Errorf("ReadFile mode %04o err %v", f.Mode, err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if f, _ := ReadFile(path); !IsLooseMode(f.Mode) {
		t.Errorf("mode %04o not reported as loose", f.Mode)
	}
}
