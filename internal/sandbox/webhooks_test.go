package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/webhook"
)

// withHooks registers web hook keys on a fixture's gateway.
func withHooks(endpoints map[string]WebhookEndpoint) func(*Options) {
	return func(o *Options) { o.Webhooks.Endpoints = endpoints }
}

// deliveries returns the fixture's outbox.
func (fx *fixture) deliveries() []Delivery {
	fx.t.Helper()
	ds, err := fx.store.Deliveries()
	if err != nil {
		fx.t.Fatal(err)
	}
	return ds
}

// TestWebhooksQueuedWithTheirSales checks which changes of a sale queue a
// delivery, with which fields: a sale naming a registered key when it
// reaches its outcome (not while pending or waiting for 3D), a refund
// naming one when it is completed (at once or when approved), nothing for
// an unregistered key.
func TestWebhooksQueuedWithTheirSales(t *testing.T) {
	fx := newFixture(t, withHooks(map[string]WebhookEndpoint{
		"sales-hook":   {URL: "http://127.0.0.1:1/sales"},
		"refunds-hook": {URL: "http://127.0.0.1:1/refunds", Encoding: webhook.JSON},
	}))
	if res := fx.pay2D("WH-1", "4355084355084358", "150.00", 1, TypeAuth); res.status() != 100 {
		t.Fatalf("pay: %s", res.Raw)
	}
	ds := fx.deliveries()
	if len(ds) != 1 {
		t.Fatalf("after one sale: %+v", ds)
	}
	d := ds[0]
	sale, _, _ := fx.store.Get("WH-1")
	want := map[string]string{"status": "1", "total": "150.00", "invoice_id": "WH-1", "order_id": sale.OrderID,
		"order_no": sale.OrderID, "currency_code": "TRY", "payment_status": "1", "transaction_type": "Auth",
		"credit_card_no": "435508******4358"}
	if d.ID != 1 || d.Kind != webhook.Sale || d.WebHookKey != "sales-hook" || d.URL != "http://127.0.0.1:1/sales" ||
		d.Encoding != webhook.Form || d.State != DeliveryPending || len(d.Attempts) != 0 {
		t.Errorf("sale delivery: %+v", d)
	}
	for k, v := range want {
		if d.Fields[k] != v {
			t.Errorf("field %s = %q, want %q", k, d.Fields[k], v)
		}
	}
	if _, ok := d.Fields["hash_key"]; ok {
		t.Error("the stored delivery holds a hash_key")
	}

	// A declined sale reports status 0; a pending one nothing until it settles.
	fx.pay2D("WH-2", "4355080000000518", "10.00", 1, TypeAuth)
	fx.pay2D("WH-3", "4355084355084358", "20.69", 1, TypeAuth)
	ds = fx.deliveries()
	if len(ds) != 2 || ds[1].InvoiceID != "WH-2" || ds[1].Fields["status"] != "0" {
		t.Fatalf("after a decline and a pending sale: %+v", ds)
	}
	fx.status("WH-3")
	ds = fx.deliveries()
	if len(ds) != 3 || ds[2].InvoiceID != "WH-3" || ds[2].Fields["status"] != "1" {
		t.Fatalf("after the pending sale settled: %+v", ds)
	}
	fx.status("WH-3") // nothing changes: nothing more is owed
	if n := len(fx.deliveries()); n != 3 {
		t.Fatalf("a second check status queued %d deliveries", n-3)
	}

	// Refunds: one naming the refund key (delivered as JSON), one queued
	// for approval (owed once approved), one naming no key.
	refund := func(amount, key string) {
		b := refundBody(t, "WH-1", amount, "")
		if key != "" {
			b["refund_web_hook_key"] = key
		}
		if res := fx.authed("/api/refund", b); res.status() != 100 && res.status() != 101 {
			t.Fatalf("refund %s: %s", amount, res.Raw)
		}
	}
	refund("10.00", "refunds-hook")
	refund("5.01", "refunds-hook")
	refund("1.00", "")
	refund("2.00", "not-registered")
	ds = fx.deliveries()
	if len(ds) != 4 {
		t.Fatalf("after four refunds: %+v", ds[3:])
	}
	r := ds[3]
	if r.Kind != webhook.Refund || r.Encoding != webhook.JSON || r.Fields["status"] != "Completed" || r.Fields["amount"] != "10.00" ||
		r.Fields["invoice_id"] != "WH-1" || r.Fields["order_id"] != sale.OrderID || r.Fields["refund_transaction_id"] == "" {
		t.Errorf("refund delivery: %+v", r)
	}
	fx.status("WH-1") // approves the 5.01
	ds = fx.deliveries()
	if len(ds) != 5 || ds[4].Fields["amount"] != "5.01" || ds[4].Kind != webhook.Refund {
		t.Fatalf("after the approval: %+v", ds[4:])
	}
}

