package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// loadConfig runs a throwaway command with args under the real root and
// returns the configuration it resolved; the factory is closed by the
// caller's cleanup.
func loadConfig(t *testing.T, env map[string]string, args ...string) (*config.Config, func() error) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := app.NewFactory(ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	root, _ := app.NewRootCmd(f)
	var cfg *config.Config
	root.AddCommand(&cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, _ []string) error {
		var err error
		cfg, err = f.Config()
		return err
	}})
	root.SetArgs(append([]string{"probe"}, args...))
	if err := root.ExecuteContext(context.Background()); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return cfg, f.Close
}

func homeEnv(t *testing.T) (map[string]string, string) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state")}
	return env, filepath.Join(home, ".local", "state", "paycli", "sandbox")
}

func postJSON(t *testing.T, url, bearer string, body any) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// useGateway takes a token and reads commissions with cfg, as any gateway
// client built from the configuration would.
func useGateway(t *testing.T, cfg *config.Config) {
	t.Helper()
	code, tok := postJSON(t, cfg.BaseURL+"/api/token", "", map[string]string{"app_id": cfg.AppID, "app_secret": cfg.AppSecret})
	if code != 200 || tok["status_code"] != 100.0 {
		t.Fatalf("token: HTTP %d %v", code, tok)
	}
	bearer := tok["data"].(map[string]any)["token"].(string)
	code, com := postJSON(t, cfg.BaseURL+"/api/commissions", bearer, map[string]string{"currency_code": "TRY", "commission_by": "merchant", "app_lang": "en"})
	if code != 200 || com["status_code"] != 100.0 || len(com["data"].(map[string]any)) != 12 {
		t.Fatalf("commissions: HTTP %d %v", code, com)
	}
}

func TestSandboxFlagStartsInProcessEmulator(t *testing.T) {
	for name, setup := range map[string]func(env map[string]string) []string{
		"flag": func(map[string]string) []string { return []string{"--sandbox"} },
		"env":  func(env map[string]string) []string { env["PAYCLI_SANDBOX"] = "1"; return nil },
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := homeEnv(t)
			cfg, closeFactory := loadConfig(t, env, setup(env)...)
			if cfg.Profile != "sandbox" || cfg.AppID != sandbox.AppID || cfg.AppSecret != sandbox.AppSecret || cfg.MerchantKey != sandbox.MerchantKey {
				t.Fatalf("config not overlaid: %+v", cfg)
			}
			if !strings.HasPrefix(cfg.BaseURL, "http://127.0.0.1:") || !strings.HasSuffix(cfg.BaseURL, "/ccpayment") {
				t.Fatalf("base URL %q", cfg.BaseURL)
			}
			useGateway(t, cfg)
			if err := closeFactory(); err != nil {
				t.Fatal(err)
			}
			if sandbox.Probe(context.Background(), cfg.BaseURL) {
				t.Fatal("the in-process emulator outlived its command")
			}
		})
	}
}

func TestSandboxFlagUsesRunningServer(t *testing.T) {
	env, dir := homeEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{Gateway: sandbox.Options{Now: time.Now}, StateDir: dir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	if err := sandbox.WriteAddress(dir, srv.BaseURL); err != nil {
		t.Fatal(err)
	}
	cfg, _ := loadConfig(t, env, "--sandbox")
	if cfg.BaseURL != srv.BaseURL {
		t.Fatalf("base URL %q, want the running server's %q", cfg.BaseURL, srv.BaseURL)
	}
	useGateway(t, cfg)
}

func TestSandboxFlagIgnoresStaleAddress(t *testing.T) {
	env, dir := homeEnv(t)
	// A server killed with SIGKILL leaves its address file behind.
	if err := sandbox.WriteAddress(dir, "http://127.0.0.1:1/ccpayment"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := loadConfig(t, env, "--sandbox")
	if cfg.BaseURL == "http://127.0.0.1:1/ccpayment" {
		t.Fatal("used a dead server")
	}
	useGateway(t, cfg)
}

func TestNoSandboxLeavesConfigAlone(t *testing.T) {
	env, _ := homeEnv(t)
	env["PAYCLI_BASE_URL"] = "https://provisioning.sipay.com.tr/ccpayment"
	cfg, _ := loadConfig(t, env)
	if cfg.BaseURL != "https://provisioning.sipay.com.tr/ccpayment" || cfg.Profile != "default" || cfg.AppID != "" {
		t.Fatalf("config changed without --sandbox: %+v", cfg)
	}
}

// TestSandboxFlagWaitsForTheStateLock: a --sandbox command started while
// another holds the sandbox state waits for it instead of failing.
func TestSandboxFlagWaitsForTheStateLock(t *testing.T) {
	env, dir := homeEnv(t)
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(200 * time.Millisecond)
		store.Close()
		close(released)
	}()
	cfg, _ := loadConfig(t, env, "--sandbox")
	select {
	case <-released:
	default:
		t.Fatal("the command did not wait for the other holder of the state")
	}
	useGateway(t, cfg)
}

// TestSandboxRunsShareOneTokenCacheFile: each --sandbox run starts its own
// emulator on a new port, yet the second run reuses the first one's token
// and the cache holds one file.
func TestSandboxRunsShareOneTokenCacheFile(t *testing.T) {
	env, _ := homeEnv(t)
	env["XDG_CACHE_HOME"] = filepath.Join(env["HOME"], ".cache")
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var tokens []string
	for i := range 3 {
		ios, _, out, errOut := iostreams.Test()
		if code := app.Run(context.Background(), []string{"token", "--sandbox", "-o", "json"}, ios, lookup); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errOut)
		}
		var got struct {
			Token  string `json:"token"`
			Cached bool   `json:"cached"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Cached != (i > 0) {
			t.Errorf("run %d: cached = %v", i, got.Cached)
		}
		tokens = append(tokens, got.Token)
	}
	if tokens[1] != tokens[0] || tokens[2] != tokens[0] {
		t.Error("later --sandbox runs did not reuse the first run's token")
	}
	files, _ := filepath.Glob(filepath.Join(env["XDG_CACHE_HOME"], "paycli", "token-*.json"))
	if len(files) != 1 {
		t.Errorf("token cache files: %v, want one", files)
	}
}
