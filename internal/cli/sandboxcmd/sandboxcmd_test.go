package sandboxcmd

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// testFactory is a factory over test streams and a fixed environment.
func testFactory(t *testing.T, env map[string]string) (*cmdutil.Factory, *iostreams.IOStreams) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams: ios,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Now:       func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) },
	}
	return f, ios
}

func runCmd(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func isUsage(err error) bool { k, _ := cmdutil.KindOf(err); return k == cmdutil.KindUsage }

func TestServeFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage bool
		wantAddr  string
		wantState string
	}{
		{nil, false, DefaultAddr, "/home/.local/state/paycli/sandbox"},
		{[]string{"--addr", "localhost:0", "--state", "s"}, false, "localhost:0", "s"},
		{[]string{"--addr", "[::1]:9000"}, false, "[::1]:9000", "/home/.local/state/paycli/sandbox"},
		{[]string{"--addr", "0.0.0.0:8787"}, true, "", ""},
		{[]string{"--addr", ":8787"}, true, "", ""},
		{[]string{"--addr", "192.0.2.1:8787"}, true, "", ""},
		{[]string{"--addr", "0.0.0.0:8787", "--public"}, false, "0.0.0.0:8787", "/home/.local/state/paycli/sandbox"},
		{[]string{"--addr", "nonsense"}, true, "", ""},
		{[]string{"--addr", "127.0.0.1:99999"}, true, "", ""},
		{[]string{"--addr", "127.0.0.1:-1"}, true, "", ""},
		{[]string{"--addr", "127.0.0.1:http"}, true, "", ""},
		{[]string{"--addr", "127.0.0.1:65535"}, false, "127.0.0.1:65535", "/home/.local/state/paycli/sandbox"},
		{[]string{"extra"}, true, "", ""},
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
			if err != nil || got.Addr != tt.wantAddr || got.StateDir != filepath.FromSlash(tt.wantState) {
				t.Fatalf("err %v opts %+v", err, got)
			}
		})
	}
}

// TestServeRun serves until cancelled: the address file appears while it
// runs and goes when it stops, the credentials are on stderr, and a clean
// shutdown returns nil.
func TestServeRun(t *testing.T) {
	_, ios := testFactory(t, nil)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	opts := &ServeOptions{IO: ios, Now: time.Now, Addr: "127.0.0.1:0", StateDir: dir, Listen: net.Listen, Ready: func(u string) { ready <- u }}
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	}
	if got := sandbox.ReadAddress(dir); got != base {
		t.Errorf("address file %q, want %q", got, base)
	}
	if !sandbox.Probe(ctx, base) {
		t.Error("the server does not answer its health probe")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve returned %v after a clean shutdown", err)
	}
	if sandbox.ReadAddress(dir) != "" {
		t.Error("address file left behind")
	}
	stderr := ios.ErrOut.(interface{ String() string }).String()
	for _, want := range []string{"paycli sandbox serving " + base, sandbox.AppID, sandbox.AppSecret, sandbox.MerchantKey, "paycli sandbox stopped"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if out := ios.Out.(interface{ String() string }).String(); out != "" {
		t.Errorf("stdout: %q", out)
	}
}

func TestServeStateInUse(t *testing.T) {
	_, ios := testFactory(t, nil)
	dir := t.TempDir()
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	err = serveRun(context.Background(), &ServeOptions{IO: ios, Now: time.Now, Addr: "127.0.0.1:0", StateDir: dir, Listen: net.Listen, LockTimeout: time.Millisecond})
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || !errors.Is(err, sandbox.ErrLocked) {
		t.Fatalf("got %v", err)
	}
}

// A busy --addr is the user's to change: exit 2, not 8 (gateway
// unreachable).
func TestServeAddressInUse(t *testing.T) {
	_, ios := testFactory(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = serveRun(context.Background(), &ServeOptions{IO: ios, Now: time.Now, Addr: ln.Addr().String(), StateDir: t.TempDir(), Listen: net.Listen, LockTimeout: time.Second})
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "cannot listen on") {
		t.Fatalf("got %v (kind %v)", err, k)
	}
}

