package journal

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTornLineDoesNotSwallowTheNext: a partial last line left by a failed
// write gets a newline before the next append, so the next record stays
// whole; readers report the torn line's offset.
func TestTornLineDoesNotSwallowTheNext(t *testing.T) {
	path := writeEntries(t, intent("a1", "INV-1"), outcome("a1", "INV-1", Succeeded, 100))
	info, _ := os.Stat(path)
	tornAt := info.Size()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"outcome","attempt":"dead`)
	_ = f.Close()
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(intent("a2", "CHARGED")); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(outcome("a2", "CHARGED", Succeeded, 100)); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	for name, read := range map[string]func() ([]Attempt, Damage, error){
		"ReadAll": func() ([]Attempt, Damage, error) { return ReadAll(path) },
	} {
		attempts, damage, err := read()
		if err != nil {
			t.Fatal(err)
		}
		var charged *Attempt
		for i := range attempts {
			if attempts[i].Intent.Invoice == "CHARGED" {
				charged = &attempts[i]
			}
		}
		if charged == nil || charged.Class() != Succeeded {
			t.Errorf("%s: the record after the torn line is lost: %+v", name, attempts)
		}
		if damage.Lines != 1 || len(damage.Offsets) != 1 || damage.Offsets[0] != tornAt {
			t.Errorf("%s: damage %+v, want the torn line at offset %d", name, damage, tornAt)
		}
	}
}

// TestReadSalvagesGluedLine: a journal written before writers mended torn
// ends may hold a torn line with the next entry glued on: the entry is
// recovered and the line still reported.
func TestReadSalvagesGluedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	glued := `{"type":"outcome","attempt":"dead` +
		`{"type":"intent","attempt":"a2","time":"2026-11-22T10:00:00Z","profile":"p","base_url":"u","invoice":"CHARGED","amount":"1.00","currency":"TRY","card":"c"}` + "\n"
	if err := os.WriteFile(path, []byte(glued), 0o600); err != nil {
		t.Fatal(err)
	}
	attempts, damage, err := ReadAll(path)
	if err != nil || len(attempts) != 1 || attempts[0].Intent.Invoice != "CHARGED" {
		t.Fatalf("attempts %+v, %v", attempts, err)
	}
	if damage.Lines != 0 {
		t.Errorf("damage %+v: a recovered line is not lost", damage)
	}
}

// TestRefusesNonRegularJournal: a FIFO (or a folder) where the journal
// should be is refused at once, never waited on.
func TestRefusesNonRegularJournal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := Open(path)
		done <- err
		_, _, err = Read(path)
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
				t.Errorf("err = %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("opening a FIFO journal hangs")
		}
	}
	dir := filepath.Join(t.TempDir(), FileName)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "missing")); err != nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing journal: %v", err)
	}
}
