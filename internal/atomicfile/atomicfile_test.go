package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func TestWriteFileReplacesWithMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("content %q", got)
	}
	if runtime.GOOS != "windows" {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("mode %04o, want 0600", info.Mode().Perm())
		}
		if err := (Writer{Mode: 0o640}).WriteFile(path, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
			t.Errorf("mode %04o, want 0640", info.Mode().Perm())
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f"}) {
		t.Errorf("folder holds %v", got)
	}
}

// A crash after the temporary file is complete leaves the old file and no
// temporary file.
func TestWriteFileCrashBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	w := Writer{BeforeRename: func(tmp string) error {
		if got, _ := os.ReadFile(tmp); string(got) != "new" {
			t.Errorf("temporary file holds %q", got)
		}
		if filepath.Dir(tmp) != dir {
			t.Errorf("temporary file %s is not beside the target", tmp)
		}
		return crash
	}}
	if err := w.WriteFile(path, []byte("new")); !errors.Is(err, crash) {
		t.Fatalf("err = %v, want the crash", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old file now holds %q", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f"}) {
		t.Errorf("folder holds %v", got)
	}
}

func TestWriteFileFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	// A non-empty folder as the target: the rename fails.
	if err := os.MkdirAll(filepath.Join(path, "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("x")); err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f"}) {
		t.Errorf("folder holds %v", got)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
}

func TestWriteFileKeepsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "real")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", info, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Errorf("target holds %q", got)
	}
}

// TestReplace: the finished temporary file takes the target's place and
// is gone under its own name; a missing one leaves the target as it was.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	target, tmp := filepath.Join(dir, "index"), filepath.Join(dir, "index.1.tmp")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(filepath.Join(dir, "missing"), target); err == nil {
		t.Fatal("a missing temporary file replaced the target")
	}
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Fatalf("target after a failed replace: %q", got)
	}
	if err := os.WriteFile(tmp, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(tmp, target); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Errorf("target after replace: %q", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}
}
