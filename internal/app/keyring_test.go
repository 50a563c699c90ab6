package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/testkit/keyringtest"
)

const (
	keyringSecret      = "keyring-app-secret-6c1f0e9a"
	keyringMerchantKey = "keyring-merchant-key-83b2d4"
)

// keyringProfile writes a profile whose secrets are in the test's keyring
// and returns the environment that finds both.
func keyringProfile(t *testing.T, kr *keyringtest.Keyring) map[string]string {
	t.Helper()
	env, _ := homeEnv(t)
	env["DBUS_SESSION_BUS_ADDRESS"] = kr.Address
	store := &keyring.Store{}
	if err := store.Set("desk@1", map[string]string{"app_secret": keyringSecret, "merchant_key": keyringMerchantKey}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env["XDG_CONFIG_HOME"], "paycli", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	file := "default_profile: desk\nprofiles:\n  desk:\n    base_url: https://test.example/ccpayment\n    app_id: \"1\"\n" +
		"    app_secret_keyring: desk@1\n    merchant_key_keyring: desk@1\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestCredentialsReadTheKeyringOncePerRun: however many secrets and
// however many asks, one run reads the keyring once.
func TestCredentialsReadTheKeyringOncePerRun(t *testing.T) {
	kr := keyringtest.Start(t)
	env := keyringProfile(t, kr)
	ios, _, out, _ := iostreams.Test()
	f := app.NewFactory(ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	defer f.Close()
	root, _ := app.NewRootCmd(f)
	root.AddCommand(&cobra.Command{Use: "probe", RunE: func(*cobra.Command, []string) error {
		for range 3 {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if cfg.AppSecret != keyringSecret || cfg.MerchantKey != keyringMerchantKey {
				t.Errorf("secrets %q %q", cfg.AppSecret, cfg.MerchantKey)
			}
		}
		_, err := f.Gateway()
		return err
	}})
	root.SetArgs([]string{"probe"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.Keyring.Reads(); n != 1 {
		t.Fatalf("the keyring was read %d times in one run, want 1", n)
	}
	if strings.Contains(out.String(), keyringSecret) {
		t.Fatal("a secret was printed")
	}
}

// TestVersionAndHelpTouchNoKeyring: paycli version and --help read no
// configuration and ask nothing of the keyring, even with a profile whose
// secrets are there.
func TestVersionAndHelpTouchNoKeyring(t *testing.T) {
	kr := keyringtest.Start(t)
	env := keyringProfile(t, kr)
	for _, args := range [][]string{{"version"}, {"--help"}, {"commissions", "--help"}, {"config", "list"}} {
		ios, _, _, _ := iostreams.Test()
		f := app.NewFactory(ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		configs := 0
		resolve, settings := f.Config, f.Settings
		f.Config = func() (*config.Config, error) { configs++; return resolve() }
		f.Settings = func() (*config.Config, error) { configs++; return settings() }
		root, _ := app.NewRootCmd(f)
		root.SetArgs(args)
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		f.Close()
		if f.Keyring.Reads() != 0 {
			t.Errorf("paycli %s read the keyring", strings.Join(args, " "))
		}
		if configs != 0 && args[0] != "config" {
			t.Errorf("paycli %s asked for the configuration", strings.Join(args, " "))
		}
	}
}

// TestLockedKeyringIsACredentialError: secrets in a keyring that is
// locked make exit 3, naming the key and the entry, not a hang.
func TestLockedKeyringIsACredentialError(t *testing.T) {
	kr := keyringtest.Start(t)
	env := keyringProfile(t, kr)
	kr.Lock(t)
	ios, _, out, errOut := iostreams.Test()
	code := app.Run(context.Background(), []string{"hash", "generate", "--plaintext", "a|b"}, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if code != app.ExitAuth {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, app.ExitAuth, errOut)
	}
	msg := errOut.String()
	for _, want := range []string{"cannot get app_secret from keyring paycli/desk@1", "PAYCLI_APP_SECRET"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if bytes.Contains(append(out.Bytes(), errOut.Bytes()...), []byte(keyringSecret)) {
		t.Fatal("the secret was printed")
	}
}

// TestPlainTextSecretsGetAHintOnATerminal: an old file with the secrets in
// plain text is read as before; a person at a terminal is told in one line
// how to move them, a script's stderr is left alone.
func TestPlainTextSecretsGetAHintOnATerminal(t *testing.T) {
	env, _ := homeEnv(t)
	path := filepath.Join(env["XDG_CONFIG_HOME"], "paycli", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	file := "profiles:\n  default:\n    base_url: https://test.example/ccpayment\n    app_id: \"1\"\n    app_secret: " + keyringSecret + "\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, terminal := range []bool{true, false} {
		ios, _, out, errOut := iostreams.Test()
		ios.SetStderrTTY(terminal)
		code := app.Run(context.Background(), []string{"hash", "generate", "--plaintext", "a|b"}, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if code != 0 || out.Len() == 0 {
			t.Fatalf("terminal %v: exit %d, stdout %q, stderr:\n%s", terminal, code, out, errOut)
		}
		hinted := strings.Contains(errOut.String(), "hint: app_secret is in plain text in "+path+"; move it into the system keyring: paycli config migrate-secrets")
		if hinted != terminal || strings.Count(errOut.String(), "\n") > 1 {
			t.Errorf("terminal %v: stderr %q", terminal, errOut)
		}
	}
}
