package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSync replaces a Journal's fsync: it records, for every call, how many
// bytes the file held when the fsync started (all of them are durable once
// it returns), and lets a test hold a call or fail it.
type fakeSync struct {
	mu      sync.Mutex
	sizes   []int64 // file size at the start of each call
	durable atomic.Int64
	started chan int              // receives the call's number (1-based) as it starts
	hold    map[int]chan struct{} // a call waits for its channel to close
	fail    map[int]error
}

func (s *fakeSync) sync(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.sizes = append(s.sizes, info.Size())
	n := len(s.sizes)
	hold, fail := s.hold[n], s.fail[n]
	s.mu.Unlock()
	if s.started != nil {
		s.started <- n
	}
	if hold != nil {
		<-hold
	}
	if fail != nil {
		return fail
	}
	for {
		d := s.durable.Load()
		if d >= info.Size() || s.durable.CompareAndSwap(d, info.Size()) {
			return nil
		}
	}
}

func (s *fakeSync) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sizes)
}

// openFake opens a journal whose fsyncs go through a fakeSync.
func openFake(t *testing.T, s *fakeSync) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	j.syncFile = s.sync
	return j, path
}

// waitForLines waits until the file at path holds n lines.
func waitForLines(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(data, []byte{'\n'}) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal holds %d lines, want %d", bytes.Count(data, []byte{'\n'}), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAppendReturnsOnlyWhenDurable: under many concurrent appends, every
// Append that returns has its line inside a range an fsync covered, and
// every line is present and well-formed at the end.
func TestAppendReturnsOnlyWhenDurable(t *testing.T) {
	s := &fakeSync{}
	j, path := openFake(t, s)
	const goroutines, perWorker = 16, 40
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perWorker {
				a := fmt.Sprintf("g%d-%d", g, i)
				if err := j.Append(intent(a, "INV-"+a)); err != nil {
					t.Error(err)
					return
				}
				durable := s.durable.Load()
				data, err := os.ReadFile(path)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Contains(data[:durable], []byte(`"attempt":"`+a+`"`)) {
					t.Errorf("Append of %s returned before an fsync covered its line", a)
				}
			}
		})
	}
	wg.Wait()
	attempts, skipped, err := Read(path)
	if err != nil || skipped != 0 {
		t.Fatalf("Read: %v, %d lines unreadable", err, skipped)
	}
	if len(attempts) != goroutines*perWorker {
		t.Fatalf("%d attempts, want %d", len(attempts), goroutines*perWorker)
	}
	t.Logf("%d appends, %d fsyncs", goroutines*perWorker, s.calls())
}

// heldFirstSync starts one Append whose fsync is held, then n more that
// write their lines while it is held. Once the held fsync is released it
// returns the n appends' results, the journal's path and the first
// append's result.
func heldFirstSync(t *testing.T, s *fakeSync, n int) (rest []error, path string, first error) {
	t.Helper()
	release := make(chan struct{})
	s.started = make(chan int, 16)
	s.hold = map[int]chan struct{}{1: release}
	j, path := openFake(t, s)
	firstDone := make(chan error, 1)
	go func() { firstDone <- j.Append(intent("first", "INV-first")) }()
	if got := <-s.started; got != 1 {
		t.Fatalf("fsync %d started first", got)
	}
	var returned atomic.Int32
	rest = make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a := fmt.Sprintf("a%d", i)
			rest[i] = j.Append(intent(a, "INV-"+a))
			returned.Add(1)
		})
	}
	waitForLines(t, path, n+1)
	if r := returned.Load(); r != 0 {
		t.Fatalf("%d appends returned while no fsync covering their lines had run", r)
	}
	close(release)
	first = <-firstDone
	wg.Wait()
	go func() {
		for range s.started {
		}
	}()
	return rest, path, first
}

// TestAppendsWaitingShareOneSync: lines written while an fsync runs are
// all covered by the next one.
func TestAppendsWaitingShareOneSync(t *testing.T) {
	s := &fakeSync{}
	const n = 20
	rest, path, first := heldFirstSync(t, s, n)
	if first != nil {
		t.Fatal(first)
	}
	for _, err := range rest {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := s.calls(); got != 2 {
		t.Fatalf("%d fsyncs for %d appends, want 2 (the held one, then one for the rest)", got, n+1)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.sizes[1] != info.Size() {
		t.Fatalf("the second fsync started at %d bytes, want all %d written", s.sizes[1], info.Size())
	}
}

// TestSyncErrorReachesEveryCoveredAppend: an fsync's failure is returned
// to every append whose line it covered, and to no other.
func TestSyncErrorReachesEveryCoveredAppend(t *testing.T) {
	injected := errors.New("injected EIO")
	s := &fakeSync{fail: map[int]error{2: injected}}
	rest, _, first := heldFirstSync(t, s, 12)
	if first != nil {
		t.Fatalf("the first append, covered by a good fsync, got %v", first)
	}
	for i, err := range rest {
		if !errors.Is(err, injected) {
			t.Errorf("append %d covered by the failed fsync returned %v", i, err)
		}
	}
}

// BenchmarkAppendParallel: eight goroutines appending to one journal on
// the test's temporary folder, each line fsynced as Append promises; the
// figure of docs/performance.md ("Batch runner against a distant
// gateway"). With group commit, appends that wait together share an fsync.
func BenchmarkAppendParallel(b *testing.B) {
	j, err := Open(filepath.Join(b.TempDir(), FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	b.ReportAllocs()
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 appenders, as --parallel 8
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a := fmt.Sprintf("a%d", n.Add(1))
			if err := j.Append(intent(a, "INV-"+a)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
