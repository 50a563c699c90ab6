package webhookcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/ports"
	"github.com/paycli/paycli/internal/webhook"
	"github.com/spf13/cobra"
)

const testSecret = "app_secret"

func testConfig() *config.Config {
	return &config.Config{Profile: "default", AppSecret: testSecret, Output: "table"}
}

func testFactory(ios *iostreams.IOStreams, cfg *config.Config) *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: ios,
		LookupEnv: func(string) (string, bool) { return "", false },
		Config:    func() (*config.Config, error) { return cfg, nil },
		Now:       time.Now,
	}
}

func execute(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.Flags().Bool("debug", false, "")
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	_, err := cmd.ExecuteC()
	return err
}

func wantUsage(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a usage error containing %q, got none", msg)
	}
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage {
		t.Errorf("error %q: kind %v, want KindUsage", err, kind)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q: want it to contain %q", err, msg)
	}
}

func TestListenFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		check   func(*ListenOptions) bool
	}{
		{args: nil, check: func(o *ListenOptions) bool {
			return o.Addr == DefaultAddr && o.ForwardTo == "" && o.ForwardTimeout == 10*time.Second
		}},
		{args: []string{"--addr", "[::1]:0", "--forward-to", "http://localhost:8000/hook", "--forward-invalid"},
			check: func(o *ListenOptions) bool { return o.ForwardInvalid && o.ForwardTo == "http://localhost:8000/hook" }},
		{args: []string{"--addr", "0.0.0.0:9000", "--public"}, check: func(o *ListenOptions) bool { return o.Public }},
		{args: []string{"--addr", "0.0.0.0:9000"}, wantErr: "refusing to listen on 0.0.0.0:9000: not a loopback address"},
		{args: []string{"--addr", "192.168.1.4:9000"}, wantErr: "not a loopback address"},
		{args: []string{"--addr", "9000"}, wantErr: `invalid --addr "9000"`},
		{args: []string{"--addr", "127.0.0.1:99999"}, wantErr: "the port must be a number from 0 to 65535"},
		{args: []string{"--forward-to", "localhost:8000"}, wantErr: `invalid --forward-to "localhost:8000"`},
		{args: []string{"--forward-to", "ftp://x/"}, wantErr: "invalid --forward-to"},
		{args: []string{"--forward-invalid"}, wantErr: "--forward-invalid needs --forward-to"},
		{args: []string{"--forward-to", "http://x/", "--forward-timeout", "0s"}, wantErr: "invalid --forward-timeout"},
		{args: []string{"extra"}, wantErr: "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ListenOptions
			cmd := NewCmdListen(testFactory(ios, testConfig()), func(_ context.Context, o *ListenOptions) error { got = o; return nil })
			err := execute(t, cmd, tt.args...)
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				if got != nil {
					t.Error("the command ran")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("options %+v", got)
			}
		})
	}
}

// syncBuffer is a buffer the listener's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listener is a running `webhook listen` and the merchant's handler behind it.
type listener struct {
	url      string
	out, err *syncBuffer
	stop     func() error

	mu          sync.Mutex
	handled     []*http.Request
	bodies      []string
	status      int
	holdHandler chan struct{}
}

func startListener(t *testing.T, format render.Format, forward bool, mutate func(*ListenOptions)) *listener {
	t.Helper()
	l := &listener{out: &syncBuffer{}, err: &syncBuffer{}, status: http.StatusOK}
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = l.out, l.err
	opts := &ListenOptions{Deps: cmdutil.Deps{
		IO:      ios,
		Config:  func() (*config.Config, error) { return testConfig(), nil },
		Format:  func() (render.Format, error) { return format, nil },
		Palette: func() render.Palette { return render.Palette{} },
		Now:     time.Now,
	},
		Addr: "127.0.0.1:0", ForwardTimeout: 5 * time.Second, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second,
		Listen: net.Listen}
	if forward {
		h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			l.mu.Lock()
			l.handled = append(l.handled, r)
			l.bodies = append(l.bodies, string(body))
			status, hold := l.status, l.holdHandler
			l.mu.Unlock()
			if hold != nil {
				<-hold
			}
			w.WriteHeader(status)
			fmt.Fprint(w, "from the handler")
		}))
		t.Cleanup(h.Close)
		opts.ForwardTo = h.URL + "/webhooks"
	}
	if mutate != nil {
		mutate(opts)
	}
	ready := make(chan string, 1)
	opts.Ready = func(u string) { ready <- u }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- listenRun(ctx, opts) }()
	select {
	case l.url = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("listen: %v", err)
	}
	var once sync.Once
	var stopErr error
	l.stop = func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}
	t.Cleanup(func() { _ = l.stop() })
	return l
}

