package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/webhook"
)

// The sandbox's own delivery policy (the gateway's documentation does not
// give one): an attempt waits DefaultWebhookTimeout for an answer; a
// delivery not answered 2xx is tried again after DefaultWebhookBackoff,
// then twice as long each time, at most DefaultWebhookMaxBackoff apart,
// DefaultWebhookAttempts times in all (about 8.5 minutes), and is then
// marked failed until resent.
const (
	DefaultWebhookTimeout    = 10 * time.Second
	DefaultWebhookBackoff    = time.Second
	DefaultWebhookMaxBackoff = 5 * time.Minute
	DefaultWebhookAttempts   = 10
	// webhookParallel bounds the deliveries in flight, so that one slow
	// receiver does not hold up the others and many do not swamp it.
	webhookParallel = 4
)

// WebhookOptions configure webhook delivery. Zero fields take the
// defaults above.
type WebhookOptions struct {
	// Endpoints are the registered web hook keys; a sale or refund that
	// names another key queues no delivery.
	Endpoints   map[string]WebhookEndpoint
	Timeout     time.Duration
	Backoff     time.Duration
	MaxBackoff  time.Duration
	MaxAttempts int
	// Transport sends the webhooks (a transport without proxies when nil).
	Transport http.RoundTripper
	// Logf, when set, logs one line per attempt (serve prints them).
	Logf func(format string, args ...any)
}

func (o WebhookOptions) withDefaults() WebhookOptions {
	if o.Timeout <= 0 {
		o.Timeout = DefaultWebhookTimeout
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultWebhookBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultWebhookMaxBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = o.Backoff
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultWebhookAttempts
	}
	if o.Transport == nil {
		// Webhook URLs are the merchant's own (loopback unless serve is
		// --public): proxies from the environment are not for them.
		o.Transport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: webhookParallel}
	}
	return o
}

// RetryDelay is the wait after the n-th failed attempt of a round (n from
// 1): Backoff doubled n-1 times, at most MaxBackoff.
func (o WebhookOptions) RetryDelay(n int) time.Duration {
	o = o.withDefaults()
	d := o.Backoff
	for i := 1; i < n && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}

// deliverer sends the outbox's pending deliveries. It runs from Start to
// Stop (a Server's life); deliveries queued while it does not run wait in
// the store for the next one.
type deliverer struct {
	store     *Store
	opts      WebhookOptions
	appSecret string
	now       func() time.Time
	client    *http.Client
	kickCh    chan struct{}

	mu      sync.Mutex
	busy    map[uint64]bool // deliveries being attempted
	cancel  context.CancelFunc
	stopped chan struct{}
	wg      sync.WaitGroup
}

