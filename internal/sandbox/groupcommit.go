package sandbox

import (
	"runtime"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// groupCommit runs the store's writes in shared transactions: before each
// commit the committer yields the processor once (runtime.Gosched), so
// that requests already running reach their write and join the group;
// writes that arrive while a commit runs wait for it, then commit
// together in the next. Every write is committed before do returns
// (fsynced too in a durable store; see Store), as with bbolt's Batch, but
// none waits for a timer: Batch holds each write for MaxBatchDelay hoping
// for company, which at a sandbox's loads added that delay to every
// answer without adding company. The yield costs nothing when nothing
// else is runnable; under load it made groups of 6.4 payments instead of
// 1.6, and a commit of 6.4 cost 1.5 times one of 1.6 (its pages are
// mostly the same; docs/performance.md, walletPay, issue 40).
type groupCommit struct {
	db      *bolt.DB
	mu      sync.Mutex
	pending []pendingWrite
	running bool
	// yield is called before each group is taken (runtime.Gosched when
	// nil; a test holds it until the writes it expects are pending).
	yield func()
}

type pendingWrite struct {
	fn   func(*bolt.Tx) error
	done chan error
}

// do runs fn in a read-write transaction shared with the writes pending
// beside it and returns once that transaction is committed (fn's own
// error if fn failed, the commit's otherwise). As with bbolt's Batch, fn
// may run more than once: a transaction in which one write failed is
// rolled back and run again without it, so fn must depend on nothing but
// the transaction.
func (g *groupCommit) do(fn func(*bolt.Tx) error) error {
	done := make(chan error, 1)
	g.mu.Lock()
	g.pending = append(g.pending, pendingWrite{fn, done})
	if !g.running {
		g.running = true
		go g.loop()
	}
	g.mu.Unlock()
	return <-done
}

// loop commits the pending writes, a group at a time, until none is left.
func (g *groupCommit) loop() {
	yield := g.yield
	if yield == nil {
		yield = runtime.Gosched
	}
	for {
		yield()
		g.mu.Lock()
		group := g.pending
		g.pending = nil
		if len(group) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.commit(group)
	}
}

// commit runs a group of writes in one transaction. A write that fails
// gets its error and the others are run again without it.
func (g *groupCommit) commit(group []pendingWrite) {
	for len(group) > 0 {
		failed, failure := -1, error(nil)
		err := g.db.Update(func(tx *bolt.Tx) error {
			for i, w := range group {
				if err := w.fn(tx); err != nil {
					failed, failure = i, err
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			for _, w := range group {
				w.done <- err
			}
			return
		}
		group[failed].done <- failure
		group = slices.Delete(group, failed, failed+1)
	}
}
