package app

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestSecretsNeverLeakMerchantOps is the secrets scan of the commands on
// pre-authorizations, 3D completions and installments: run with --debug,
// -o json, dry runs, batches and failures, nothing they print, log or
// write holds a credential, a bearer token, a hash_key, or a card number
// beyond its first 6 and last 4 digits — in particular the whole card
// number given to `installments --bin`.
func TestSecretsNeverLeakMerchantOps(t *testing.T) {
	t.Parallel()
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	spy := &spyGateway{}
	var bearersMu sync.Mutex
	bearers := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		spy.remember(body)
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && tok != "" {
			bearersMu.Lock()
			bearers[tok] = true
			bearersMu.Unlock()
		}
		gw.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + sandbox.Base

	sale := func(invoice string, opts sandboxcmd.PayOptions) string {
		opts.Invoice, opts.Amount = invoice, decimal.RequireFromString("120.00")
		return sandboxSale(t, base, opts)
	}
	sale("LEAK-PA-1", sandboxcmd.PayOptions{PreAuth: true})
	sale("LEAK-PA-2", sandboxcmd.PayOptions{PreAuth: true})
	sale("LEAK-PA-3", sandboxcmd.PayOptions{PreAuth: true})
	order := sale("LEAK-3D-1", sandboxcmd.PayOptions{ThreeD: true, CompletedBy: sandbox.CompletedByMerchant})

	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": base, "PAYCLI_APP_ID": sandbox.AppID,
		"PAYCLI_APP_SECRET": sandbox.AppSecret, "PAYCLI_MERCHANT_KEY": sandbox.MerchantKey,
	}
	pan := luhn("435508" + "739182" + "045")
	grouped := pan[:4] + " " + pan[4:8] + " " + pan[8:12] + " " + pan[12:]
	batch := filepath.Join(home, "captures.jsonl")
	if err := os.WriteFile(batch, []byte(`{"invoice":"LEAK-PA-2","amount":"20.00"}`+"\n"+`{"invoice":"LEAK-PA-1"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args     []string
		wantExit int
	}{
		{[]string{"installments", "--bin", pan, "--amount", "1000", "--currency", "TRY", "--debug"}, ExitOK},
		{[]string{"installments", "--bin", grouped, "--amount", "1000", "--currency", "TRY", "-o", "json", "--debug"}, ExitOK},
		{[]string{"installments", "--bin", pan, "--amount", "1000", "--currency", "TRY", "-o", "csv"}, ExitOK},
		{[]string{"installments", "--bin", pan + "1", "--amount", "1000", "--currency", "TRY", "--debug"}, ExitOK},
		{[]string{"installments", "--bin", pan + "12345", "--amount", "1000", "--currency", "TRY", "--debug"}, ExitUsage},
		{[]string{"installments", "--bin", pan[:15] + "x", "--amount", "1000", "--currency", "TRY", "--debug"}, ExitUsage},
		{[]string{"installments", "--active", "--debug"}, ExitOK},
		{[]string{"preauth", "capture", "--invoice", "LEAK-PA-1", "--amount", "50", "--dry-run", "--debug"}, ExitOK},
		{[]string{"preauth", "capture", "--invoice", "LEAK-PA-1", "--dry-run", "-o", "json"}, ExitOK},
		{[]string{"preauth", "capture", "--invoice", "LEAK-PA-1", "--amount", "50", "--yes", "--debug"}, ExitOK},
		{[]string{"preauth", "capture", "--invoice", "LEAK-PA-1", "--yes", "--debug"}, ExitRejected},
		{[]string{"preauth", "cancel", "--invoice", "LEAK-PA-1", "--yes", "--debug", "-o", "json"}, ExitRejected},
		{[]string{"preauth", "capture", "--invoice", "LEAK-PA-1", "--amount", "500", "--yes", "--debug"}, ExitRejected},
		{[]string{"preauth", "cancel", "--invoice", "LEAK-PA-3", "--yes", "--debug", "-o", "json"}, ExitOK},
		{[]string{"preauth", "capture", "--batch", batch, "--yes", "--debug"}, ExitOK},
		{[]string{"complete", "--invoice", "LEAK-3D-1", "--order-id", "VP1", "--yes", "--debug"}, ExitRejected},
		{[]string{"complete", "--invoice", "LEAK-3D-1", "--order-id", order, "--dry-run", "--debug"}, ExitOK},
		{[]string{"complete", "--invoice", "LEAK-3D-1", "--order-id", order, "--yes", "--debug", "-o", "json"}, ExitOK},
		{[]string{"complete", "--invoice", "LEAK-3D-1", "--order-id", order, "--yes", "--debug"}, ExitRejected},
		{[]string{"journal", "-o", "json"}, ExitOK},
	}
	var runs []leakRun
	for _, st := range steps {
		ios, _, out, errOut := iostreams.Test()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		code := Run(ctx, append(st.args, "--timeout", "5s"), ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		cancel()
		if code != st.wantExit {
			t.Errorf("paycli %s: exit %d, want %d; stderr:\n%s", strings.Join(st.args, " "), code, st.wantExit, errOut)
		}
		runs = append(runs, leakRun{args: st.args, code: code, stdout: out.String(), stderr: errOut.String()})
	}

	secrets := map[string]string{
		"app_secret":       sandbox.AppSecret,
		"merchant_key mid": sandbox.MerchantKey[8 : len(sandbox.MerchantKey)-4],
		"card number":      pan,
		"card middle":      pan[6:12],
	}
	spy.mu.Lock()
	for i, hk := range spy.hashes {
		secrets["hash_key "+string(rune('a'+i%26))+strings.Repeat("'", i/26)] = hk
	}
	hashes := len(spy.hashes)
	spy.mu.Unlock()
	bearersMu.Lock()
	for b := range bearers {
		secrets["bearer token "+b[len(b)-8:]] = b[strings.LastIndex(b, ".")+1:]
	}
	nBearers := len(bearers)
	bearersMu.Unlock()
	if hashes < 6 || nBearers == 0 {
		t.Fatalf("the gateway saw %d hash_keys and %d bearer tokens: the scan would prove little", hashes, nBearers)
	}
	scan := func(where, text string, allowBearer bool) {
		for name, s := range secrets {
			if allowBearer && strings.HasPrefix(name, "bearer token") {
				continue
			}
			if strings.Contains(text, s) {
				t.Errorf("%s holds the %s", where, name)
			}
		}
	}
	// The command line is where the card number came from; outputs are
	// scanned, not the arguments.
	for _, r := range runs {
		cmdline := "paycli " + strings.Join(r.args[:1], " ")
		scan(cmdline+": stdout", r.stdout, false)
		scan(cmdline+": stderr", r.stderr, false)
	}
	for _, dir := range []struct {
		path        string
		allowBearer bool
	}{{env["XDG_STATE_HOME"], false}, {env["XDG_CACHE_HOME"], true}} {
		err := filepath.WalkDir(dir.path, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scan(path, string(data), dir.allowBearer)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	// The sandbox stores a card as its first 6 and last 4 digits; the
	// getpos requests carried only the first 6.
	sales, err := store.Sales()
	if err != nil || len(sales) < 4 {
		t.Fatalf("sandbox sales: %d, %v", len(sales), err)
	}
	if !strings.Contains(runs[0].stderr, "Using only the card number's first 6 digits (435508)") {
		t.Errorf("installments did not say it cut the card number:\n%s", runs[0].stderr)
	}
	t.Logf("%d commands; %d hash_keys, %d bearer tokens scanned for", len(runs), hashes, nBearers)
}
