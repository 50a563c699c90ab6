package journal

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/filelock"
)

func fileStore(t *testing.T) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	f := OpenFile(path, func() time.Time { return t0 })
	t.Cleanup(func() { _ = f.Close() })
	return f, path
}

// TestFileLock: an invoice's lock is held by one holder at a time, on one
// gateway account; another is told who holds it and since when; released,
// it can be taken again, and its file is gone.
func TestFileLock(t *testing.T) {
	f, path := fileStore(t)
	ctx := context.Background()
	unlock, err := f.Lock(ctx, "gw", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	// Another store of the same journal (another process's) is refused.
	other := OpenFile(path, func() time.Time { return t0.Add(time.Minute) })
	_, err = other.Lock(ctx, "gw", "INV-1", "refund")
	var inFlight *InFlightError
	if !errors.As(err, &inFlight) {
		t.Fatalf("second lock: %v, want in flight", err)
	}
	if h := inFlight.Holder; h.PID != os.Getpid() || h.Command != "refund" || !h.Since.Equal(t0) {
		t.Errorf("holder %+v, want this process's refund since %v", h, t0)
	}
	if !strings.Contains(err.Error(), "refund is in flight in pid ") {
		t.Errorf("error %q", err)
	}
	// Another invoice, or the same invoice on another account, is free.
	for _, k := range [][2]string{{"gw", "INV-2"}, {"other-gw", "INV-1"}} {
		u, err := other.Lock(ctx, k[0], k[1], "refund")
		if err != nil {
			t.Errorf("%v: %v", k, err)
			continue
		}
		u()
	}
	unlock()
	if runtime.GOOS != "windows" {
		if left, _ := os.ReadDir(path + LocksSuffix); len(left) != 0 {
			t.Errorf("lock files left: %v", left)
		}
	}
	u, err := other.Lock(ctx, "gw", "INV-1", "walletpay")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	u()
}

// TestFileLockOneHolderAtATime: goroutines racing for one invoice's lock
// (each as a process would, with stores of their own) never hold it
// together, however the holders before them removed its file.
func TestFileLockOneHolderAtATime(t *testing.T) {
	_, path := fileStore(t)
	var held, overlaps, taken atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s := OpenFile(path, time.Now)
			for range 200 {
				unlock, err := s.Lock(context.Background(), "gw", "INV-1", "refund")
				var inFlight *InFlightError
				if errors.As(err, &inFlight) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				taken.Add(1)
				if held.Add(1) > 1 {
					overlaps.Add(1)
				}
				// Hold it a while: others open, remove and lock meanwhile.
				for range 20 {
					runtime.Gosched()
				}
				held.Add(-1)
				unlock()
			}
		})
	}
	wg.Wait()
	if overlaps.Load() != 0 || taken.Load() == 0 {
		t.Errorf("%d overlaps in %d locks taken", overlaps.Load(), taken.Load())
	}
}

