package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSecretCommandGetsOnlyWhatItNeeds (issue 39, defect 9): a *_cmd
// command is given the variables a vault's helper needs (pass, gpg, op,
// secret-tool, vault) and none of paycli's: no PAYCLI_* (a secret, a
// *_FILE's path, the journal URL with its password), no PGPASSWORD, no
// variable the list does not name.
func TestSecretCommandGetsOnlyWhatItNeeds(t *testing.T) {
	given := []string{"HOME", "USER", "LANG", "LC_ALL", "LC_MESSAGES", "TMPDIR", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
		"GNUPGHOME", "GPG_TTY", "PASSWORD_STORE_DIR", "OP_SESSION_desk", "VAULT_ADDR", "VAULT_TOKEN"}
	withheld := map[string]string{
		"PAYCLI_APP_SECRET":         "app-secret-value",
		"PAYCLI_MERCHANT_KEY_FILE":  "/run/secrets/merchant_key",
		"PAYCLI_JOURNAL":            "postgres://ayse:JournalPW@db.example/paycli",
		"PAYCLI_JOURNAL_OWNER_URL":  "postgres://owner:OwnerPW@db.example/paycli",
		"PGPASSWORD":                "pg-password",
		"GITHUB_TOKEN":              "ghp-token",
		"PAYCLIX":                   "x",
		"SOME_OTHER_PROGRAMS_STATE": "x",
	}
	for _, name := range given {
		t.Setenv(name, "v")
	}
	for name, v := range withheld {
		t.Setenv(name, v)
	}
	got, err := RunSecretCommand(context.Background(), `sh -c 'env | cut -d= -f1 | sort | tr "\n" " "'`, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(got)
	for _, name := range append(given, "PATH") {
		if !slices.Contains(names, name) {
			t.Errorf("the command is not given %s (it got %s)", name, got)
		}
	}
	for name := range withheld {
		if slices.Contains(names, name) {
			t.Errorf("the command is given %s (it got %s)", name, got)
		}
	}
	for _, name := range names {
		if !secretCommandGets(name) && name != "PWD" && name != "SHLVL" && name != "_" { // set by sh itself
			t.Errorf("the command is given %s, which the list does not name", name)
		}
	}
}

// TestSecretCommandStderrScrubbed (issue 39, defect 9): what a failing
// *_cmd command wrote on stderr is quoted with the run's secrets (those
// known so far, and the journal URL's password), URLs' passwords and card
// numbers masked.
func TestSecretCommandStderrScrubbed(t *testing.T) {
	// The command line is shown too: what the command says comes from a
	// file.
	said := filepath.Join(t.TempDir(), "said")
	if err := os.WriteFile(said, []byte("denied: app_secret=plain-app-secret-1234 journal=JournalPW99\n"+
		"db=postgres://ayse:UrlPW77@db/j?pass%77ord=QueryPW55 card=4355084355084358\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := loadWith(t, "profiles:\n  default:\n    app_secret: plain-app-secret-1234\n"+
		"    journal: postgres://ayse:JournalPW99@db.example/paycli\n"+
		"    merchant_key_cmd: sh -c 'cat "+said+" >&2; exit 1'\n", nil)
	err := cfg.LoadSecrets(context.Background(), SecretOptions{})
	var ce *CredentialError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "it said: denied:") {
		t.Fatalf("got %v, want a CredentialError quoting the command's stderr", err)
	}
	for _, secret := range []string{"plain-app-secret-1234", "JournalPW99", "UrlPW77", "QueryPW55", "4355084355084358"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %q: %v", secret, err)
		}
	}
}
