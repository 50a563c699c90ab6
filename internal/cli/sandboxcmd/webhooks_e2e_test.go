package sandboxcmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/webhook"
)

// paycliEnv is the environment of a paycli subprocess over home.
func paycliEnv(home string) []string {
	return append(os.Environ(), envRunMain+"=1", "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"PAYCLI_APP_SECRET="+sandbox.AppSecret, "NO_COLOR=1")
}

// runPaycli runs paycli to completion and returns its stdout and exit code.
func runPaycli(t *testing.T, home string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = paycliEnv(home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() != 0 {
		t.Logf("paycli %s: exit %d\n%s", strings.Join(args, " "), cmd.ProcessState.ExitCode(), stderr.String())
	}
	return stdout.String(), cmd.ProcessState.ExitCode()
}

// startPaycli starts a long-running paycli and returns it once a line of
// its stderr has the prefix, with the rest of that line; stdout lines are
// sent on the returned channel.
func startPaycli(t *testing.T, home, prefix string, args ...string) (*exec.Cmd, string, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = paycliEnv(home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			go func() { // keep draining so the process never blocks on stderr
				for sc.Scan() {
				}
			}()
			return cmd, rest, lines
		}
	}
	t.Fatalf("paycli %s did not start: %v", strings.Join(args, " "), sc.Err())
	return nil, "", nil
}

// merchantHandler is the merchant's webhook handler: it answers 500 while failing
// is set, and records what reached it.
type merchantHandler struct {
	mu      sync.Mutex
	failing int // answer 500 to this many more requests
	down    bool
	got     []handlerCall
	srv     *httptest.Server
}

type handlerCall struct {
	hash    string
	verdict webhook.Verdict
	status  int
}

func newHandler(t *testing.T) *merchantHandler {
	h := &merchantHandler{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		v, _ := webhook.Check(r.Header.Get("Content-Type"), data, sandbox.AppSecret)
		h.mu.Lock()
		status := http.StatusOK
		if h.down {
			status = http.StatusServiceUnavailable
		} else if h.failing > 0 {
			h.failing--
			status = http.StatusInternalServerError
		}
		h.got = append(h.got, handlerCall{hash: r.Header.Get(webhook.HashHeader), verdict: v, status: status})
		h.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *merchantHandler) received() []handlerCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]handlerCall(nil), h.got...)
}

func (h *merchantHandler) set(down bool, failing int) {
	h.mu.Lock()
	h.down, h.failing = down, failing
	h.mu.Unlock()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listenEvent is the part of a `webhook listen -o json` line the test reads.
type listenEvent struct {
	Kind      string `json:"kind"`
	InvoiceID string `json:"invoice_id"`
	Amount    string `json:"amount"`
	Hash      string `json:"hash"`
	Field     string `json:"field"`
	Forwarded bool   `json:"forwarded"`
	Response  int    `json:"response"`
}

func nextEvent(t *testing.T, lines <-chan string) listenEvent {
	t.Helper()
	select {
	case line := <-lines:
		var ev listenEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("listen printed %q: %v", line, err)
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("listen printed nothing")
	}
	return listenEvent{}
}

// listDeliveries runs `paycli sandbox webhooks -o json`.
func listDeliveries(t *testing.T, home string) []sandbox.Delivery {
	t.Helper()
	out, code := runPaycli(t, home, "sandbox", "webhooks", "-o", "json")
	if code != 0 {
		t.Fatalf("sandbox webhooks: exit %d", code)
	}
	var ds []sandbox.Delivery
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("sandbox webhooks -o json: %v\n%s", err, out)
	}
	return ds
}

