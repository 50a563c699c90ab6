package webhook_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/webhook"
)

// handlerSpy is the merchant's handler: it records what reached it and
// answers with a status the test picks.
type handlerSpy struct {
	mu     sync.Mutex
	got    []*http.Request
	bodies []string
	status int
	delay  chan struct{} // when set, the handler waits for it
}

func (h *handlerSpy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.got = append(h.got, r)
	h.bodies = append(h.bodies, string(body))
	status := h.status
	h.mu.Unlock()
	if h.delay != nil {
		<-h.delay
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "handler says hi")
}

type receiverRig struct {
	url     string
	handler *handlerSpy
	mu      sync.Mutex
	events  []webhook.Event
	refused []string
}

func newRig(t *testing.T, forward, forwardInvalid bool, timeout time.Duration) *receiverRig {
	t.Helper()
	rig := &receiverRig{handler: &handlerSpy{status: http.StatusOK}}
	opts := webhook.ReceiverOptions{AppSecret: secret, ForwardInvalid: forwardInvalid, Now: time.Now,
		Client:  &http.Client{Timeout: timeout},
		Report:  func(e webhook.Event) { rig.mu.Lock(); rig.events = append(rig.events, e); rig.mu.Unlock() },
		Refused: func(s string) { rig.mu.Lock(); rig.refused = append(rig.refused, s); rig.mu.Unlock() },
	}
	if forward {
		hs := httptest.NewServer(rig.handler)
		t.Cleanup(hs.Close)
		opts.ForwardTo, _ = url.Parse(hs.URL + "/hooks/sale?x=1")
	}
	srv := httptest.NewServer(webhook.NewReceiver(opts))
	t.Cleanup(srv.Close)
	rig.url = srv.URL
	return rig
}

func (rig *receiverRig) post(t *testing.T, ct, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rig.url+"/callback", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (rig *receiverRig) lastEvent(t *testing.T) webhook.Event {
	t.Helper()
	rig.mu.Lock()
	defer rig.mu.Unlock()
	if len(rig.events) == 0 {
		t.Fatal("no event reported")
	}
	return rig.events[len(rig.events)-1]
}

func TestReceiverForwardsValidWebhooks(t *testing.T) {
	for _, enc := range []webhook.Encoding{webhook.Form, webhook.JSON} {
		t.Run(string(enc), func(t *testing.T) {
			rig := newRig(t, true, false, 5*time.Second)
			ct, body, _ := webhook.Encode(enc, saleFields())
			// A sender may not vouch for its own webhook.
			resp, answer := rig.post(t, ct, string(body), "X-Paycli-Hash", "forged", "X-Request-Id", "r-1")
			if resp.StatusCode != 200 || answer != "handler says hi" {
				t.Errorf("sender got %d %q, want the handler's 200", resp.StatusCode, answer)
			}
			if len(rig.handler.got) != 1 {
				t.Fatalf("handler got %d requests", len(rig.handler.got))
			}
			r := rig.handler.got[0]
			if got := r.Header.Values(webhook.HashHeader); len(got) != 1 || got[0] != "valid" {
				t.Errorf("%s = %q, want [valid]", webhook.HashHeader, got)
			}
			if r.Header.Get("Content-Type") != ct || r.Header.Get("X-Request-Id") != "r-1" {
				t.Errorf("headers not passed on: %v", r.Header)
			}
			if r.URL.Path != "/hooks/sale" || r.URL.RawQuery != "x=1" {
				t.Errorf("forwarded to %s", r.URL)
			}
			if rig.handler.bodies[0] != string(body) {
				t.Errorf("handler got %q, want the original %q", rig.handler.bodies[0], body)
			}
			ev := rig.lastEvent(t)
			if !ev.Valid() || !ev.Forwarded || ev.Handler == nil || ev.Handler.Status != 200 || ev.Response != 200 ||
				ev.Kind != webhook.Sale || ev.InvoiceID != "INV-001" || ev.Path != "/callback" || ev.Encoding != enc {
				t.Errorf("event %+v", ev)
			}
		})
	}
}

func TestReceiverInvalidNotForwarded(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string]string)
		field  string
	}{
		{"forged hash_key", func(m map[string]string) { m["hash_key"] = "abcdef0123456789:0f1e:AAAAAAAAAAAAAAAAAAAAAA==" }, "hash_key"},
		{"amount changed after signing", func(m map[string]string) { m["total"] = "999.00" }, "total"},
		{"no hash_key", func(m map[string]string) { delete(m, "hash_key") }, "hash_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, true, false, 5*time.Second)
			m := saleFields()
			tt.change(m)
			resp, answer := rig.post(t, "application/x-www-form-urlencoded", formBody(m))
			if resp.StatusCode != 400 || strings.Contains(answer, "differs") {
				t.Errorf("sender got %d %q, want 400 without the reason", resp.StatusCode, answer)
			}
			if len(rig.handler.got) != 0 {
				t.Errorf("an invalid webhook reached the handler")
			}
			ev := rig.lastEvent(t)
			if ev.Valid() || ev.Forwarded || ev.Field != tt.field || ev.Response != 400 {
				t.Errorf("event %+v", ev)
			}
		})
	}
}

