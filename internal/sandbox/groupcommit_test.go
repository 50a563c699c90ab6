package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestGroupCommit: concurrent writes all commit, each in a transaction
// shared with others; a write that fails gets its own error, leaves
// nothing behind, and the others of its group still commit.
func TestGroupCommit(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err }); err != nil {
		t.Fatal(err)
	}
	g := &groupCommit{db: db}
	refused := errors.New("refused")
	var wg sync.WaitGroup
	errs := make([]error, 200)
	var mu sync.Mutex
	txs := map[*bolt.Tx]int{}
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.do(func(tx *bolt.Tx) error {
				mu.Lock()
				txs[tx]++
				mu.Unlock()
				if err := tx.Bucket([]byte("b")).Put([]byte(fmt.Sprintf("k%03d", i)), []byte("v")); err != nil {
					return err
				}
				if i%10 == 7 {
					return refused // after writing: the write must be undone
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (i%10 == 7) != errors.Is(err, refused) || (i%10 != 7 && err != nil) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	_ = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("b"))
		for i := range errs {
			if got := b.Get([]byte(fmt.Sprintf("k%03d", i))) != nil; got != (i%10 != 7) {
				t.Errorf("k%03d stored: %v", i, got)
			}
		}
		return nil
	})
	shared := 0
	for _, n := range txs {
		if n > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no transaction was shared by concurrent writes")
	}
}

// TestGroupCommitTakesWritesArrivingWhileItYields: the committer yields
// before it takes a group, so that writes of requests already running
// join it. The other writers are let go only once the committer yields;
// without the yield the first write commits alone.
func TestGroupCommitTakesWritesArrivingWhileItYields(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &groupCommit{db: db}
	const writers = 8
	others := make(chan struct{})
	release := sync.OnceFunc(func() { close(others) })
	first := true
	g.yield = func() {
		if !first {
			return
		}
		first = false
		release()
		for {
			g.mu.Lock()
			n := len(g.pending)
			g.mu.Unlock()
			if n == writers {
				return
			}
			runtime.Gosched()
		}
	}
	var mu sync.Mutex
	txOf := make([]int, writers)
	write := func(i int) error {
		return g.do(func(tx *bolt.Tx) error {
			mu.Lock()
			txOf[i] = tx.ID()
			mu.Unlock()
			return nil
		})
	}
	var wg sync.WaitGroup
	for i := 1; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-others
			if err := write(i); err != nil {
				t.Error(err)
			}
		}()
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	release() // without the yield, the others start now
	wg.Wait()
	for i, id := range txOf {
		if id != txOf[0] {
			t.Errorf("write %d committed in transaction %d, the first write in %d: the group did not wait for the writes running beside it", i, id, txOf[0])
		}
	}
}
