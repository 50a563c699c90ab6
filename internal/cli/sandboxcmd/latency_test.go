package sandboxcmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
)

func TestServeLatencyFlag(t *testing.T) {
	got, err := parseServe(t, "--latency", "50ms")
	if err != nil || got.Latency != 50*time.Millisecond {
		t.Fatalf("--latency 50ms: %+v, %v", got, err)
	}
	if got, err := parseServe(t, "--latency", "-1s"); !isUsage(err) || got != nil {
		t.Fatalf("--latency -1s: err %v, want a usage error", err)
	}
	if withLatency(0) != nil {
		t.Error("no latency still wraps the handler")
	}
}

// TestWithLatency: a request is handled after the wait, and not at all
// when its client has gone away during it.
func TestWithLatency(t *testing.T) {
	handled := 0
	h := withLatency(time.Nanosecond)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { handled++ }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/x", nil))
	if handled != 1 {
		t.Fatalf("handled %d times, want 1", handled)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h = withLatency(time.Hour)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { handled++ }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/x", nil).WithContext(ctx))
	if handled != 1 {
		t.Errorf("a request whose client went away was handled")
	}
}

// TestLatencySparesTheHealthCheck: with an hour of latency, the health
// check is still answered at once (the test would hang otherwise), so
// --sandbox commands find a slow sandbox running.
func TestLatencySparesTheHealthCheck(t *testing.T) {
	handled := 0
	h := withLatency(time.Hour)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { handled++ }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", sandbox.HealthPath, nil))
	if handled != 1 {
		t.Fatalf("the health check was handled %d times, want 1", handled)
	}
}
