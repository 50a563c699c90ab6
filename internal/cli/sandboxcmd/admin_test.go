package sandboxcmd

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// serveOneSale serves a sandbox over dir (holding one sale) and records
// its address there, as serve does.
func serveOneSale(t *testing.T, dir string) string {
	t.Helper()
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(sandbox.Sale{InvoiceID: "INV-1", State: sandbox.StateCompleted}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	return serveState(t, dir).BaseURL
}

// serveState serves a sandbox over dir and records its address there, as
// serve does; it is shut down when the test ends, if not before.
func serveState(t *testing.T, dir string) *sandbox.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: dir, Gateway: sandbox.Options{Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	if err := sandbox.WriteAddress(dir, srv.BaseURL); err != nil {
		t.Fatal(err)
	}
	return srv
}

// A reset while serve runs goes over HTTP (it used to exit 8 after 2 s,
// the state being locked); --merchant names one merchant, and an unknown
// one is a usage error naming it.
func TestResetRunningServer(t *testing.T) {
	dir := t.TempDir()
	base := serveOneSale(t, dir)
	f, ios := testFactory(t, nil)
	if err := runUnderRoot(NewCmdReset(f, nil), "--yes", "--state", dir); err != nil {
		t.Fatalf("reset of a running sandbox: %v", err)
	}
	if got := ios.ErrOut.(interface{ String() string }).String(); !strings.Contains(got, "Sandbox reset: 1 sale deleted (1 merchant).") {
		t.Errorf("stderr %q", got)
	}
	f, _ = testFactory(t, nil)
	err := runUnderRoot(NewCmdReset(f, nil), "--yes", "--sandbox-url", base, "--merchant", "0123456789abcdef0123456789abcdef")
	if !isUsage(err) || !strings.Contains(err.Error(), "--merchant") || !strings.Contains(err.Error(), "no merchant with app_id") {
		t.Fatalf("unknown merchant: %v", err)
	}
	f, _ = testFactory(t, nil)
	err = runUnderRoot(NewCmdReset(f, nil), "--yes", "--sandbox-url", "http://127.0.0.1:1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable {
		t.Fatalf("no sandbox at --sandbox-url: %v", err)
	}
}

// credentials --new creates a merchant at the running sandbox whose
// credentials get a token there; without a sandbox it is exit 8.
func TestCredentialsNew(t *testing.T) {
	dir := t.TempDir()
	base := serveOneSale(t, dir)
	_, ios := testFactory(t, nil)
	opts := &CredentialsOptions{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.CSV, nil }}, StateDir: dir, New: true, Probe: sandbox.Probe}
	if err := credentialsRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(ios.Out.(interface{ String() string }).String()), "\n")
	row := strings.Split(lines[len(lines)-1], ",")
	if len(row) != 4 {
		t.Fatalf("output %q", lines)
	}
	c := Credentials{BaseURL: row[0], AppID: row[1], AppSecret: row[2], MerchantKey: row[3]}
	if c.BaseURL != base || c.AppID == sandbox.AppID || len(c.AppID) != 32 || c.AppSecret == sandbox.AppSecret || c.MerchantKey == sandbox.MerchantKey {
		t.Fatalf("new merchant: %+v", c)
	}
	var token map[string]any
	if err := sandbox.CallAdmin(context.Background(), base, "POST", "/api/token", map[string]string{"app_id": c.AppID, "app_secret": c.AppSecret}, &token); err != nil || token["status_code"] != 100.0 {
		t.Fatalf("token with the new credentials: %v %v", token, err)
	}
	opts.StateDir, opts.URL = t.TempDir(), "http://127.0.0.1:1"+sandbox.Base
	err := credentialsRun(context.Background(), opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable {
		t.Fatalf("--new without a sandbox: %v", err)
	}
	f, _ := testFactory(t, nil)
	if err := runUnderRoot(NewCmdCredentials(f, nil), "--webhook", "k=http://127.0.0.1:1/"); !isUsage(err) {
		t.Fatalf("--webhook without --new: %v", err)
	}
}

// sandbox ready exits 0 for a ready sandbox and 8 (after --wait) for none.
func TestReady(t *testing.T) {
	dir := t.TempDir()
	base := serveOneSale(t, dir)
	f, ios := testFactory(t, nil)
	if err := runUnderRoot(NewCmdReady(f, nil), "--state", dir); err != nil {
		t.Fatalf("ready: %v", err)
	}
	if got := ios.ErrOut.(interface{ String() string }).String(); got != "The sandbox at "+base+" is ready.\n" {
		t.Errorf("stderr %q", got)
	}
	f, _ = testFactory(t, nil)
	err := runUnderRoot(NewCmdReady(f, nil), "--sandbox-url", "http://127.0.0.1:1", "--wait", "300ms")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || !strings.Contains(err.Error(), "was not ready within 300ms") {
		t.Fatalf("no sandbox: %v", err)
	}
}