// tamperer stands between the sandbox and the listener, changing the
// webhooks on the way: /total changes the total after signing, /forge
// replaces the hash_key with one made with another app_secret.
func tamperer(t *testing.T, listener string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		form, err := url.ParseQuery(string(data))
		if err != nil {
			t.Error(err)
		}
		switch r.URL.Path {
		case "/total":
			form.Set("total", "1500.00")
		case "/forge":
			plain := hashkey.Join(form.Get("status"), form.Get("total"), form.Get("invoice_id"), form.Get("order_id"), form.Get("currency_code"))
			hk, _ := hashkey.Generate("not-the-app-secret", plain)
			form.Set("hash_key", hk)
		}
		resp, err := http.Post(listener+r.URL.Path, r.Header.Get("Content-Type"), strings.NewReader(form.Encode()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWebhooksEndToEnd: a sandbox sale naming a registered key reaches
// `paycli webhook listen`, is shown valid and forwarded to the merchant's
// handler with X-Paycli-Hash: valid; the handler's 500s make the sandbox
// retry until it answers 200; a refund arrives in the refund layout; a
// webhook whose total was changed after signing, and one with a forged
// hash_key, are shown invalid and never reach the handler.
func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel() // its own processes, home and ports
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	home := t.TempDir()
	h := newHandler(t)
	h.set(false, 2)
	_, rest, events := startPaycli(t, home, "paycli webhook listen: receiving webhooks at ",
		"webhook", "listen", "--addr", "127.0.0.1:0", "--forward-to", h.srv.URL+"/sipay", "-o", "json")
	listener, _, _ := strings.Cut(rest, " ")
	tamper := tamperer(t, listener)
	state := filepath.Join(home, "paycli", "sandbox")
	startPaycli(t, home, "paycli sandbox serving ", "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", state,
		"--webhook", "sales="+listener+"/hooks", "--webhook", "refunds="+listener+"/hooks",
		"--webhook", "tampered="+tamper.URL+"/total", "--webhook", "forged="+tamper.URL+"/forge",
		"--webhook-backoff", "20ms", "--webhook-attempts", "3")

	if _, code := runPaycli(t, home, "sandbox", "pay", "--amount", "150", "--currency", "TRY", "--invoice", "E2E-1", "--webhook-key", "sales"); code != 0 {
		t.Fatalf("sandbox pay: exit %d", code)
	}
	for i, want := range []int{500, 500, 200} {
		ev := nextEvent(t, events)
		if ev.Kind != "sale" || ev.InvoiceID != "E2E-1" || ev.Amount != "150.00" || ev.Hash != "valid" || !ev.Forwarded || ev.Response != want {
			t.Fatalf("listen event %d: %+v, want forwarded and answered %d", i, ev, want)
		}
	}
	got := h.received()
	if len(got) != 3 {
		t.Fatalf("the handler got %d webhooks, want 3", len(got))
	}
	for _, r := range got {
		if r.hash != "valid" || !r.verdict.Valid() || r.verdict.InvoiceID != "E2E-1" {
			t.Errorf("handler got %+v", r)
		}
	}
	waitUntil(t, "the delivery marked delivered", func() bool {
		ds := listDeliveries(t, home)
		return len(ds) == 1 && ds[0].State == sandbox.DeliveryDelivered
	})
	d := listDeliveries(t, home)[0]
	if len(d.Attempts) != 3 || d.Attempts[0].Status != 500 || d.Attempts[1].Status != 500 || d.Attempts[2].Status != 200 {
		t.Errorf("attempts: %+v", d.Attempts)
	}

	// A refund naming the refund key, in the refund layout.
	client := &http.Client{Timeout: 10 * time.Second}
	base := sandbox.ReadAddress(state)
	rk, _ := hashkey.Generate(sandbox.AppSecret, "10.00|E2E-1|"+sandbox.MerchantKey)
	res, err := post(client, base+"/api/refund", bearerFor(t, client, base), map[string]string{"invoice_id": "E2E-1", "amount": "10.00",
		"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret, "merchant_key": sandbox.MerchantKey, "hash_key": rk,
		"refund_web_hook_key": "refunds"})
	if err != nil || res["status_code"] != 100.0 {
		t.Fatalf("refund: %v %v", res, err)
	}
	ev := nextEvent(t, events)
	if ev.Kind != "refund" || ev.InvoiceID != "E2E-1" || ev.Amount != "10.00" || ev.Hash != "valid" || ev.Response != 200 {
		t.Fatalf("refund event: %+v", ev)
	}

	// Changed after signing, and forged: invalid, answered 400, not forwarded.
	for _, c := range []struct{ key, field string }{{"tampered", "total"}, {"forged", "hash_key"}} {
		if _, code := runPaycli(t, home, "sandbox", "pay", "--amount", "150", "--currency", "TRY", "--invoice", "E2E-"+c.key, "--webhook-key", c.key); code != 0 {
			t.Fatalf("sandbox pay: exit %d", code)
		}
		for range 3 { // every attempt of the delivery
			ev := nextEvent(t, events)
			if ev.InvoiceID != "E2E-"+c.key || ev.Hash != "invalid" || ev.Field != c.field || ev.Forwarded || ev.Response != 400 {
				t.Fatalf("%s event: %+v", c.key, ev)
			}
		}
	}
	if n := len(h.received()); n != 4 {
		t.Errorf("the handler got %d webhooks, want the sale's 3 and the refund's", n)
	}
	waitUntil(t, "the tampered deliveries marked failed", func() bool {
		failed := 0
		for _, d := range listDeliveries(t, home) {
			if d.State == sandbox.DeliveryFailed {
				failed++
			}
		}
		return failed == 2
	})
}

// TestWebhookOutboxSurvivesKill: sales naming a registered key are made
// from several clients while the merchant's handler is down; the sandbox
// is killed with SIGKILL in the middle of them and restarted (without
// --webhook: each delivery keeps its URL); once the handler is back, every
// sale answered 100 reaches it, and so does every sale the store holds as
// completed (one cut off by the kill after its commit, its answer lost):
// a committed sale always has its delivery.
func TestWebhookOutboxSurvivesKill(t *testing.T) {
	t.Parallel() // its own processes, home and ports
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	home := t.TempDir()
	h := newHandler(t)
	h.set(true, 0)
	state := filepath.Join(home, "paycli", "sandbox")
	proc, base, _ := startPaycli(t, home, "paycli sandbox serving ", "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", state,
		"--webhook", "sales="+h.srv.URL+"/sipay", "--webhook-backoff", "100ms", "--webhook-attempts", "50")
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	bearer := bearerFor(t, client, base)
	var (
		mu       sync.Mutex
		answered = map[string]bool{}
		tried    []string
		wg       sync.WaitGroup
		enough   = make(chan struct{})
		once     sync.Once
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				inv := fmt.Sprintf("KILL-WH-%d-%03d", w, i)
				mu.Lock()
				tried = append(tried, inv)
				mu.Unlock()
				hk, _ := hashkey.Generate(sandbox.AppSecret, hashkey.Join("25.00", "1", "TRY", sandbox.MerchantKey, inv))
				res, err := post(client, base+"/api/paySmart2D", bearer, map[string]any{
					"merchant_key": sandbox.MerchantKey, "hash_key": hk, "invoice_id": inv, "total": "25.00", "currency_code": "TRY",
					"installments_number": "1", "cc_holder_name": "Ali Veli", "cc_no": "4355084355084358", "expiry_month": "12",
					"expiry_year": "2099", "cvv": "000", "name": "Ali", "surname": "Veli", "sale_web_hook_key": "sales"})
				if err != nil {
					return // killed: this sale's outcome is unknown, which is allowed
				}
				if res["status_code"] != 100.0 {
					t.Errorf("%s: %v", inv, res)
					return
				}
				mu.Lock()
				answered[inv] = true
				if len(answered) >= 60 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(30 * time.Second):
		t.Fatal("the sandbox answered too few sales")
	}
	if err := proc.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	wg.Wait()
	_ = proc.Wait()
	client.CloseIdleConnections()
	h.set(false, 0)
	_, base, _ = startPaycli(t, home, "paycli sandbox serving ", "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", state)

	// The sales the store holds as completed: those answered, and any cut
	// off after their commit.
	mu.Lock()
	defer mu.Unlock()
	committed := map[string]bool{}
	for _, inv := range tried {
		hk, _ := hashkey.Generate(sandbox.AppSecret, inv+"|"+sandbox.MerchantKey)
		res, err := post(client, base+"/api/checkstatus", bearerFor(t, client, base), map[string]string{
			"merchant_key": sandbox.MerchantKey, "invoice_id": inv, "hash_key": hk})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case res["transaction_status"] == "Completed":
			committed[inv] = true
		case answered[inv] || res["status_code"] != 31.0:
			t.Errorf("%s (answered 100: %v) after the restart: %v", inv, answered[inv], res)
		}
	}
	for inv := range answered {
		if !committed[inv] {
			t.Errorf("%s was answered 100 but is not stored as completed", inv)
		}
	}
	t.Logf("%d sales tried, %d answered 100, %d committed, %d attempts reached the handler while it was down",
		len(tried), len(answered), len(committed), len(h.received()))
	waitUntil(t, "a delivery of every committed sale", func() bool {
		seen := map[string]bool{}
		for _, r := range h.received() {
			if r.status == 200 && r.verdict.Valid() {
				seen[r.verdict.InvoiceID] = true
			}
		}
		return len(seen) == len(committed)
	})
	waitUntil(t, "every delivery marked delivered", func() bool {
		ds := listDeliveries(t, home)
		for _, d := range ds {
			if d.State != sandbox.DeliveryDelivered || !committed[d.InvoiceID] {
				return false
			}
		}
		return len(ds) == len(committed)
	})
}
