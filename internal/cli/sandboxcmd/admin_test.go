package sandboxcmd

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
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
	return srv.BaseURL
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
	opts := &CredentialsOptions{IO: ios, StateDir: dir, New: true, Probe: sandbox.Probe,
		Format: func() (render.Format, error) { return render.CSV, nil }}
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
	opts.StateDir = t.TempDir()
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