func TestReceiverForwardInvalid(t *testing.T) {
	rig := newRig(t, true, true, 5*time.Second)
	rig.handler.status = http.StatusUnauthorized
	m := saleFields()
	m["total"] = "999.00"
	resp, _ := rig.post(t, "application/x-www-form-urlencoded", formBody(m))
	if resp.StatusCode != 401 {
		t.Errorf("sender got %d, want the handler's 401", resp.StatusCode)
	}
	if len(rig.handler.got) != 1 || rig.handler.got[0].Header.Get(webhook.HashHeader) != "invalid" {
		t.Fatalf("handler did not get it marked invalid")
	}
	// A body that is not a webhook at all is forwarded too, marked invalid.
	resp, _ = rig.post(t, "application/json", "{")
	if resp.StatusCode != 401 || len(rig.handler.got) != 2 {
		t.Errorf("broken body: %d, handler saw %d", resp.StatusCode, len(rig.handler.got))
	}
}

func TestReceiverPassesHandlerErrors(t *testing.T) {
	rig := newRig(t, true, false, 5*time.Second)
	rig.handler.status = http.StatusInternalServerError
	resp, _ := rig.post(t, "application/x-www-form-urlencoded", formBody(saleFields()))
	if resp.StatusCode != 500 {
		t.Errorf("sender got %d, want the handler's 500", resp.StatusCode)
	}
	if ev := rig.lastEvent(t); ev.Handler == nil || ev.Handler.Status != 500 || ev.Response != 500 {
		t.Errorf("event %+v", ev)
	}
}

func TestReceiverHandlerUnreachableOrSlow(t *testing.T) {
	// Unreachable: a closed server's address.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL, _ := url.Parse(dead.URL)
	dead.Close()
	var ev webhook.Event
	rc := webhook.NewReceiver(webhook.ReceiverOptions{AppSecret: secret, ForwardTo: deadURL, Now: time.Now, Report: func(e webhook.Event) { ev = e }})
	rec := httptest.NewRecorder()
	rc.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(formBody(saleFields()))))
	if rec.Code != http.StatusBadGateway || ev.Handler == nil || !strings.Contains(ev.Handler.Error, "handler unreachable") {
		t.Errorf("unreachable handler: %d, %+v", rec.Code, ev.Handler)
	}

	// Slow: the handler waits until the client has given up.
	rig := newRig(t, true, false, 50*time.Millisecond)
	rig.handler.delay = make(chan struct{})
	defer close(rig.handler.delay)
	resp, _ := rig.post(t, "application/x-www-form-urlencoded", formBody(saleFields()))
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("slow handler: sender got %d, want 504", resp.StatusCode)
	}
	if ev := rig.lastEvent(t); ev.Handler == nil || !strings.Contains(ev.Handler.Error, "did not answer in time") {
		t.Errorf("event %+v", ev.Handler)
	}
}

