package sandboxcmd

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
)

func TestServeFaultFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage bool
	}{
		{[]string{"--faults", "--fault-rate", "0.25", "--fault-seed", "7", "--fault-delay", "2s"}, false},
		{[]string{"--faults", "--fault-rate", "1"}, false},
		{[]string{"--fault-rate", "0.25"}, true}, // needs --faults
		{[]string{"--faults", "--fault-rate", "1.5"}, true},
		{[]string{"--faults", "--fault-rate", "-0.1"}, true},
		{[]string{"--faults", "--fault-rate", "0.5", "--fault-delay", "0s"}, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parseServe(t, tt.args...)
			if tt.wantUsage {
				if !isUsage(err) || got != nil {
					t.Fatalf("err %v, want a usage error before running", err)
				}
				return
			}
			if err != nil || !got.Faults || got.FaultRate <= 0 {
				t.Fatalf("err %v opts %+v", err, got)
			}
		})
	}
}

// TestServeRandomFaults: serve with --fault-rate 1 faults every API
// request and logs each fault on stderr; the health probe still answers.
func TestServeRandomFaults(t *testing.T) {
	_, ios := testFactory(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	opts := &ServeOptions{IO: ios, Now: time.Now, Addr: "127.0.0.1:0", StateDir: t.TempDir(), Listen: net.Listen, Faults: true,
		FaultRate: 1, FaultSeed: 3, FaultDelay: 10 * time.Millisecond, Ready: func(u string) { ready <- u }}
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	}
	if !sandbox.Probe(ctx, base) {
		t.Error("the health probe got a fault")
	}
	// A new connection each time: a request written to a connection the
	// last fault closed would never reach the server.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for range 5 {
		resp, err := client.Post(base+"/api/token", "application/json", strings.NewReader(`{"app_id":"x","app_secret":"y"}`))
		if err == nil {
			resp.Body.Close()
		}
	}
	cancel()
	<-done
	stderr := ios.ErrOut.(interface{ String() string }).String()
	if n := strings.Count(stderr, "fault: POST /ccpayment/api/token "); n != 5 {
		t.Errorf("%d faults logged, want 5:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "random:       1 of API requests, seed 3") {
		t.Errorf("stderr does not announce the random faults:\n%s", stderr)
	}
}
