package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := filepath.Join(t.TempDir(), "a", "paycli")
	path := filepath.Join(dir, "config.yaml")
	if err := (AtomicWriter{}).WriteFile(path, []byte("x: 1\n")); err != nil {
		t.Fatal(err)
	}
	if got := perm(t, path); got != 0o600 {
		t.Errorf("file mode %04o, want 0600", got)
	}
	if got := perm(t, dir); got != 0o700 {
		t.Errorf("folder mode %04o, want 0700", got)
	}

	// An existing loose file is replaced by a 0600 one.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (AtomicWriter{}).WriteFile(path, []byte("x: 2\n")); err != nil {
		t.Fatal(err)
	}
	if got := perm(t, path); got != 0o600 {
		t.Errorf("rewritten file mode %04o, want 0600", got)
	}
	if got, _ := os.ReadFile(path); string(got) != "x: 2\n" {
		t.Errorf("content %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v, want only config.yaml", names)
	}
}

// TestWriteFileCrashBeforeRename stops the write after the temporary file is
// complete, as a crash would: the old file must be intact and no temporary
// file left behind.
func TestWriteFileCrashBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	old := "default_profile: a\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	var tmpSeen string
	w := AtomicWriter{BeforeRename: func(tmp string) error {
		tmpSeen = tmp
		// The temporary file is complete, private and beside the target.
		if got, _ := os.ReadFile(tmp); string(got) != "default_profile: b\n" {
			t.Errorf("temporary file holds %q", got)
		}
		if filepath.Dir(tmp) != dir {
			t.Errorf("temporary file %s is not in %s", tmp, dir)
		}
		if runtime.GOOS != "windows" && perm(t, tmp) != 0o600 {
			t.Errorf("temporary file mode %04o", perm(t, tmp))
		}
		return crash
	}}
	err := w.WriteFile(path, []byte("default_profile: b\n"))
	if !errors.Is(err, crash) {
		t.Fatalf("err = %v, want the crash", err)
	}
	if tmpSeen == "" {
		t.Fatal("BeforeRename was not called")
	}
	if got, _ := os.ReadFile(path); string(got) != old {
		t.Errorf("old file now holds %q", got)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "config.yaml" {
		t.Errorf("folder holds %v, want only config.yaml", names)
	}
}

func TestWriteFileFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	// The target is a folder: the rename fails after the temporary file
	// was written.
	path := filepath.Join(dir, "config.yaml")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (AtomicWriter{}).WriteFile(path, []byte("x: 1\n")); err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "config.yaml" {
		t.Errorf("folder holds %v, want only config.yaml", names)
	}
}

func TestWriteFileKeepsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "paycli.yaml")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("x: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := (AtomicWriter{}).WriteFile(link, []byte("x: 2\n")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", info, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "x: 2\n" {
		t.Errorf("target holds %q", got)
	}
}

func TestLooseModeWarning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	tests := []struct {
		mode fs.FileMode
		want string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o640, "warning: /c.yaml is readable by others (mode 0640); run: chmod 600 /c.yaml"},
		{0o644, "warning: /c.yaml is readable by others (mode 0644); run: chmod 600 /c.yaml"},
		{0o602, "warning: /c.yaml is readable by others (mode 0602); run: chmod 600 /c.yaml"},
	}
	for _, tt := range tests {
		if got := LooseModeWarning("/c.yaml", tt.mode); got != tt.want {
			t.Errorf("%04o: %q, want %q", tt.mode, got, tt.want)
		}
	}
}

const commentedFile = `# paycli settings, kept by hand
default_profile: live # the real one
profiles:
  # production account
  live:
    base_url: https://app.sipay.com.tr/ccpayment # live!
    app_id: "999"
    # lang: tr
  test: # sandbox account
`

func openEditOf(t *testing.T, content string) *Edit {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e, err := OpenEdit(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// TestConcurrentEditsKeepEveryChange: writers that each add a profile at
// the same time all survive, since each reads the file under the lock.
func TestConcurrentEditsKeepEveryChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paycli", "config.yaml")
	const writers = 30
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			e, err := OpenEdit(path)
			if err != nil {
				errs <- err
				return
			}
			defer e.Close()
			if err := e.Set(fmt.Sprintf("p%02d", i), "lang", "tr"); err != nil {
				errs <- err
				return
			}
			errs <- e.Save(AtomicWriter{})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Profiles); got != writers {
		t.Errorf("%d profiles survive %d concurrent writers: %v", got, writers, f.ProfileNames())
	}
}

// TestEditWaitsForTheLock: a second writer cannot open the file while the
// first holds it, and gives up with a message naming the lock.
func TestEditWaitsForTheLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock on Windows")
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	first, err := OpenEdit(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = openEdit(path, 0)
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "another paycli is changing it") {
		t.Fatalf("second OpenEdit: %v", err)
	}
	first.Close()
	second, err := OpenEdit(path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	second.Close()
}

