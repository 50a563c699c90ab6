package sandboxcmd

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
)

// TestServeFlushesOnATickerUnlessDurable: --durable sets Durable and serve
// then starts no flush ticker (every commit syncs itself); without it,
// serve takes its flush ticks from FlushTicks and stops the ticker when it
// returns.
func TestServeFlushesOnATickerUnlessDurable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args        []string
		wantDurable bool
		wantTicker  bool
	}{
		{nil, false, true},
		{[]string{"--durable"}, true, false},
	} {
		parsed, err := parseServe(t, tc.args...)
		if err != nil || parsed.Durable != tc.wantDurable || parsed.FlushTicks == nil {
			t.Fatalf("%v: %v, Durable %v, want %v", tc.args, err, parsed.Durable, tc.wantDurable)
		}
		ios, _, _, _ := iostreams.Test()
		started, stopped := false, false
		ctx, cancel := context.WithCancel(context.Background())
		opts := &ServeOptions{IO: ios, Addr: "127.0.0.1:0", StateDir: t.TempDir(), Listen: net.Listen, LockTimeout: time.Second,
			Now: time.Now, Durable: parsed.Durable, Ready: func(string) { cancel() },
			FlushTicks: func() (<-chan time.Time, func()) { started = true; return nil, func() { stopped = true } }}
		if err := serveRun(ctx, opts); err != nil {
			t.Fatal(err)
		}
		if started != tc.wantTicker || stopped != tc.wantTicker {
			t.Errorf("%v: ticker started %v, stopped %v; want %v", tc.args, started, stopped, tc.wantTicker)
		}
	}
}