// Test3DAndPreAuthWebhooks: a 3D sale is reported when its challenge
// decides it (or, completed by the merchant, when completed or cancelled);
// a pre-authorization when it is held, not again when captured.
func Test3DAndPreAuthWebhooks(t *testing.T) {
	fx := newFixture(t, withHooks(map[string]WebhookEndpoint{"sales-hook": {URL: "http://127.0.0.1:1/"}}))
	pay3D := func(invoice, by, decision string) Sale {
		b := threeDBody(t, invoice, "4355084355084358", "30.00", by, TypeAuth)
		b.Set("sale_web_hook_key", "sales-hook")
		fx.callRaw("POST", Base+"/api/paySmart3D", b.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if n := len(fx.deliveries()); n != 0 && invoice == "WH3D-1" {
			t.Fatalf("a sale waiting for its challenge queued %d deliveries", n)
		}
		sale, _, _ := fx.store.Get(invoice)
		fx.call("POST", Base+ChallengePath, url.Values{"order_id": {sale.OrderID}, "decision": {decision}}.Encode(),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
		sale, _, _ = fx.store.Get(invoice)
		return sale
	}
	pay3D("WH3D-1", CompletedByApp, "approve")
	pay3D("WH3D-2", CompletedByApp, "decline")
	waiting := pay3D("WH3D-3", CompletedByMerchant, "approve")
	ds := fx.deliveries()
	if len(ds) != 2 || ds[0].Fields["status"] != "1" || ds[1].Fields["status"] != "0" {
		t.Fatalf("after three challenges: %+v", ds)
	}
	if res := fx.authed("/payment/complete", completeBody(t, "WH3D-3", waiting.OrderID, "complete")); res.status() != 100 {
		t.Fatalf("complete: %s", res.Raw)
	}
	ds = fx.deliveries()
	if len(ds) != 3 || ds[2].InvoiceID != "WH3D-3" || ds[2].Fields["status"] != "1" {
		t.Fatalf("after the completion: %+v", ds)
	}

	fx.pay2D("WH-PA", "4355084355084358", "80.00", 1, TypePreAuth)
	fx.authed("/api/confirmPayment", confirmBody(t, "WH-PA", "1", ""))
	ds = fx.deliveries()
	if len(ds) != 4 || ds[3].InvoiceID != "WH-PA" || ds[3].Fields["transaction_type"] != TypePreAuth {
		t.Fatalf("pre-authorization held and captured: %+v", ds)
	}

	// A cancel is an outcome too: the handler learns the hold is gone,
	// and the 3D sale the merchant cancelled was not charged.
	fx.pay2D("WH-PA2", "4355084355084358", "80.00", 1, TypePreAuth)
	if res := fx.authed("/api/confirmPayment", confirmBody(t, "WH-PA2", "2", "")); res.status() != 100 {
		t.Fatalf("cancel: %s", res.Raw)
	}
	ds = fx.deliveries()
	if len(ds) != 6 || ds[4].InvoiceID != "WH-PA2" || ds[4].Fields["status"] != "1" ||
		ds[5].InvoiceID != "WH-PA2" || ds[5].Fields["status"] != "0" || ds[5].Fields["payment_status"] != "0" {
		t.Fatalf("pre-authorization held and cancelled: %+v", ds)
	}
	cancelled := pay3D("WH3D-4", CompletedByMerchant, "approve")
	if res := fx.authed("/payment/complete", completeBody(t, "WH3D-4", cancelled.OrderID, "cancel")); res.status() != 100 {
		t.Fatalf("complete cancel: %s", res.Raw)
	}
	ds = fx.deliveries()
	if len(ds) != 7 || ds[6].InvoiceID != "WH3D-4" || ds[6].Fields["status"] != "0" {
		t.Fatalf("3D sale cancelled by the merchant: %+v", ds)
	}
}

// hookReceiver is a test webhook receiver answering the statuses it is told.
type hookReceiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	answer int
	bodies []webhook.Verdict
	types  []string
	got    chan struct{}
}

func newHookReceiver(t *testing.T, answer int) *hookReceiver {
	rc := &hookReceiver{t: t, answer: answer, got: make(chan struct{}, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		v, _ := webhook.Check(r.Header.Get("Content-Type"), data, AppSecret)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, v)
		rc.types = append(rc.types, r.Header.Get("Content-Type"))
		code := rc.answer
		rc.mu.Unlock()
		w.WriteHeader(code)
		rc.got <- struct{}{}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) setAnswer(code int) {
	rc.mu.Lock()
	rc.answer = code
	rc.mu.Unlock()
}

func (rc *hookReceiver) received() []webhook.Verdict {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]webhook.Verdict(nil), rc.bodies...)
}