func newDeliverer(store *Store, opts WebhookOptions, appSecret string, now func() time.Time) *deliverer {
	opts = opts.withDefaults()
	return &deliverer{store: store, opts: opts, appSecret: appSecret, now: now, kickCh: make(chan struct{}, 1), busy: map[uint64]bool{},
		client: &http.Client{Transport: opts.Transport, Timeout: opts.Timeout,
			// A redirect is an answer other than 2xx: the webhook was not
			// taken at the registered URL.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// kick wakes the worker; it never blocks.
func (d *deliverer) kick() {
	select {
	case d.kickCh <- struct{}{}:
	default:
	}
}

// Start runs the worker until Stop. Pending deliveries already due (left
// by an earlier run, or by a crash) are sent at once.
func (d *deliverer) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.stopped = cancel, make(chan struct{})
	go d.run(ctx)
}

// Stop ends the worker: attempts in flight are abandoned (not recorded;
// their deliveries stay pending, so the next run sends them again), and
// Stop returns once nothing touches the store any more.
func (d *deliverer) Stop() {
	d.mu.Lock()
	cancel, stopped := d.cancel, d.stopped
	d.cancel = nil
	d.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-stopped
	d.wg.Wait()
}

func (d *deliverer) run(ctx context.Context) {
	defer close(d.stopped)
	sem := make(chan struct{}, webhookParallel)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		next, err := d.dispatch(ctx, sem)
		if err != nil {
			d.logf("webhooks: cannot read the outbox: %v", err)
			next = d.now().Add(d.opts.Backoff)
		}
		timer.Reset(next.Sub(d.now()))
		select {
		case <-ctx.Done():
			return
		case <-d.kickCh:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// deliveryIdle is how long the worker sleeps with nothing scheduled; a
// kick wakes it sooner.
const deliveryIdle = time.Minute

// dispatch starts an attempt for every pending delivery that is due and
// not in flight, while slots are free, and returns when the next one falls
// due.
func (d *deliverer) dispatch(ctx context.Context, sem chan struct{}) (time.Time, error) {
	all, err := d.store.Deliveries()
	if err != nil {
		return time.Time{}, err
	}
	return d.dispatchFrom(ctx, sem, all), nil
}

// dispatchFrom is dispatch over a list read earlier: an attempt may have
// finished since, so each delivery is read again before it is sent.
func (d *deliverer) dispatchFrom(ctx context.Context, sem chan struct{}, all []Delivery) time.Time {
	now := d.now()
	next := now.Add(deliveryIdle)
	for _, del := range all {
		if del.State != DeliveryPending {
			continue
		}
		d.mu.Lock()
		inFlight := d.busy[del.ID]
		d.mu.Unlock()
		if inFlight {
			continue
		}
		if del.NextAttemptAt.After(now) {
			if del.NextAttemptAt.Before(next) {
				next = del.NextAttemptAt
			}
			continue
		}
		select {
		case sem <- struct{}{}:
		default:
			// Every slot is taken; a finishing attempt kicks the worker.
			continue
		}
		d.mu.Lock()
		d.busy[del.ID] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			// The list was read before this delivery was marked busy: an
			// attempt that ended in between (delivered, or put off) left
			// it stale, and sending from it would deliver twice.
			if cur, err := d.store.delivery(del.ID); err == nil && cur.State == DeliveryPending && !cur.NextAttemptAt.After(d.now()) {
				d.attempt(ctx, cur)
			}
			d.mu.Lock()
			delete(d.busy, del.ID)
			d.mu.Unlock()
			<-sem
			d.kick()
		}()
	}
	return next
}

// attempt sends one delivery once and records the attempt.
func (d *deliverer) attempt(ctx context.Context, del Delivery) {
	start := d.now()
	status, err := d.send(ctx, del)
	if ctx.Err() != nil {
		return // stopping: the delivery stays pending for the next run
	}
	a := Attempt{Time: start.UTC(), Status: status, DurationMS: d.now().Sub(start).Milliseconds()}
	ok := err == nil && status >= 200 && status < 300
	switch {
	case err != nil:
		a.Error = err.Error()
	case !ok:
		a.Error = fmt.Sprintf("HTTP %d", status)
	}
	var outcome string
	_, uerr := d.store.UpdateDelivery(del.ID, func(cur *Delivery) error {
		if cur.State != DeliveryPending {
			// Marked otherwise while in flight: keep the record of the
			// attempt, change nothing else.
			cur.Attempts = append(cur.Attempts, a)
			outcome = "recorded"
			return nil
		}
		cur.Attempts = append(cur.Attempts, a)
		n := len(cur.Attempts) - cur.RoundStart
		switch {
		case ok:
			cur.State, cur.DeliveredAt, cur.NextAttemptAt = DeliveryDelivered, d.now().UTC(), time.Time{}
			outcome = "delivered"
		case n >= d.opts.MaxAttempts:
			cur.State, cur.NextAttemptAt = DeliveryFailed, time.Time{}
			outcome = fmt.Sprintf("failed after %d attempts (resend it with 'paycli sandbox webhooks resend %d')", n, cur.ID)
		default:
			wait := d.opts.RetryDelay(n)
			cur.NextAttemptAt = d.now().Add(wait).UTC()
			outcome = fmt.Sprintf("retry in %s", wait)
		}
		return nil
	})
	if uerr != nil {
		d.logf("webhooks: cannot record an attempt of delivery %d: %v", del.ID, uerr)
		return
	}
	result := fmt.Sprintf("HTTP %d", status)
	if err != nil {
		result = err.Error()
	}
	// The log shows the invoice as every paycli command does (a card
	// number typed as an invoice id masked); the webhook carried it whole.
	d.logf("webhook %d: %s %s %s → %s (%dms): %s", del.ID, del.Kind, webhook.Printable(redact.Invoice(del.InvoiceID)), del.URL, webhook.Printable(result), a.DurationMS, outcome)
}

// send POSTs the delivery's body, signed now, and returns the receiver's
// HTTP status.
func (d *deliverer) send(ctx context.Context, del Delivery) (int, error) {
	signed, err := webhook.Sign(signingKind(del.Kind), del.Fields, d.appSecret)
	if err != nil {
		return 0, err
	}
	ct, body, err := webhook.Encode(del.Encoding, signed)
	if err != nil {
		return 0, err
	}
	req, err := newWebhookRequest(ctx, del.URL, ct, body)
	if err != nil {
		return 0, err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return 0, fmt.Errorf("no answer within %s", d.opts.Timeout)
		}
		return 0, errors.Unwrap(err) // the *url.Error's cause: its text repeats the URL
	}
	// Drained (a little) so the connection is reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

func newWebhookRequest(ctx context.Context, url, contentType string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "paycli-sandbox-webhooks")
	return req, nil
}

func (d *deliverer) logf(format string, args ...any) {
	if d.opts.Logf != nil {
		d.opts.Logf(format, args...)
	}
}
