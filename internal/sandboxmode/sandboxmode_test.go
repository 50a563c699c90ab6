package sandboxmode

import (
	"context"
	"errors"
	"github.com/paycli/paycli/internal/journal"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

func TestDefaultStateDir(t *testing.T) {
	abs := t.TempDir() // absolute on every platform
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": filepath.Join(abs, "state"), "HOME": abs}, filepath.Join(abs, "state", "paycli", "sandbox")},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": abs}, filepath.Join(abs, ".local", "state", "paycli", "sandbox")},
		{map[string]string{"HOME": abs}, filepath.Join(abs, ".local", "state", "paycli", "sandbox")},
	}
	for _, tt := range tests {
		got, err := DefaultStateDir(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
		if err != nil || got != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.env, got, err, tt.want)
		}
	}
}

func TestEnabled(t *testing.T) {
	root := &cobra.Command{Use: "paycli"}
	root.PersistentFlags().Bool("sandbox", false, "")
	leaf := &cobra.Command{Use: "commissions", Run: func(*cobra.Command, []string) {}}
	group := &cobra.Command{Use: "sandbox"}
	serve := &cobra.Command{Use: "serve", Run: func(*cobra.Command, []string) {}}
	group.AddCommand(serve)
	root.AddCommand(leaf, group)
	tests := []struct {
		cmd     *cobra.Command
		flag    string
		env     string
		want    bool
		wantErr bool
	}{
		{leaf, "", "", false, false},
		{leaf, "true", "", true, false},
		{leaf, "", "1", true, false},
		{leaf, "", "0", false, false},
		{leaf, "false", "1", false, false}, // the flag beats the environment
		{leaf, "", "maybe", false, true},
		{serve, "true", "1", false, false}, // the sandbox commands manage the sandbox themselves
	}
	for _, tt := range tests {
		fl := root.PersistentFlags().Lookup("sandbox")
		fl.Changed = tt.flag != ""
		if tt.flag != "" {
			_ = fl.Value.Set(tt.flag)
		}
		env := func(k string) (string, bool) { return tt.env, k == EnvSandbox && tt.env != "" }
		got, err := Enabled(tt.cmd, env)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s flag=%q env=%q: %v %v", tt.cmd.Name(), tt.flag, tt.env, got, err)
		}
	}
}

// TestIdentityIsSandboxs: the sandbox's identity says it is the sandbox's.
func TestIdentityIsSandboxs(t *testing.T) {
	if id := Identity(t.TempDir()); !journal.IsSandboxIdentity(id) {
		t.Errorf("identity %q has no sandbox prefix", id)
	}
}

func TestTarget(t *testing.T) {
	root := &cobra.Command{Use: "paycli"}
	root.PersistentFlags().String("sandbox-url", "", "")
	root.PersistentFlags().String("sandbox-state", "", "")
	tests := []struct {
		flag, env, want string
		wantErr         bool
	}{
		{"", "", "", false},
		{"http://127.0.0.1:9000", "", "http://127.0.0.1:9000/ccpayment", false},
		{"", "http://sandbox:8787/ccpayment/", "http://sandbox:8787/ccpayment", false},
		{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:1/ccpayment", false}, // the flag beats the environment
		{"127.0.0.1:9000", "", "", true},
		{"http://127.0.0.1:9000/api", "", "", true},
	}
	for _, tt := range tests {
		fl := root.PersistentFlags().Lookup("sandbox-url")
		fl.Changed = tt.flag != ""
		_ = fl.Value.Set(tt.flag)
		env := func(k string) (string, bool) { return tt.env, k == EnvSandboxURL && tt.env != "" }
		got, _, err := Target(root, env)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("flag=%q env=%q: %q %v, want %q", tt.flag, tt.env, got, err, tt.want)
		}
	}
	root.PersistentFlags().Lookup("sandbox-url").Changed = false
	env := func(k string) (string, bool) { return "/ci/state", k == EnvSandboxState }
	if _, state, _ := Target(root, env); state != "/ci/state" {
		t.Errorf("%s: state %q", EnvSandboxState, state)
	}
}

// --sandbox-url points a command at a CI's own server: nothing is started
// in process, and a URL where no sandbox answers is an error (exit 8).
func TestOverlayURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Gateway: sandbox.Options{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	started := false
	opts := OverlayOptions{Now: now, URL: srv.BaseURL, StateDir: t.TempDir(), AddCloser: func(func() error) { started = true }}
	cfg, err := Overlay(context.Background(), opts, &config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != srv.BaseURL || started {
		t.Errorf("base URL %q (started in process: %v), want %q", cfg.BaseURL, started, srv.BaseURL)
	}
	opts.URL = "http://127.0.0.1:1/ccpayment"
	_, err = Overlay(context.Background(), opts, &config.Config{})
	var ce *cmdutil.Error
	if !errors.As(err, &ce) || ce.Kind != cmdutil.KindUnavailable || !strings.Contains(err.Error(), "no sandbox answers at http://127.0.0.1:1/ccpayment") || started {
		t.Errorf("no sandbox at the URL: %v (started: %v)", err, started)
	}
}