// sandbox ready --wait reads the state folder's address file on every try:
// a serve that starts (with --addr :0) or restarts on another port while it
// waits is found at its new address, not polled at the old one.
func TestReadyRereadsAddressFile(t *testing.T) {
	dir := t.TempDir()
	const first, second = "http://127.0.0.1:40001" + sandbox.Base, "http://127.0.0.1:40002" + sandbox.Base
	ios, _, _, _ := iostreams.Test()
	var asked []string
	sleeps := 0
	opts := &ReadyOptions{
		IO:       ios,
		StateDir: dir,
		Wait:     time.Second,
		Ready: func(_ context.Context, url string) bool {
			asked = append(asked, url)
			return url == second
		},
		// Each pause is where serve (re)starts: no file, then the first
		// port, then the second.
		Sleep: func(context.Context, time.Duration) error {
			sleeps++
			url := first
			if sleeps > 1 {
				url = second
			}
			return sandbox.WriteAddress(dir, url)
		},
	}
	if err := readyRun(context.Background(), opts); err != nil {
		t.Fatalf("ready: %v (asked %q)", err, asked)
	}
	want := []string{"http://" + DefaultAddr + sandbox.Base, first, second}
	if strings.Join(asked, " ") != strings.Join(want, " ") {
		t.Fatalf("asked %q, want %q", asked, want)
	}
}

// credentials --new, under a CI job's load, keeps asking the sandbox for
// its health until --timeout ends (it used to ask once, for 1 second, and
// exit 8 for 1 run in 40); each try is bounded by the time left.
func TestCredentialsNewWaitsWithinTimeout(t *testing.T) {
	dir := t.TempDir()
	base := serveOneSale(t, dir)
	_, ios := testFactory(t, nil)
	probes, sleeps := 0, 0
	opts := &CredentialsOptions{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.CSV, nil }}, StateDir: dir, New: true, Timeout: 30 * time.Second,
		// The first two health checks time out, as under load.
		Probe: func(ctx context.Context, url string) bool {
			probes++
			if d, ok := ctx.Deadline(); !ok || time.Until(d) > 30*time.Second {
				t.Errorf("probe %d: deadline %v %v, want within --timeout", probes, d, ok)
			}
			return probes > 2 && sandbox.Healthy(ctx, url)
		},
		Sleep: func(context.Context, time.Duration) error { sleeps++; return nil },
	}
	if err := credentialsRun(context.Background(), opts); err != nil {
		t.Fatalf("--new with a slow sandbox: %v", err)
	}
	if probes != 3 || sleeps != 2 {
		t.Errorf("%d probes, %d pauses; want 3 and 2", probes, sleeps)
	}
	if out := ios.Out.(interface{ String() string }).String(); !strings.Contains(out, base+",") {
		t.Errorf("output %q does not name %s", out, base)
	}
}

// Without --sandbox-url or a serve's address file, credentials --new tries
// the default address ready uses, until --timeout ends, and then says how
// long it waited.
func TestCredentialsNewTriesDefaultAddress(t *testing.T) {
	_, ios := testFactory(t, nil)
	var asked []string
	opts := &CredentialsOptions{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.CSV, nil }}, StateDir: t.TempDir(), New: true, Timeout: 5 * time.Second,
		Probe: func(_ context.Context, url string) bool { asked = append(asked, url); return false },
		Sleep: func(context.Context, time.Duration) error {
			if len(asked) == 3 {
				return context.DeadlineExceeded
			}
			return nil
		},
	}
	err := credentialsRun(context.Background(), opts)
	def := "http://" + DefaultAddr + sandbox.Base
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || err.Error() != "no sandbox answered within 5s at "+def {
		t.Fatalf("no sandbox: %v", err)
	}
	if strings.Join(asked, " ") != strings.Join([]string{def, def, def}, " ") {
		t.Fatalf("asked %q", asked)
	}
}

// credentials takes its time limit from --timeout, else PAYCLI_TIMEOUT,
// else 30s; a bad one is a usage error naming where it came from.
func TestCredentialsTimeout(t *testing.T) {
	tests := []struct {
		env  map[string]string
		args []string
		want time.Duration
		bad  string
	}{
		{nil, nil, 30 * time.Second, ""},
		{map[string]string{"PAYCLI_TIMEOUT": "7"}, nil, 7 * time.Second, ""},
		{map[string]string{"PAYCLI_TIMEOUT": "7s"}, []string{"--timeout", "2m"}, 2 * time.Minute, ""},
		{map[string]string{"PAYCLI_TIMEOUT": "soon"}, nil, 0, "PAYCLI_TIMEOUT"},
	}
	for _, tt := range tests {
		f, _ := testFactory(t, tt.env)
		var got time.Duration
		cmd := NewCmdCredentials(f, func(_ context.Context, o *CredentialsOptions) error { got = o.Timeout; return nil })
		root := &cobra.Command{Use: "paycli"}
		root.PersistentFlags().String("sandbox-url", "", "")
		root.PersistentFlags().String("timeout", "30s", "")
		root.AddCommand(cmd)
		err := runCmd(root, append([]string{"credentials", "--new"}, tt.args...)...)
		if tt.bad != "" {
			if !isUsage(err) || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("%v %v: %v, want a usage error naming %s", tt.env, tt.args, err, tt.bad)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%v %v: timeout %v (%v), want %v", tt.env, tt.args, got, err, tt.want)
		}
	}
}

// sandbox load refuses a JSON array (a list of scenarios, or of sales, at
// the top) with a usage error in the file's words, naming no Go type.
func TestLoadRefusesArray(t *testing.T) {
	file := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(file, []byte(`[{"sales":[{"invoice_id":"A-1","amount":"1.00"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ := testFactory(t, nil)
	err := runUnderRoot(NewCmdLoad(f, nil), "--state", t.TempDir(), file)
	want := "scenario " + file + ": the scenario is a list: want one object with merchants, sales, cards or links"
	if !isUsage(err) || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "sandbox.Scenario") {
		t.Fatalf("an array: %v", err)
	}
}
