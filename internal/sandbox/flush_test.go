package sandbox

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerFlushesOnTicksAndShutdown runs a server on a tick channel the
// test drives and counts the syncs of its store: one at a tick after new
// commits, none at a tick after none, one at Shutdown for commits since the
// last tick. A durable server's commits sync themselves: it adds none.
func TestServerFlushesOnTicksAndShutdown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		durable bool
		// want is the syncs counted after each step: the tick after the
		// open's recovery commit, the tick after a sale, a tick after
		// nothing, Shutdown after a second sale.
		want [4]int64
	}{
		{"page cache, flushed on ticks", false, [4]int64{1, 2, 2, 3}},
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
			tick := func() { ticks <- time.Time{}; ticks <- time.Time{} }
			sale := func(inv string) {
				if err := srv.store.Reserve(Sale{InvoiceID: inv, OrderID: "O" + inv, State: StateCompleted}); err != nil {
					t.Fatal(err)
				}
			}
			var got [4]int64
			tick()
			got[0] = syncs.Load()
			sale("A")
			tick()
			got[1] = syncs.Load()
			tick()
			got[2] = syncs.Load()
			sale("B")
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