func TestEditKeepsComments(t *testing.T) {
	e := openEditOf(t, commentedFile)
	steps := []error{
		e.Set("live", "app_id", "1000"),
		e.Set("live", "lang", "tr"),
		e.Set("test", "default_currency", "TRY"),
		e.Set("new", "timeout", "1m"),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := e.Save(AtomicWriter{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(e.Path)
	want := `# paycli settings, kept by hand
default_profile: live # the real one
profiles:
  # production account
  live:
    base_url: https://app.sipay.com.tr/ccpayment # live!
    app_id: "1000"
    # lang: tr

    lang: tr
  test: # sandbox account
    default_currency: TRY
  new:
    timeout: 1m
`
	// yaml.v3 sets a foot comment ("# lang: tr") off from what follows
	// with a blank line.
	if string(got) != want {
		t.Errorf("file after edits:\n%s\nwant:\n%s", got, want)
	}
}

func TestEditOperations(t *testing.T) {
	t.Run("new file gets default_profile first", func(t *testing.T) {
		e := openEditOf(t, "")
		if err := e.Set("default", "base_url", TestBaseURL); err != nil {
			t.Fatal(err)
		}
		if err := e.SetDefaultProfile("default"); err != nil {
			t.Fatal(err)
		}
		got, _ := e.Bytes()
		want := "default_profile: default\nprofiles:\n  default:\n    base_url: " + TestBaseURL + "\n"
		if string(got) != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("an emptied profile gets keys in block style again", func(t *testing.T) {
		e := openEditOf(t, "profiles:\n  default: {}\n  mine: {lang: tr}\n")
		for _, kv := range [][3]string{{"default", "lang", "en"}, {"default", "timeout", "1m"}, {"mine", "timeout", "2m"}} {
			if err := e.Set(kv[0], kv[1], kv[2]); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := e.Bytes()
		want := "profiles:\n  default:\n    lang: en\n    timeout: 1m\n  mine: {lang: tr, timeout: 2m}\n"
		if string(got) != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("values that look like other types stay strings", func(t *testing.T) {
		e := openEditOf(t, "")
		for key, value := range map[string]string{"app_id": "12345", "app_secret": "yes", "merchant_key": "0x1F", "ca_cert": "~"} {
			if err := e.Set("p", key, value); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Save(AtomicWriter{}); err != nil {
			t.Fatal(err)
		}
		f, err := ReadFile(e.Path)
		if err != nil {
			t.Fatal(err)
		}
		p := f.Profiles["p"]
		if p["app_id"] != "12345" || p["app_secret"] != "yes" || p["merchant_key"] != "0x1F" || p["ca_cert"] != "~" {
			t.Errorf("read back %v", p)
		}
	})
	t.Run("unset removes only that key", func(t *testing.T) {
		e := openEditOf(t, commentedFile)
		removed, err := e.Unset("live", "app_id")
		if err != nil || !removed {
			t.Fatalf("removed %v err %v", removed, err)
		}
		removed, err = e.Unset("live", "app_id")
		if err != nil || removed {
			t.Fatalf("second unset: removed %v err %v", removed, err)
		}
		if removed, _ := e.Unset("test", "lang"); removed {
			t.Error("unset in an empty profile reported a removal")
		}
		got, _ := e.Bytes()
		if strings.Contains(string(got), "app_id") || !strings.Contains(string(got), "base_url: https://app.sipay.com.tr/ccpayment # live!") {
			t.Errorf("after unset:\n%s", got)
		}
	})
	t.Run("unknown key and bad values are refused", func(t *testing.T) {
		e := openEditOf(t, "")
		var uk *UnknownKeyError
		if err := e.Set("p", "colour", "red"); !errors.As(err, &uk) {
			t.Errorf("unknown key: %v", err)
		}
		if _, err := e.Unset("p", "colour"); !errors.As(err, &uk) {
			t.Errorf("unknown key in unset: %v", err)
		}
		var ve *ValueError
		if err := e.Set("p", "output", "xml"); !errors.As(err, &ve) {
			t.Errorf("bad value: %v", err)
		}
		if err := e.Set("a b", "lang", "tr"); err == nil {
			t.Error("bad profile name accepted")
		}
	})
	t.Run("default_profile is replaced in place", func(t *testing.T) {
		e := openEditOf(t, commentedFile)
		if err := e.SetDefaultProfile("test"); err != nil {
			t.Fatal(err)
		}
		got, _ := e.Bytes()
		if !strings.Contains(string(got), "default_profile: test # the real one\n") {
			t.Errorf("got:\n%s", got)
		}
	})
	t.Run("a broken file is not opened", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte("profiles: [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var fe *FileError
		if _, err := OpenEdit(path); !errors.As(err, &fe) {
			t.Errorf("err = %v, want *FileError", err)
		}
	})
}
