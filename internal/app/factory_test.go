package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
)

// TestConfigBeforeTheCommandLineIsAnError: the configuration, and what is
// built from it, asked for before the root's pre-run hook has bound the
// running command is an error, and remembers nothing: the run that follows
// reads its flags (--profile live), never a configuration resolved without
// them.
func TestConfigBeforeTheCommandLineIsAnError(t *testing.T) {
	env, _ := homeEnv(t)
	path := filepath.Join(env["XDG_CONFIG_HOME"], "paycli", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	file := "default_profile: test\nprofiles:\n  test:\n    base_url: https://test.example/ccpayment\n  live:\n    base_url: https://live.example/ccpayment\n    app_id: live-id\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	f := app.NewFactory(ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	defer f.Close()

	if cfg, err := f.Config(); !errors.Is(err, app.ErrUnbound) {
		t.Fatalf("Config before the command line: %+v, %v; want ErrUnbound", cfg, err)
	}
	if _, err := f.Gateway(); !errors.Is(err, app.ErrUnbound) {
		t.Errorf("Gateway before the command line: %v", err)
	}
	if _, err := f.GatewayIdentity(); !errors.Is(err, app.ErrUnbound) {
		t.Errorf("GatewayIdentity before the command line: %v", err)
	}
	if _, err := f.TokenCache(); !errors.Is(err, app.ErrUnbound) {
		t.Errorf("TokenCache before the command line: %v", err)
	}
	if _, err := f.OutputFormat(); !errors.Is(err, app.ErrUnbound) {
		t.Errorf("OutputFormat before the command line: %v", err)
	}

	root, _ := app.NewRootCmd(f)
	var cfg *config.Config
	root.AddCommand(&cobra.Command{Use: "probe", RunE: func(*cobra.Command, []string) error {
		var err error
		cfg, err = f.Config()
		return err
	}})
	root.SetArgs([]string{"probe", "--profile", "live", "-o", "json"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cfg.Profile != "live" || cfg.BaseURL != "https://live.example/ccpayment" || cfg.Output != "json" {
		t.Errorf("after the command line: profile %q, base URL %q, output %q; want live's, with -o json", cfg.Profile, cfg.BaseURL, cfg.Output)
	}
}

// TestCommandTreeReadsNoConfiguration: building the command tree asks
// the factory for no configuration; only a running command does, once its
// flags are bound.
func TestCommandTreeReadsNoConfiguration(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := app.NewFactory(ios, func(string) (string, bool) { return "", false })
	defer f.Close()
	resolve := f.Config
	f.Config = func() (*config.Config, error) {
		t.Error("the command tree asked for the configuration while it was built")
		return resolve()
	}
	app.NewRootCmd(f)
}