func TestReceiverWithoutForward(t *testing.T) {
	rig := newRig(t, false, false, time.Second)
	resp, answer := rig.post(t, "application/json", mustJSON(t, saleFields()))
	if resp.StatusCode != 200 || answer != "OK\n" {
		t.Errorf("valid: %d %q", resp.StatusCode, answer)
	}
	m := saleFields()
	m["status"] = "0"
	if resp, _ := rig.post(t, "application/json", mustJSON(t, m)); resp.StatusCode != 400 {
		t.Errorf("invalid: %d", resp.StatusCode)
	}
}

func mustJSON(t *testing.T, m map[string]string) string {
	t.Helper()
	_, b, err := webhook.Encode(webhook.JSON, m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReceiverRefusals(t *testing.T) {
	rig := newRig(t, true, true, time.Second)
	resp, err := http.Get(rig.url + "/callback")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	big := "a=" + strings.Repeat("x", webhook.MaxBodySize)
	if resp, _ := rig.post(t, "application/x-www-form-urlencoded", big); resp.StatusCode != 413 {
		t.Errorf("oversize: %d", resp.StatusCode)
	}
	// Without a Content-Length, the limit still holds while reading.
	req, _ := http.NewRequest(http.MethodPost, rig.url, io.MultiReader(strings.NewReader(big), bytes.NewReader(nil)))
	req.ContentLength = -1
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("oversize, chunked: %d", resp.StatusCode)
	}
	if resp, _ := rig.post(t, "multipart/form-data; boundary=x", "--x--"); resp.StatusCode != 415 {
		t.Errorf("multipart: %d", resp.StatusCode)
	}
	if len(rig.handler.got) != 0 || len(rig.events) != 0 {
		t.Errorf("refused requests went on: %d forwarded, %d events", len(rig.handler.got), len(rig.events))
	}
	if len(rig.refused) != 4 || !strings.Contains(rig.refused[0], "GET /callback: 405") {
		t.Errorf("refusals logged: %q", rig.refused)
	}
}

func TestReceiverSenderHangsUp(t *testing.T) {
	rig := newRig(t, true, false, 5*time.Second)
	rig.handler.delay = make(chan struct{})
	defer close(rig.handler.delay)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rig.url, strings.NewReader(formBody(saleFields())))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for {
		rig.handler.mu.Lock()
		n := len(rig.handler.got)
		rig.handler.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-errc
	for {
		rig.mu.Lock()
		n := len(rig.events)
		rig.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if ev := rig.lastEvent(t); ev.Handler == nil || ev.Handler.Error != "the sender hung up before the handler answered" {
		t.Errorf("event %+v", ev.Handler)
	}
}

// A handler's redirect is its answer: following it would turn the POST
// into a GET of another URL. Both the default client and ForwardClient
// pass it back.
func TestReceiverPassesRedirectsBack(t *testing.T) {
	for _, name := range []string{"default", "ForwardClient"} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method+" "+r.URL.Path)
				mu.Unlock()
				if r.URL.Path == "/hooks" {
					http.Redirect(w, r, "/elsewhere", http.StatusFound)
				}
			}))
			t.Cleanup(handler.Close)
			opts := webhook.ReceiverOptions{AppSecret: secret, Now: time.Now}
			opts.ForwardTo, _ = url.Parse(handler.URL + "/hooks")
			if name == "ForwardClient" {
				opts.Client = webhook.ForwardClient(5*time.Second, nil)
			}
			srv := httptest.NewServer(webhook.NewReceiver(opts))
			t.Cleanup(srv.Close)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Post(srv.URL+"/callback", "application/x-www-form-urlencoded", strings.NewReader(formBody(saleFields())))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound {
				t.Errorf("sender got %d, want the handler's 302", resp.StatusCode)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(methods) != 1 || methods[0] != "POST /hooks" {
				t.Errorf("handler saw %q, want one POST /hooks", methods)
			}
		})
	}
}

func TestForwardClientUsesNoProxy(t *testing.T) {
	c := webhook.ForwardClient(time.Second, nil)
	tr, ok := c.Transport.(*http.Transport)
	if !ok || tr.Proxy != nil {
		t.Errorf("transport %#v: want an *http.Transport without Proxy", c.Transport)
	}
}
