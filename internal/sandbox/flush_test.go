package sandbox

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerFlushesOnTicks runs a server on a tick channel the test drives
// and counts the syncs of its store: one at a tick after new commits, none
// at a tick or a Shutdown after none. A durable server's commits sync
// themselves: it adds none.
func TestServerFlushesOnTicks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		durable bool
		// want is the syncs counted after each step: the tick after the
		// open's recovery commit, the tick after a sale, a tick after
		// nothing, Shutdown after nothing.
		want [4]int64
	}{
		{"page cache, flushed on ticks", false, [4]int64{1, 2, 2, 2}},
		{"durable", true, [4]int64{0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ticks := make(chan time.Time) // unbuffered: a second send waits for the first tick's flush
			srv, err := StartServer(ln, ServerOptions{StateDir: t.TempDir(), Gateway: Options{Now: time.Now},
				Durable: tc.durable, FlushTicks: ticks})
			if err != nil {
				t.Fatal(err)
			}
			if srv.store.durable() != tc.durable {
				t.Fatalf("store durable = %v, want %v", srv.store.durable(), tc.durable)
			}
			var syncs atomic.Int64
			sync := srv.store.sync
			srv.store.sync = func() error { syncs.Add(1); return sync() } // before the first tick is sent
			// The second flush of a tick may still run when tick returns:
			// no commit follows a tick but the first step's, which the
			// next tick flushes if the straggler did not.
			tick := func() { ticks <- time.Time{}; ticks <- time.Time{} }
			var got [4]int64
			tick()
			got[0] = syncs.Load()
			if err := srv.store.Reserve(Sale{InvoiceID: "A", OrderID: "OA", State: StateCompleted}); err != nil {
				t.Fatal(err)
			}
			tick()
			got[1] = syncs.Load()
			tick()
			got[2] = syncs.Load()
			if err := srv.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			got[3] = syncs.Load()
			if got != tc.want {
				t.Errorf("syncs after each step %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCloseFlushesTheStore counts the syncs of a store's Close: one for
// the commits made since it was opened, none for a durable store, whose
// commits synced themselves.
func TestCloseFlushesTheStore(t *testing.T) {
	t.Parallel()
	for _, durable := range []bool{false, true} {
		s, err := openStore(t.TempDir(), 0, time.Now(), durable)
		if err != nil {
			t.Fatal(err)
		}
		var syncs atomic.Int64
		sync := s.sync
		s.sync = func() error { syncs.Add(1); return sync() }
		if err := s.Reserve(Sale{InvoiceID: "A", OrderID: "OA", State: StateCompleted}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{false: 1, true: 0}[durable]; syncs.Load() != want {
			t.Errorf("durable %v: Close synced %d times, want %d", durable, syncs.Load(), want)
		}
	}
}

// TestOnlyADurableStoreSyncsAsItsFileGrows: a store that is not durable
// does not fsync inside the commit that grows its file (bbolt's grow
// sync): that sync would hold every write queued behind the commit for
// the time the disk takes to write what was dirtied since the last flush.
func TestOnlyADurableStoreSyncsAsItsFileGrows(t *testing.T) {
	t.Parallel()
	for _, durable := range []bool{false, true} {
		s, err := openStore(t.TempDir(), 0, time.Now(), durable)
		if err != nil {
			t.Fatal(err)
		}
		if s.db.NoGrowSync == durable {
			t.Errorf("durable %v: bbolt's NoGrowSync is %v", durable, s.db.NoGrowSync)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