func (l *listener) post(t *testing.T, ct, body string) int {
	t.Helper()
	resp, err := http.Post(l.url+"/sipay", ct, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (l *listener) send(t *testing.T, enc webhook.Encoding, m map[string]string) int {
	t.Helper()
	ct, body := encode(t, enc, m)
	return l.post(t, ct, body)
}

func signedSale(t *testing.T, total string) map[string]string {
	t.Helper()
	m, err := webhook.Sign(webhook.Sale, map[string]string{"status": "1", "total": total, "invoice_id": "INV-1001",
		"order_id": "VP17000000000000001", "currency_code": "TRY"}, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func encode(t *testing.T, enc webhook.Encoding, m map[string]string) (string, string) {
	t.Helper()
	ct, b, err := webhook.Encode(enc, m)
	if err != nil {
		t.Fatal(err)
	}
	return ct, string(b)
}

// TestListenEndToEnd drives the command over loopback: valid webhooks in
// both encodings reach the handler marked valid; a forged hash_key and an
// amount changed after signing are printed INVALID and not forwarded; the
// handler's 500 is passed back; an oversize body gets 413 and a GET 405.
func TestListenEndToEnd(t *testing.T) {
	l := startListener(t, render.Table, true, nil)

	ct, body := encode(t, webhook.Form, signedSale(t, "150.00"))
	if code := l.post(t, ct, body); code != 200 {
		t.Errorf("valid form webhook: sender got %d", code)
	}
	ct, jbody := encode(t, webhook.JSON, signedSale(t, "150.00"))
	if code := l.post(t, ct, jbody); code != 200 {
		t.Errorf("valid JSON webhook: sender got %d", code)
	}
	forged := signedSale(t, "150.00")
	forged["hash_key"] = signedSale(t, "150.00")["hash_key"][:22] + "AAAAAAAAAAAAAAAAAAAAAA=="
	if code := l.send(t, webhook.Form, forged); code != 400 {
		t.Errorf("forged: sender got %d", code)
	}
	changed := signedSale(t, "150.00")
	changed["total"] = "15000.00"
	if code := l.send(t, webhook.JSON, changed); code != 400 {
		t.Errorf("changed: sender got %d", code)
	}
	l.mu.Lock()
	l.status = 500
	l.mu.Unlock()
	if code := l.post(t, ct, jbody); code != 500 {
		t.Errorf("handler's 500: sender got %d", code)
	}
	if code := l.post(t, "application/x-www-form-urlencoded", "a="+strings.Repeat("x", webhook.MaxBodySize)); code != 413 {
		t.Errorf("oversize: %d", code)
	}
	resp, err := http.Get(l.url + "/sipay")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if err := l.stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}

	l.mu.Lock()
	if len(l.handled) != 3 {
		t.Fatalf("handler got %d webhooks, want 3", len(l.handled))
	}
	for i, r := range l.handled {
		if r.Header.Get(webhook.HashHeader) != "valid" || r.URL.Path != "/webhooks" {
			t.Errorf("forwarded %d: %s %s=%q", i, r.URL.Path, webhook.HashHeader, r.Header.Get(webhook.HashHeader))
		}
	}
	if l.bodies[0] != body || l.handled[0].Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		l.bodies[1] != jbody || l.handled[1].Header.Get("Content-Type") != "application/json" {
		t.Errorf("bodies not passed on as they arrived: %q", l.bodies)
	}
	l.mu.Unlock()

	want := []string{
		`sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid → 200 \(handler, \d+ms\)`,
		`sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid → 200 \(handler, \d+ms\)`,
		`sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=INVALID \(hash_key does not decrypt with this app_secret: .*\) → 400 \(not forwarded\)`,
		`sale INV-1001 VP17000000000000001 15000.00 TRY status=1 hash=INVALID \(total differs: the body says "15000.00", the hash_key "150.00"\) → 400 \(not forwarded\)`,
		`sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid → 500 \(handler, \d+ms\)`,
	}
	lines := strings.Split(strings.TrimRight(l.out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stdout:\n%s\nwant %d lines", l.out, len(want))
	}
	for i, w := range want {
		if !regexp.MustCompile("^" + w + "$").MatchString(lines[i]) {
			t.Errorf("line %d: %q\nwant %s", i+1, lines[i], w)
		}
	}
	stderr := l.err.String()
	for _, w := range []string{"receiving webhooks at http://127.0.0.1:", "Forwarding valid webhooks to http://127.0.0.1:",
		"refused: POST /sipay: 413", "refused: GET /sipay: 405", "paycli webhook listen stopped"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

func TestListenJSONLines(t *testing.T) {
	l := startListener(t, render.JSON, false, nil)
	l.send(t, webhook.Form, signedSale(t, "150.00"))
	refund, err := webhook.Sign(webhook.Refund, map[string]string{"status": "Completed", "amount": "10.00", "invoice_id": "INV-1001", "order_id": "VP1"}, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	l.send(t, webhook.JSON, refund)
	l.post(t, "application/json", "{not json")
	_ = l.stop()
	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.out.String()))
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		events = append(events, e)
	}
	if len(events) != 3 {
		t.Fatalf("%d events:\n%s", len(events), l.out)
	}
	checks := []map[string]any{
		{"kind": "sale", "invoice_id": "INV-1001", "amount": "150.00", "currency_code": "TRY", "hash": "valid", "forwarded": false, "response": 200.0, "path": "/sipay", "encoding": "form"},
		{"kind": "refund", "amount": "10.00", "status": "Completed", "hash": "valid", "response": 200.0, "encoding": "json"},
		{"hash": "invalid", "response": 400.0},
	}
	for i, c := range checks {
		for k, v := range c {
			if events[i][k] != v {
				t.Errorf("event %d: %s = %v, want %v", i, k, events[i][k], v)
			}
		}
		if _, ok := events[i]["time"]; !ok {
			t.Errorf("event %d has no time", i)
		}
		if _, ok := events[i]["hash_key"]; ok {
			t.Errorf("event %d holds the hash_key", i)
		}
	}
	if _, ok := events[2]["kind"]; ok || !strings.Contains(events[2]["reason"].(string), "not a webhook body") {
		t.Errorf("broken body: %v", events[2])
	}
}

// TestListenSlowSender: a sender that stops half way through its body is
// answered 408; one that never finishes its headers is cut off.
func TestListenSlowSender(t *testing.T) {
	l := startListener(t, render.Table, false, func(o *ListenOptions) {
		o.ReadHeaderTimeout, o.ReadTimeout = 200*time.Millisecond, 300*time.Millisecond
	})
	u, _ := url.Parse(l.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"status\"")
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("slow body: no answer: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("slow body: %d, want 408", resp.StatusCode)
	}

	conn2, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	fmt.Fprintf(conn2, "POST / HTTP/1.1\r\nHost: x\r\n")
	_ = conn2.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadAll(conn2); err != nil {
		t.Errorf("slow headers: the listener did not close the connection: %v", err)
	}
	if strings.TrimSpace(l.out.String()) != "" {
		t.Errorf("slow senders printed events: %q", l.out)
	}
}

// TestListenCtrlCFinishesInFlight: Ctrl-C while a webhook waits for the
// handler lets it finish, then listenRun returns nil (exit 0).
func TestListenCtrlCFinishesInFlight(t *testing.T) {
	l := startListener(t, render.Table, true, nil)
	l.holdHandler = make(chan struct{})
	got := make(chan int, 1)
	go func() { got <- l.send(t, webhook.Form, signedSale(t, "1.00")) }()
	for {
		l.mu.Lock()
		n := len(l.handled)
		l.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- l.stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("stopped (%v) with a webhook in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(l.holdHandler)
	if code := <-got; code != 200 {
		t.Errorf("in-flight webhook: %d", code)
	}
	if err := <-stopped; err != nil {
		t.Errorf("listenRun = %v, want nil", err)
	}
}

func TestListenNeedsAppSecret(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	opts := &ListenOptions{Deps: cmdutil.Deps{
		IO:      ios,
		Config:  func() (*config.Config, error) { return &config.Config{Profile: "live"}, nil },
		Format:  func() (render.Format, error) { return render.Table, nil },
		Palette: func() render.Palette { return render.Palette{} },
	},
		Addr: "127.0.0.1:0", Listen: net.Listen}
	err := listenRun(context.Background(), opts)
	wantUsage(t, err, `no app_secret configured for profile "live"`)
}

func TestListenAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ios, _, _, _ := iostreams.Test()
	opts := &ListenOptions{Deps: cmdutil.Deps{
		IO:      ios,
		Config:  func() (*config.Config, error) { return testConfig(), nil },
		Format:  func() (render.Format, error) { return render.Table, nil },
		Palette: func() render.Palette { return render.Palette{} },
	},
		Addr: ln.Addr().String(), Listen: net.Listen, ForwardTimeout: time.Second}
	err = listenRun(context.Background(), opts)
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "cannot listen on") {
		t.Errorf("listenRun = %v (kind %v)", err, kind)
	}
	if errors.Is(err, context.Canceled) {
		t.Error("unexpected cancel")
	}
}

// TestEventTextIsOneSafeLine: values from the network cannot move the
// cursor, colour the terminal or add lines.
func TestEventTextIsOneSafeLine(t *testing.T) {
	e := webhook.Event{Verdict: webhook.Verdict{Kind: webhook.Sale, InvoiceID: "INV\x1b[2J\nfake line", OrderID: "VP1", Amount: "1", Status: "1",
		Hash: "invalid", Reason: "x\ry"}, Response: 400}
	got := eventText(e, false, render.Palette{})
	if strings.ContainsAny(got, "\x1b\n\r") {
		t.Errorf("eventText = %q", got)
	}
}

func TestListenRefusesToForwardToItself(t *testing.T) {
	ln, err := net.Listen("tcp", ports.Addr(t)) // listened on again below
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ios, _, _, _ := iostreams.Test()
	for _, target := range []string{"http://" + addr + "/hook", "http://localhost:" + port + "/"} {
		opts := &ListenOptions{Deps: cmdutil.Deps{
			IO:      ios,
			Config:  func() (*config.Config, error) { return testConfig(), nil },
			Format:  func() (render.Format, error) { return render.Table, nil },
			Palette: func() render.Palette { return render.Palette{} },
		},
			Addr: addr, ForwardTo: target, ForwardTimeout: time.Second,
			Listen: func(string, string) (net.Listener, error) { return ln, nil }}
		wantUsage(t, listenRun(context.Background(), opts), "is this listener's own address")
		if ln, err = net.Listen("tcp", addr); err != nil { // listenRun closed it
			t.Fatal(err)
		}
	}
	ln.Close()
	if forwardsToItself(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2}) {
		t.Error("another port is not itself")
	}
}

// jqFlags returns the --jq of a command line that gave expr.
func jqFlags(t *testing.T, expr string) *cmdutil.JSONFlags {
	t.Helper()
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	j := cmdutil.AddJSONFlags(cmd)
	cmd.SetArgs([]string{"--jq", expr})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestListenJQ: --jq filters each event's JSON line; a filter that fails on
// one event is a warning, and the listener goes on.
func TestListenJQ(t *testing.T) {
	l := startListener(t, render.JSON, false, func(o *ListenOptions) {
		o.JSON = jqFlags(t, `if .kind == "refund" then error("no refunds here") else [.invoice_id, .hash, .response] end`)
	})
	l.send(t, webhook.Form, signedSale(t, "150.00"))
	refund, err := webhook.Sign(webhook.Refund, map[string]string{"status": "Completed", "amount": "10.00", "invoice_id": "INV-1001", "order_id": "VP1"}, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	l.send(t, webhook.JSON, refund)
	l.send(t, webhook.Form, signedSale(t, "20.00"))
	if err := l.stop(); err != nil {
		t.Fatal(err)
	}
	if got := l.out.String(); got != "[\"INV-1001\",\"valid\",200]\n[\"INV-1001\",\"valid\",200]\n" {
		t.Errorf("stdout:\n%s", got)
	}
	if !strings.Contains(l.err.String(), "warning: --jq: error: no refunds here") {
		t.Errorf("stderr:\n%s", l.err)
	}
}