// TestFileLockReleasedByTheKernel: a process killed while it holds an
// invoice's lock (kill -9: nothing of it runs again) leaves the lock free,
// for the next command to find the attempt it left unknown.
func TestFileLockReleasedByTheKernel(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no SIGKILL")
	}
	_, path := fileStore(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLockHolder$")
	cmd.Env = append(os.Environ(), "JOURNAL_HELPER_PATH="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	s := OpenFile(path, time.Now)
	_, err = s.Lock(context.Background(), "gw", "INV-1", "refund")
	var inFlight *InFlightError
	if !errors.As(err, &inFlight) || inFlight.Holder.PID != cmd.Process.Pid {
		t.Fatalf("while the helper holds it: %v, want in flight in pid %d", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	unlock, err := s.Lock(context.Background(), "gw", "INV-1", "walletpay")
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	// The new holder is who another one is told of, not the killed one
	// whose file it took over.
	_, err = OpenFile(path, time.Now).Lock(context.Background(), "gw", "INV-1", "refund")
	if !errors.As(err, &inFlight) || inFlight.Holder.PID != os.Getpid() || inFlight.Holder.Command != "walletpay" {
		t.Errorf("after the kill: %v, want the new holder", err)
	}
	unlock()
}

// TestHelperLockHolder is the body of TestFileLockReleasedByTheKernel's
// other process: it takes the lock, says so, and waits to be killed.
func TestHelperLockHolder(t *testing.T) {
	path := os.Getenv("JOURNAL_HELPER_PATH")
	if path == "" {
		t.Skip("helper process for TestFileLockReleasedByTheKernel")
	}
	if _, err := OpenFile(path, time.Now).Lock(context.Background(), "gw", "INV-1", "refund"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Hour)
}

// TestFileAttempts: one invoice's attempts are found without decoding the
// rest; after every attempt has been read, later reads see what was
// appended since, and a line still being written is left for the next.
func TestFileAttempts(t *testing.T) {
	f, path := fileStore(t)
	ctx := context.Background()
	if got, err := f.Attempts(ctx, "INV-1"); err != nil || len(got) != 0 {
		t.Fatalf("a missing journal: %v, %v", got, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading created the journal: %v", err)
	}
	// "INV-1" is also in INV-10's line, and in a message: only INV-1's
	// attempts count.
	noisy := outcome("b1", "INV-10", Declined, 41)
	noisy.Message = `the gateway says "INV-1"`
	for _, e := range []Entry{intent("a1", "INV-1"), intent("b1", "INV-10"), noisy, outcome("a1", "INV-1", Succeeded, 100)} {
		if err := f.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != Succeeded {
		t.Fatalf("INV-1: %+v, %v", got, err)
	}
	all, err := f.Attempts(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	// Appended by another process since: seen by the next read.
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Append(intent("a2", "INV-1"))
	_ = w.Close()
	// A line being written (no newline yet) is not read.
	raw, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	_, _ = raw.WriteString(`{"type":"outcome","attempt":"a2","invoice":"INV-1","outcome":"succeeded"`)
	got, err = f.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 2 || got[1].Intent.Attempt != "a2" || got[1].Recorded() {
		t.Fatalf("after an append elsewhere: %+v, %v", got, err)
	}
	_, _ = raw.WriteString("}\n")
	_ = raw.Close()
	got, err = f.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 2 || !got[1].Recorded() {
		t.Fatalf("after the line was finished: %+v, %v", got, err)
	}
}

// TestFileFind: --retry's look-up finds an attempt by its id or its ref,
// with every attempt of the same ref and their reconciliations, even those
// written before reconcile lines carried the ref.
func TestFileFind(t *testing.T) {
	f, _ := fileStore(t)
	ctx := context.Background()
	first := intent("a1", "INV-1")
	first.Kind, first.Ref = "refund", "RF1"
	retry := first
	retry.Attempt = "a2"
	old := Entry{Type: TypeReconcile, Attempt: "a2", Invoice: "INV-1", Outcome: Succeeded, Via: ViaReconcile} // no ref
	other := intent("b1", "INV-2")
	other.Kind, other.Ref = "refund", "RF2"
	for _, e := range []Entry{first, other, retry, old} {
		if err := f.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"RF1", "a2"} {
		got, err := f.Find(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range got {
			ids = append(ids, a.Intent.Attempt)
		}
		want := "a1 a2"
		if name == "a2" {
			want = "a2"
		}
		if strings.Join(ids, " ") != want || got[len(got)-1].Class() != Succeeded {
			t.Errorf("Find(%s): %v (%+v)", name, ids, got)
		}
	}
	if got, err := f.Find(ctx, "RF9"); err != nil || len(got) != 0 {
		t.Errorf("Find(RF9): %v, %v", got, err)
	}
}

// TestFileLockHolderReadWhileBeingWritten: a lock found held before its
// holder has written who it is (the moment between the flock and the
// write) still names the holder once it is written.
func TestFileLockHolderReadWhileBeingWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.lock")
	held, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if busy, err := filelock.TryLock(held); busy || err != nil {
		t.Fatalf("lock: %v %v", busy, err)
	}
	go func() {
		time.Sleep(3 * time.Millisecond)
		_, _ = held.WriteAt([]byte(`{"command":"refund","pid":4242,"since":"2026-11-25T10:00:00Z"}`), 0)
	}()
	_, err = lockInvoice(path, Holder{Command: "refund", PID: 1})
	var inFlight *InFlightError
	if !errors.As(err, &inFlight) || inFlight.Holder.PID != 4242 {
		t.Fatalf("lock taken while its holder was writing: %v (%+v)", err, inFlight)
	}
}
