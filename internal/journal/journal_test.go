package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func intent(id, invoice string) Entry {
	return Entry{Type: TypeIntent, Attempt: id, Time: t0, Profile: "p", BaseURL: "https://gw/ccpayment",
		Invoice: invoice, Amount: "150.00", Currency: "TRY", Card: "435508******4358", Wallet: "001"}
}

func outcome(id, invoice, class string, code int) Entry {
	e := intent(id, invoice)
	e.Type, e.Outcome, e.StatusCode, e.Time = TypeOutcome, class, &code, t0.Add(time.Second)
	return e
}

func TestAppendAndRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "paycli")
	path := filepath.Join(dir, FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entry{
		intent("a1", "INV-1"), outcome("a1", "INV-1", Succeeded, 100),
		intent("a2", "INV-2"), // the process died here
		intent("a3", "INV-3"), outcome("a3", "INV-3", Declined, 41),
		intent("a4", "INV-1"), outcome("a4", "INV-1", Duplicate, 3),
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
			if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
				t.Errorf("%s: mode %v, %v; want %04o", p, info.Mode().Perm(), err, want)
			}
		}
	}
	attempts, skipped, err := Read(path)
	if err != nil || skipped != 0 {
		t.Fatalf("Read: %v, %d skipped", err, skipped)
	}
	var got []string
	for _, a := range attempts {
		got = append(got, a.Intent.Attempt+"="+a.Class()+"/"+strconv.FormatBool(a.Recorded()))
	}
	if want := "a1=succeeded/true a2=unknown/false a3=declined/true a4=duplicate/true"; strings.Join(got, " ") != want {
		t.Errorf("attempts %v, want %s", got, want)
	}
	states := ByInvoice(attempts, Scope{Kind: "walletpay", Profile: "p"})
	if s := states["INV-1"]; !s.Succeeded || s.Last.Intent.Attempt != "a4" || s.Success.Intent.Attempt != "a1" {
		t.Errorf("INV-1: %+v; want a1 as the success, a4 (the later duplicate) as the last", s)
	}
	if s := states["INV-2"]; s.Succeeded || s.Last.Class() != Unknown {
		t.Errorf("INV-2: %+v", s)
	}
	if len(ByInvoice(attempts, Scope{Kind: "walletpay", Profile: "other"})) != 0 {
		t.Error("another profile's attempts counted")
	}
}

func TestOpenTightensLooseFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
}

func TestReadToleratesDamage(t *testing.T) {
	var b bytes.Buffer
	for _, e := range []Entry{intent("a1", "INV-1"), outcome("a1", "INV-1", Succeeded, 100)} {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	b.WriteString("not json\n")
	b.WriteString(`{"type":"outcome","attempt":"orphan","invoice":"INV-9","outcome":"rejected"}` + "\n")
	b.WriteString(`{"type":"intent","attempt":"a1","invoice":"INV-1"}` + "\n") // repeated
	b.WriteString(strings.Repeat("x", maxLine+10) + "\n")
	b.WriteString(`{"type":"intent","attempt":"torn","inv`) // no newline: still being written
	attempts, skipped, err := readFrom(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 2 || attempts[1].Intent.Invoice != "INV-9" || attempts[1].Class() != Rejected {
		t.Errorf("attempts %+v", attempts)
	}
	if skipped.Lines != 4 {
		t.Errorf("skipped %d, want 4", skipped.Lines)
	}
}

// TestConcurrentAppends: parallel goroutines sharing a Journal and separate
// processes with their own never interleave lines.
func TestConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	const procs, goroutines, perWorker = 3, 4, 50
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$")
		cmd.Env = append(os.Environ(), "JOURNAL_HELPER_PATH="+path, "JOURNAL_HELPER_ID=p"+strconv.Itoa(p),
			"JOURNAL_HELPER_N="+strconv.Itoa(goroutines*perWorker))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	appendMany(t, path, "local", goroutines, perWorker)
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	attempts, skipped, err := Read(path)
	if err != nil || skipped != 0 {
		t.Fatalf("Read: %v, %d lines unreadable", err, skipped)
	}
	if want := (procs + 1) * goroutines * perWorker; len(attempts) != want {
		t.Fatalf("%d attempts, want %d", len(attempts), want)
	}
	for _, a := range attempts {
		if !a.Recorded() {
			t.Fatalf("attempt %s lost its outcome", a.Intent.Attempt)
		}
	}
}

// appendMany appends an intent and an outcome for goroutines×n attempts
// from goroutines goroutines sharing one Journal. Invoices are long so
// that a torn write would show.
func appendMany(t testing.TB, path, id string, goroutines, n int) {
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range n {
				a := fmt.Sprintf("%s-%d-%d", id, g, i)
				inv := a + strings.Repeat("-", 3000)
				if err := j.Append(intent(a, inv)); err != nil {
					t.Error(err)
					return
				}
				if err := j.Append(outcome(a, inv, Succeeded, 100)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestHelperAppender is the body of TestConcurrentAppends' other processes.
func TestHelperAppender(t *testing.T) {
	path := os.Getenv("JOURNAL_HELPER_PATH")
	if path == "" {
		t.Skip("helper process for TestConcurrentAppends")
	}
	n, _ := strconv.Atoi(os.Getenv("JOURNAL_HELPER_N"))
	appendMany(t, path, os.Getenv("JOURNAL_HELPER_ID"), 1, n)
}

// TestMoved: a journal whose path names another file, or none, has moved.
func TestMoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if moved, err := j.Moved(); moved || err != nil {
		t.Errorf("fresh: moved %v, %v", moved, err)
	}
	if err := os.Rename(path, path+".aside"); err != nil {
		t.Fatal(err)
	}
	if moved, err := j.Moved(); !moved || err != nil {
		t.Errorf("renamed: moved %v, %v", moved, err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if moved, err := j.Moved(); !moved || err != nil {
		t.Errorf("another file at its path: moved %v, %v", moved, err)
	}
}