func TestCredentials(t *testing.T) {
	tests := []struct {
		format render.Format
		server bool
		want   string
	}{
		{render.Table, false, "base_url:     http://127.0.0.1:8787/ccpayment\napp_id:       " + sandbox.AppID + "\napp_secret:   " + sandbox.AppSecret + "\nmerchant_key: " + sandbox.MerchantKey + "\n"},
		{render.JSON, false, "{\n  \"base_url\": \"http://127.0.0.1:8787/ccpayment\",\n  \"app_id\": \"" + sandbox.AppID + "\",\n  \"app_secret\": \"" + sandbox.AppSecret + "\",\n  \"merchant_key\": \"" + sandbox.MerchantKey + "\"\n}\n"},
		{render.CSV, false, "base_url,app_id,app_secret,merchant_key\nhttp://127.0.0.1:8787/ccpayment," + sandbox.AppID + "," + sandbox.AppSecret + "," + sandbox.MerchantKey + "\n"},
		{render.JSON, true, "http://127.0.0.1:4242/ccpayment"},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			_, ios := testFactory(t, nil)
			dir := t.TempDir()
			if err := sandbox.WriteAddress(dir, "http://127.0.0.1:4242/ccpayment"); err != nil {
				t.Fatal(err)
			}
			opts := &CredentialsOptions{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return tt.format, nil }}, StateDir: dir,
				Probe: func(context.Context, string) bool { return tt.server }}
			if err := credentialsRun(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			out := ios.Out.(interface{ String() string }).String()
			if tt.server {
				var c Credentials
				if err := json.Unmarshal([]byte(out), &c); err != nil || c.BaseURL != tt.want {
					t.Fatalf("got %q", out)
				}
				return
			}
			if out != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", out, tt.want)
			}
		})
	}
}

func TestWalletTokenFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--amount", "150.00", "--currency", "try"}, ""},
		{[]string{"--amount", "1", "--currency", "USD", "--card", "5528795528795526", "--wallet", "012", "--ttl", "1m"}, ""},
		{[]string{"--currency", "TRY"}, `required flag(s) "amount" not set`},
		{[]string{"--amount", "10"}, `required flag(s) "currency" not set`},
		{[]string{"--amount", "ten", "--currency", "TRY"}, `invalid --amount: "ten" is not a plain decimal like 1250.50`},
		{[]string{"--amount", "-1", "--currency", "TRY"}, `invalid --amount: "-1" is not more than zero`},
		{[]string{"--amount", "1.001", "--currency", "TRY"}, `invalid --amount "1.001"`},
		{[]string{"--amount", "1", "--currency", "TL"}, `invalid --currency "TL"`},
		{[]string{"--amount", "1", "--currency", "TRY", "--card", "4355084355084359"}, "invalid --card: card number fails the Luhn check"},
		{[]string{"--amount", "1", "--currency", "TRY", "--card", "12ab"}, "invalid --card"},
		{[]string{"--amount", "1", "--currency", "TRY", "--wallet", "002"}, `invalid --wallet "002": use 001, 012`},
		{[]string{"--amount", "1", "--currency", "TRY", "--ttl", "0s"}, "invalid --ttl 0s"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _ := testFactory(t, nil)
			ran := false
			err := runCmd(NewCmdWalletToken(f, func(context.Context, *WalletTokenOptions) error { ran = true; return nil }), tt.args...)
			if tt.wantErr == "" {
				if err != nil || !ran {
					t.Fatalf("err %v ran %v", err, ran)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || ran {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestWalletTokenRun(t *testing.T) {
	f, ios := testFactory(t, nil)
	cmd := NewCmdWalletToken(f, nil)
	if err := runCmd(cmd, "--amount", "150", "--currency", "TRY", "--wallet", "012", "--ttl", "5m"); err != nil {
		t.Fatal(err)
	}
	out := ios.Out.(interface{ String() string }).String()
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("want the token alone on a line, got %q", out)
	}
	var claims sandbox.WalletClaims
	_, err := jwt.ParseWithClaims(strings.TrimSpace(out), &claims, func(*jwt.Token) (any, error) {
		return []byte(sandbox.WalletSigningKey), nil
	}, jwt.WithTimeFunc(f.Now))
	if err != nil {
		t.Fatal(err)
	}
	if claims.Amount != "150.00" || claims.Currency != "TRY" || claims.Wallet != "012" ||
		claims.Card != (sandbox.WalletCard{BIN: "435508", Last4: "4358"}) || claims.ID == "" ||
		!claims.ExpiresAt.Equal(f.Now().Add(5*time.Minute)) || !claims.IssuedAt.Equal(f.Now()) {
		t.Fatalf("claims %+v", claims)
	}
}

func TestReset(t *testing.T) {
	t.Run("no terminal, no --yes", func(t *testing.T) {
		f, _ := testFactory(t, map[string]string{"HOME": t.TempDir()})
		err := runCmd(NewCmdReset(f, nil))
		if !isUsage(err) || !strings.Contains(err.Error(), "pass --yes") {
			t.Fatalf("got %v", err)
		}
	})
	for _, tc := range []struct {
		name   string
		args   []string
		tty    bool
		answer string
		wiped  bool
	}{
		{"--yes", []string{"--yes"}, false, "", true},
		{"confirmed", nil, true, "y\n", true},
		{"declined", nil, true, "n\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			store, err := sandbox.OpenStore(dir, time.Second, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Save(sandbox.Sale{InvoiceID: "INV-1", State: sandbox.StateCompleted}); err != nil {
				t.Fatal(err)
			}
			store.Close()
			f, ios := testFactory(t, nil)
			ios.SetStdinTTY(tc.tty)
			ios.SetStdoutTTY(tc.tty)
			ios.In.(interface{ WriteString(string) (int, error) }).WriteString(tc.answer)
			if err := runCmd(NewCmdReset(f, nil), append(tc.args, "--state", dir)...); err != nil {
				t.Fatal(err)
			}
			store, err = sandbox.OpenStore(dir, time.Second, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			sales, _ := store.Sales()
			if (len(sales) == 0) != tc.wiped {
				t.Fatalf("sales after reset: %v", sales)
			}
			stderr := ios.ErrOut.(interface{ String() string }).String()
			if tc.wiped && !strings.Contains(stderr, "Sandbox reset: 1 sale deleted.") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
	t.Run("state in use", func(t *testing.T) {
		dir := t.TempDir()
		store, err := sandbox.OpenStore(dir, time.Second, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		f, _ := testFactory(t, nil)
		err = resetRun(context.Background(), &ResetOptions{IO: f.IOStreams, Now: f.Now, StateDir: dir, Yes: true, LockTimeout: time.Millisecond})
		if !errors.Is(err, sandbox.ErrLocked) {
			t.Fatalf("got %v", err)
		}
	})
}

// signallingListener reports when the server has read request bytes from
// a connection.
type signallingListener struct {
	net.Listener
	read chan struct{}
}

func (l signallingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return signallingConn{c, l.read}, nil
}

type signallingConn struct {
	net.Conn
	read chan struct{}
}

func (c signallingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		select {
		case c.read <- struct{}{}:
		default:
		}
	}
	return n, err
}

// TestServeFinishesInFlightRequests: a request being handled when the
// shutdown signal comes still gets its full answer.
func TestServeFinishesInFlightRequests(t *testing.T) {
	_, ios := testFactory(t, nil)
	read := make(chan struct{}, 1)
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &ServeOptions{IO: ios, Now: time.Now, Addr: "127.0.0.1:0", StateDir: t.TempDir(), Faults: true, LockTimeout: time.Second,
		Listen: func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			return signallingListener{ln, read}, err
		},
		Ready: func(u string) { ready <- u },
	}
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	base := <-ready

	type result struct {
		status int
		body   map[string]any
		err    error
	}
	got := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/token", strings.NewReader(`{}`))
		req.Header.Set(sandbox.FaultHeader, "delay=1s")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		got <- result{resp.StatusCode, body, err}
	}()
	<-read
	// The request is read; give the server a moment to enter the handler
	// (where it sleeps a second) before the shutdown signal.
	time.Sleep(100 * time.Millisecond)
	cancel() // as SIGINT would
	r := <-got
	if r.err != nil || r.status != 200 || r.body["status_code"] != 1.0 {
		t.Fatalf("in-flight request: %+v %v", r, r.err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// parseServe runs `sandbox serve`'s flag parsing only and returns the
// options it would run with (nil when it refused them).
func parseServe(t *testing.T, args ...string) (*ServeOptions, error) {
	t.Helper()
	f, _ := testFactory(t, map[string]string{"HOME": "/home"})
	var got *ServeOptions
	err := runCmd(NewCmdServe(f, func(_ context.Context, o *ServeOptions) error { got = o; return nil }), args...)
	return got, err
}

// runUnderRoot runs cmd below a root that carries -o as paycli's root does.
func runUnderRoot(cmd *cobra.Command, args ...string) error {
	root := &cobra.Command{Use: "paycli"}
	root.PersistentFlags().StringP("output", "o", "table", "")
	root.PersistentFlags().String("sandbox-url", "", "")
	root.AddCommand(cmd)
	return runCmd(root, append([]string{cmd.Name()}, args...)...)
}

// TestWalletTokenJSON: -o json and --jq print what the token stands for,
// with the card masked; a configured output format leaves the bare token.
func TestWalletTokenJSON(t *testing.T) {
	args := []string{"--amount", "150", "--currency", "TRY", "--wallet", "012", "--ttl", "5m"}
	t.Run("-o json", func(t *testing.T) {
		f, ios := testFactory(t, nil)
		if err := runUnderRoot(NewCmdWalletToken(f, nil), append(args, "-o", "json")...); err != nil {
			t.Fatal(err)
		}
		out := ios.Out.(interface{ String() string }).String()
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		tok, _ := got["token"].(string)
		delete(got, "token")
		want := map[string]any{"amount": "150.00", "currency": "TRY", "card": "435508******4358", "wallet": "012", "expires_at": "2026-11-22T09:05:00Z"}
		if len(got) != len(want) {
			t.Errorf("fields %v, want token and %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		var claims sandbox.WalletClaims
		if _, err := jwt.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return []byte(sandbox.WalletSigningKey), nil },
			jwt.WithTimeFunc(f.Now)); err != nil || claims.Amount != "150.00" || !claims.ExpiresAt.Equal(f.Now().Add(5*time.Minute)) {
			t.Errorf("token %q: %v, claims %+v", tok, err, claims)
		}
		if strings.Contains(out, sandbox.DefaultWalletCard) {
			t.Errorf("the full card number is in %q", out)
		}
	})
	t.Run("--jq", func(t *testing.T) {
		f, ios := testFactory(t, nil)
		if err := runUnderRoot(NewCmdWalletToken(f, nil), append(args, "--jq", "[.amount, .wallet, (.token | split(\".\") | length)]")...); err != nil {
			t.Fatal(err)
		}
		if out := ios.Out.(interface{ String() string }).String(); out != "[\"150.00\",\"012\",3]\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("configured json leaves the bare token", func(t *testing.T) {
		f, ios := testFactory(t, map[string]string{"PAYCLI_OUTPUT": "json"})
		if err := runUnderRoot(NewCmdWalletToken(f, nil), args...); err != nil {
			t.Fatal(err)
		}
		out := ios.Out.(interface{ String() string }).String()
		if strings.Count(out, "\n") != 1 || strings.Count(out, ".") != 2 || strings.ContainsAny(out, "{\"") {
			t.Errorf("want the token alone on a line, got %q", out)
		}
	})
	t.Run("a bad --jq", func(t *testing.T) {
		f, ios := testFactory(t, nil)
		err := runUnderRoot(NewCmdWalletToken(f, nil), append(args, "--jq", ".[")...)
		if !isUsage(err) || ios.Out.(interface{ String() string }).String() != "" {
			t.Errorf("err %v, stdout %q", err, ios.Out)
		}
	})
}
