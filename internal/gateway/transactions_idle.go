package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// defaultExchangeTimeout is NewHTTPClient's bound on an exchange when
// none is configured.
const defaultExchangeTimeout = 30 * time.Second

// WithStreamIdleTimeout bounds how long a streamed answer (a day of the
// ledger, read row by row) may send nothing; 0, the default, is the HTTP
// client's Timeout (30 seconds). The whole answer may take longer.
func WithStreamIdleTimeout(d time.Duration) Option { return func(c *Client) { c.streamIdle = d } }

// roundTrip sends req. An ordinary exchange is bounded whole by the HTTP
// client's Timeout. A streamed answer (v a rowStream) would break off a
// big day at that bound, so it is bounded by it until its headers, then
// by the idle timeout between reads of its body, however long the whole
// body takes; ctx still cancels both.
func (c *Client) roundTrip(req *http.Request, v any) (*http.Response, error) {
	if _, ok := v.(*rowStream); !ok {
		return c.hc.Do(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	timeout := cmpDuration(c.hc.Timeout, defaultExchangeTimeout)
	var headersLate atomic.Bool
	headers := time.AfterFunc(timeout, func() { headersLate.Store(true); cancel() })
	hc := *c.hc
	hc.Timeout = 0
	resp, err := hc.Do(req.WithContext(ctx))
	headers.Stop()
	if err != nil {
		cancel()
		if headersLate.Load() {
			err = &stalledError{what: "the answer's headers", after: timeout}
		}
		return nil, err
	}
	resp.Body = newIdleBody(resp.Body, cmpDuration(c.streamIdle, timeout), cancel)
	return resp, nil
}

// stalledError is a streamed exchange that waited past its bound: a
// timeout, as the HTTP client's own.
type stalledError struct {
	what  string
	after time.Duration
}

func (e *stalledError) Error() string {
	return fmt.Sprintf("%s did not arrive within %s", e.what, e.after)
}

// Timeout says that it is one (net.Error).
func (e *stalledError) Timeout() bool { return true }

// Temporary completes net.Error.
func (e *stalledError) Temporary() bool { return true }

// idleBody is a body each read of which may wait at most idle: the
// timer runs only while a read waits, not while the rows read are used.
type idleBody struct {
	rc      io.ReadCloser
	idle    time.Duration
	timer   *time.Timer
	stalled atomic.Bool
	cancel  context.CancelFunc
}

func newIdleBody(rc io.ReadCloser, idle time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{rc: rc, idle: idle, cancel: cancel}
	b.timer = time.AfterFunc(idle, func() { b.stalled.Store(true); cancel() })
	b.timer.Stop()
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.idle)
	n, err := b.rc.Read(p)
	b.timer.Stop()
	if b.stalled.Load() {
		return n, &stalledError{what: "the body's next bytes", after: b.idle}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	b.cancel()
	return b.rc.Close()
}