// waitForDelivery polls the store until cond holds (the deadline only bounds a
// broken test).
func waitForDelivery(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startHooked serves a gateway over dir with webhook options.
func startHooked(t *testing.T, dir string, wo WebhookOptions) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{StateDir: dir, LockTimeout: 5 * time.Second, Gateway: Options{Now: time.Now, Webhooks: wo}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func (s *Server) delivery(t *testing.T, id uint64) Delivery {
	t.Helper()
	ds, err := s.store.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no delivery %d in %+v", id, ds)
	return Delivery{}
}

// hookPay makes a 2D sale naming "sales-hook" at a server.
func hookPay(t *testing.T, srv *Server, invoice string) {
	t.Helper()
	fx := &fixture{t: t, gw: srv.gateway}
	if res := fx.authed("/api/paySmart2D", cardBody(t, invoice, "4355084355084358", "150.00", "TRY", 1, TypeAuth)); res.status() != 100 {
		t.Fatalf("pay: %s", res.Raw)
	}
}

// TestDeliveryRetriesUntil2xx: a receiver answering 500 is tried again
// with backoff, and the delivery is marked delivered at its first 2xx,
// every attempt recorded, every body signed validly.
func TestDeliveryRetriesUntil2xx(t *testing.T) {
	rc := newHookReceiver(t, http.StatusInternalServerError)
	srv := startHooked(t, t.TempDir(), WebhookOptions{Endpoints: map[string]WebhookEndpoint{"sales-hook": {URL: rc.srv.URL + "/hooks"}},
		Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	defer srv.Shutdown(context.Background())
	hookPay(t, srv, "RT-1")
	for range 3 {
		<-rc.got
	}
	rc.setAnswer(http.StatusOK)
	waitForDelivery(t, "the delivery", func() bool { return srv.delivery(t, 1).State == DeliveryDelivered })
	d := srv.delivery(t, 1)
	n := len(d.Attempts)
	if n < 4 || d.Attempts[n-1].Status != 200 || d.Attempts[0].Status != 500 || d.Attempts[0].Error != "HTTP 500" || d.DeliveredAt.IsZero() {
		t.Fatalf("attempts: %+v", d)
	}
	for i, v := range rc.received() {
		if !v.Valid() || v.InvoiceID != "RT-1" || v.Amount != "150.00" || v.Kind != webhook.Sale {
			t.Errorf("body %d: %+v", i, v)
		}
	}
	if got := len(rc.received()); got != n {
		t.Errorf("%d attempts recorded, %d received", n, got)
	}
}

// TestDeliveryLogMasksACardInvoice: serve's line for an attempt shows an
// invoice id that is a card number masked, as every paycli command shows
// invoices; the webhook itself carries it whole, as the gateway would.
func TestDeliveryLogMasksACardInvoice(t *testing.T) {
	const card = "4111111111111111"
	rc := newHookReceiver(t, http.StatusOK)
	var mu sync.Mutex
	var logged []string
	srv := startHooked(t, t.TempDir(), WebhookOptions{Endpoints: map[string]WebhookEndpoint{"sales-hook": {URL: rc.srv.URL + "/hooks"}},
		Logf: func(format string, args ...any) {
			mu.Lock()
			logged = append(logged, fmt.Sprintf(format, args...))
			mu.Unlock()
		}})
	defer srv.Shutdown(context.Background())
	hookPay(t, srv, card)
	waitForDelivery(t, "the delivery", func() bool { return srv.delivery(t, 1).State == DeliveryDelivered })
	if got := rc.received(); len(got) != 1 || got[0].InvoiceID != card || !got[0].Valid() {
		t.Errorf("the receiver got %+v, want the invoice whole", got)
	}
	waitForDelivery(t, "the log line", func() bool { mu.Lock(); defer mu.Unlock(); return len(logged) > 0 })
	mu.Lock()
	defer mu.Unlock()
	if line := strings.Join(logged, "\n"); strings.Contains(line, card) || !strings.Contains(line, "webhook 1: sale 411111******1111 ") {
		t.Errorf("log: %s", line)
	}
}

// TestDeliveryFailsThenResend: a delivery whose attempts all fail (an
// error status, then no answer within the timeout) is marked failed;
// resent through the admin endpoint it gets a fresh round and arrives.
func TestDeliveryFailsThenResend(t *testing.T) {
	var stall atomic.Bool
	stall.Store(true)
	release := make(chan struct{})
	rc := newHookReceiver(t, http.StatusServiceUnavailable)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stall.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		rc.srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer slow.Close()
	defer close(release)
	srv := startHooked(t, t.TempDir(), WebhookOptions{Endpoints: map[string]WebhookEndpoint{"sales-hook": {URL: slow.URL}},
		Backoff: time.Millisecond, MaxAttempts: 2, Timeout: 50 * time.Millisecond})
	defer srv.Shutdown(context.Background())
	hookPay(t, srv, "RS-1")
	waitForDelivery(t, "the delivery to fail", func() bool { return srv.delivery(t, 1).State == DeliveryFailed })
	d := srv.delivery(t, 1)
	if len(d.Attempts) != 2 || d.Attempts[0].Status != 0 || !strings.Contains(d.Attempts[0].Error, "no answer within 50ms") {
		t.Fatalf("failed delivery: %+v", d)
	}

	stall.Store(false)
	rc.setAnswer(http.StatusNoContent)
	res, err := http.Post(srv.BaseURL+ResendPath, "application/json", strings.NewReader(`{"id": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	var answer ResendAnswer
	json.NewDecoder(res.Body).Decode(&answer)
	res.Body.Close()
	if res.StatusCode != 200 || answer.Delivery.State != DeliveryPending || answer.Delivery.RoundStart != 2 {
		t.Fatalf("resend: HTTP %d %+v", res.StatusCode, answer)
	}
	waitForDelivery(t, "the resent delivery", func() bool { return srv.delivery(t, 1).State == DeliveryDelivered })
	if d := srv.delivery(t, 1); len(d.Attempts) != 3 || d.Attempts[2].Status != 204 {
		t.Fatalf("after resend: %+v", d)
	}

	// The list endpoint shows it; unknown and malformed ids are refused.
	res, err = http.Get(srv.BaseURL + WebhooksPath)
	if err != nil {
		t.Fatal(err)
	}
	var list DeliveryList
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Deliveries) != 1 || list.Deliveries[0].State != DeliveryDelivered {
		t.Fatalf("list: %+v", list)
	}
	for body, want := range map[string]int{`{"id": 7}`: 404, `{"id": "x"}`: 400, `{}`: 400, `id=0`: 400, `[`: 400, `id=1&id=1`: 400, strings.Repeat("x", 5000): 413} {
		res, err := http.Post(srv.BaseURL+ResendPath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("resend %s: HTTP %d, want %d", body, res.StatusCode, want)
		}
	}
}

// TestPendingDeliveriesSurviveRestart: deliveries queued while no worker
// runs (a store closed with them pending, as after a crash) are sent by
// the next server; Shutdown with an attempt in flight returns, leaving the
// delivery pending.
func TestPendingDeliveriesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	hooks := map[string]WebhookEndpoint{"sales-hook": {URL: "http://127.0.0.1:1/unused"}}
	// The sales are made now: the servers below run on the real clock (a
	// delivery falls due when its sale is made).
	fx := &fixture{t: t, dir: dir, clock: &testClock{now: time.Now()}}
	fx.open(withHooks(hooks))
	fx.pay2D("SR-1", "4355084355084358", "150.00", 1, TypeAuth)
	fx.pay2D("SR-2", "4355084355084358", "150.00", 1, TypeAuth)
	fx.store.Close()

	// A receiver that never answers: Shutdown must not wait for it.
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	hung := make(chan struct{}, 2)
	srv := startHooked(t, dir, WebhookOptions{Transport: hookRoundTrip(func(r *http.Request) (*http.Response, error) {
		hung <- struct{}{}
		u, _ := url.Parse(hang.URL)
		r.URL.Host = u.Host
		return http.DefaultTransport.RoundTrip(r)
	})})
	<-hung
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	rc := newHookReceiver(t, http.StatusOK)
	srv = startHooked(t, dir, WebhookOptions{Transport: hookRedirectTo(rc.srv.URL)})
	defer srv.Shutdown(context.Background())
	waitForDelivery(t, "both deliveries", func() bool {
		return srv.delivery(t, 1).State == DeliveryDelivered && srv.delivery(t, 2).State == DeliveryDelivered
	})
	for _, id := range []uint64{1, 2} {
		if d := srv.delivery(t, id); len(d.Attempts) != 1 {
			t.Errorf("delivery %d: the abandoned attempt was recorded, or more were made: %+v", id, d.Attempts)
		}
	}
}

type hookRoundTrip func(*http.Request) (*http.Response, error)

func (f hookRoundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// hookRedirectTo sends every request to base's host (the registered URL of a
// delivery queued earlier names a port that is gone).
func hookRedirectTo(base string) http.RoundTripper {
	u, _ := url.Parse(base)
	return hookRoundTrip(func(r *http.Request) (*http.Response, error) {
		r.URL.Host = u.Host
		return http.DefaultTransport.RoundTrip(r)
	})
}

func TestCheckWebhookURL(t *testing.T) {
	for raw, public := range map[string]bool{
		"http://127.0.0.1:9000/hooks": false, "https://localhost/x": false, "http://[::1]:80/": false,
		"https://merchant.example/hooks": true, "http://10.0.0.1/": true,
	} {
		if err := CheckWebhookURL(raw, public); err != nil {
			t.Errorf("%s (public %v): %v", raw, public, err)
		}
		if public && CheckWebhookURL(raw, false) == nil {
			t.Errorf("%s accepted without public", raw)
		}
	}
	for _, raw := range []string{"", "127.0.0.1:9000", "ftp://127.0.0.1/", "http:///x", "/hooks", "http://u:p@127.0.0.1/"} {
		if CheckWebhookURL(raw, true) == nil {
			t.Errorf("%q accepted", raw)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	o := WebhookOptions{}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second,
		64 * time.Second, 128 * time.Second, 256 * time.Second, 5 * time.Minute, 5 * time.Minute}
	for i, w := range want {
		if got := o.RetryDelay(i + 1); got != w {
			t.Errorf("RetryDelay(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// FuzzResendBody feeds the resend endpoint's body reader what a client may
// send: it must not panic, and answers an id from 1 or a 4xx status with
// a reason.
func FuzzResendBody(f *testing.F) {
	f.Add("application/json", `{"id": 3}`)
	f.Add("application/x-www-form-urlencoded", "id=3")
	f.Add("", `{"id": "18446744073709551616"}`)
	f.Add("text/plain", "id=1&id=2")
	f.Add("application/json", `{"id": [1]}`)
	f.Add("multipart/form-data; boundary=x", "--x--")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		id, status, err := readResend(contentType, strings.NewReader(body))
		if err == nil {
			if id == 0 || status != 0 {
				t.Fatalf("accepted id %d with status %d", id, status)
			}
			return
		}
		if status < 400 || status > 499 || err.Error() == "" {
			t.Fatalf("refused with status %d: %v", status, err)
		}
	})
}

// A dispatch working from a list read before an attempt ended does not send
// the delivery again: it was delivered in between (the race that sent one
// event twice and shifted every later one).
func TestDispatchFromAStaleListSendsOnce(t *testing.T) {
	rc := newHookReceiver(t, http.StatusOK)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	store, err := OpenStore(t.TempDir(), time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	del, err := store.queueDelivery(Delivery{Kind: webhook.Sale, Encoding: webhook.Form, URL: rc.srv.URL + "/h", InvoiceID: "INV-1",
		Fields: map[string]string{"status": "1", "total": "10.00", "invoice_id": "INV-1", "order_id": "VP1", "currency_code": "TRY"}, State: DeliveryPending, CreatedAt: now, NextAttemptAt: now})
	if err != nil {
		t.Fatal(err)
	}
	d := newDeliverer(store, WebhookOptions{}, AppSecret, clock)
	stale, err := store.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	sem := make(chan struct{}, webhookParallel)
	d.dispatchFrom(context.Background(), sem, stale)
	d.wg.Wait()
	d.dispatchFrom(context.Background(), sem, stale)
	d.wg.Wait()
	if n := len(rc.received()); n != 1 {
		t.Fatalf("the receiver got %d deliveries, want 1", n)
	}
	cur, err := store.delivery(del.ID)
	if err != nil || cur.State != DeliveryDelivered || len(cur.Attempts) != 1 {
		t.Fatalf("delivery after two dispatches: %+v, %v", cur, err)
	}
}
