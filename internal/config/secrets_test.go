package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// memStore is an in-memory SecretStore for the choice of sources; the
// keyring itself is tested against a real Secret Service (internal/keyring,
// internal/cli/configcmd).
type memStore struct {
	entries map[string]map[string]string
	reads   int
}

func (m *memStore) Get(account string) (map[string]string, error) {
	m.reads++
	e, ok := m.entries[account]
	if !ok {
		return nil, errors.New("no such entry")
	}
	return e, nil
}

func loadWith(t *testing.T, file string, env map[string]string) *Config {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	env["PAYCLI_CONFIG"] = writeConfig(t, file)
	cfg, err := Load(LoadOptions{LookupEnv: mapEnv(env)})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestSecretSources(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "app_secret")
	if err := os.WriteFile(secretFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := &memStore{entries: map[string]map[string]string{"default@id": {"app_secret": "from-keyring", "merchant_key": "mk-keyring"}}}
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		want       string
		source     Source
		warn       string
	}{
		{"plain text, as before", "profiles:\n  default:\n    app_secret: plain\n", nil, "plain", SourceFile, ""},
		{"keyring", "profiles:\n  default:\n    app_secret_keyring: default@id\n", nil, "from-keyring", SourceKeyring, ""},
		{"keyring wins over plain text, with a warning", "profiles:\n  default:\n    app_secret: plain\n    app_secret_keyring: default@id\n", nil, "from-keyring", SourceKeyring, "app_secret_keyring is used"},
		{"command wins over keyring", "profiles:\n  default:\n    app_secret_cmd: echo from-cmd\n    app_secret_keyring: default@id\n", nil, "from-cmd", SourceCommand, "app_secret_cmd is used"},
		{"file reference", "profiles:\n  default:\n    app_secret_file: " + secretFile + "\n", nil, "from-file", SourceFileRef, ""},
		{"PAYCLI_APP_SECRET beats the keyring", "profiles:\n  default:\n    app_secret_keyring: default@id\n", map[string]string{"PAYCLI_APP_SECRET": "from-env"}, "from-env", SourceEnv, ""},
		{"PAYCLI_APP_SECRET_FILE beats the keyring", "profiles:\n  default:\n    app_secret_keyring: default@id\n", map[string]string{"PAYCLI_APP_SECRET_FILE": secretFile}, "from-file", SourceFileRef, ""},
		{"PAYCLI_APP_SECRET beats PAYCLI_APP_SECRET_FILE", "", map[string]string{"PAYCLI_APP_SECRET": "from-env", "PAYCLI_APP_SECRET_FILE": secretFile}, "from-env", SourceEnv, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := loadWith(t, tc.file, tc.env)
			if err := cfg.LoadSecrets(context.Background(), SecretOptions{Keyring: store}); err != nil {
				t.Fatal(err)
			}
			if cfg.AppSecret != tc.want || cfg.Source("app_secret") != tc.source {
				t.Errorf("app_secret = %q from %s, want %q from %s", cfg.AppSecret, cfg.Source("app_secret"), tc.want, tc.source)
			}
			warnings := strings.Join(cfg.Warnings, "\n")
			if (tc.warn == "") != (warnings == "") || !strings.Contains(warnings, tc.warn) {
				t.Errorf("warnings %q, want one saying %q", warnings, tc.warn)
			}
			if strings.Contains(warnings, "from-") || strings.Contains(warnings, "plain\n") {
				t.Errorf("a warning shows a secret: %q", warnings)
			}
		})
	}
}

func TestPlainTextSecretsAreNamedForTheMigrationHint(t *testing.T) {
	cfg := loadWith(t, "profiles:\n  default:\n    app_secret: a\n    merchant_key: b\n    app_id: c\n", nil)
	if want := []string{"app_secret", "merchant_key"}; !reflect.DeepEqual(cfg.PlainSecrets, want) {
		t.Fatalf("PlainSecrets = %v, want %v", cfg.PlainSecrets, want)
	}
}

// TestKeyringReadOncePerRun: a profile's secrets are one entry, read once
// however many secrets the command needs.
func TestKeyringReadOncePerRun(t *testing.T) {
	store := &memStore{entries: map[string]map[string]string{"default@id": {"app_secret": "a", "merchant_key": "m"}}}
	cfg := loadWith(t, "profiles:\n  default:\n    app_secret_keyring: default@id\n    merchant_key_keyring: default@id\n", nil)
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{Keyring: store}); err != nil {
		t.Fatal(err)
	}
	if cfg.AppSecret != "a" || cfg.MerchantKey != "m" || store.reads != 1 {
		t.Fatalf("got %q %q after %d reads, want a, m after 1", cfg.AppSecret, cfg.MerchantKey, store.reads)
	}
}

func TestSecretFileProblems(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	twoLines := filepath.Join(dir, "two")
	crlf := filepath.Join(dir, "crlf")
	_ = os.WriteFile(empty, []byte("\n"), 0o600)
	_ = os.WriteFile(twoLines, []byte("a\nb\n"), 0o600)
	_ = os.WriteFile(crlf, []byte("sekret\r\n"), 0o600)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "cannot read it"},
		{empty, "is empty"},
		{twoLines, "2 lines"},
		{dir, "cannot read it"},
	} {
		cfg := loadWith(t, "", map[string]string{"PAYCLI_MERCHANT_KEY_FILE": tc.path})
		err := cfg.LoadSecrets(context.Background(), SecretOptions{})
		var ce *CredentialError
		if !errors.As(err, &ce) || ce.Secret != "merchant_key" || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "PAYCLI_MERCHANT_KEY_FILE") {
			t.Errorf("%s: got %v, want a CredentialError for merchant_key naming PAYCLI_MERCHANT_KEY_FILE and saying %q", tc.path, err, tc.want)
		}
	}
	cfg := loadWith(t, "", map[string]string{"PAYCLI_MERCHANT_KEY_FILE": crlf})
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{}); err != nil || cfg.MerchantKey != "sekret" {
		t.Fatalf("CRLF file: %q, %v", cfg.MerchantKey, err)
	}
}

func TestSecretCommandProblems(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"true", "is empty"},
		{"printf 'a\\nb\\n'", "2 lines"},
		{"sh -c 'echo vault says no >&2; exit 3'", "exit status 3; it said: vault says no"},
		{"sleep 30", "did not finish within 300ms"},
		{"no-such-program-paycli", `no program "no-such-program-paycli" on PATH`},
		{"pass show x | head -1", "would need a shell"},
	} {
		cfg := loadWith(t, "profiles:\n  default:\n    app_secret_cmd: \""+strings.ReplaceAll(tc.cmd, `\`, `\\`)+"\"\n", nil)
		err := cfg.LoadSecrets(context.Background(), SecretOptions{Timeout: 300 * time.Millisecond})
		var ce *CredentialError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "app_secret_cmd") {
			t.Errorf("%s: got %v, want a CredentialError naming app_secret_cmd and saying %q", tc.cmd, err, tc.want)
		}
	}
}

func TestSecretCommandOutputIsTheSecret(t *testing.T) {
	cfg := loadWith(t, "profiles:\n  default:\n    merchant_key_cmd: printf '%s\\n' 'it''s \"quoted\"'\n", nil)
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := `its "quoted"`; cfg.MerchantKey != want {
		t.Fatalf("merchant_key = %q, want %q", cfg.MerchantKey, want)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"op read op://desk/sipay/secret", []string{"op", "read", "op://desk/sipay/secret"}, ""},
		{`vault kv get -field=merchant_key "secret/sipay live"`, []string{"vault", "kv", "get", "-field=merchant_key", "secret/sipay live"}, ""},
		{`a 'b c' d\ e "f \"g\" \\h"`, []string{"a", "b c", "d e", `f "g" \h`}, ""},
		{`a ''`, []string{"a", ""}, ""},
		{"a 'b", nil, "not closed"},
		{`a "b`, nil, "not closed"},
		{`a \`, nil, "ends the command"},
		{"   ", nil, "empty"},
		{"echo $HOME", nil, "would need a shell"},
		{"a; rm -rf x", nil, "would need a shell"},
		{"sh -c 'a | b'", []string{"sh", "-c", "a | b"}, ""},
	} {
		got, err := SplitCommand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"op read x", `a 'b c' "d\"e"`, `x\ y`, "a | b", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err == nil && len(words) == 0 {
			t.Fatalf("%q: no words and no error", s)
		}
	})
}

// TestViperKeepsValuesAsWritten: viper reads the file through paycli's
// codec, so an app_id with a leading zero is not read as an octal number.
func TestViperKeepsValuesAsWritten(t *testing.T) {
	cfg := loadWith(t, "profiles:\n  Live.EU:\n    app_id: 0123\n    timeout: 45\n", map[string]string{"PAYCLI_PROFILE": "Live.EU"})
	if cfg.AppID != "0123" || cfg.Timeout != 45*time.Second {
		t.Fatalf("app_id %q, timeout %s; want 0123, 45s", cfg.AppID, cfg.Timeout)
	}
}

func TestProfilesDifferingOnlyInCaseAreRefused(t *testing.T) {
	path := writeConfig(t, "profiles:\n  live:\n    app_id: a\n  Live:\n    app_id: b\n")
	_, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": path})})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 4 {
		t.Fatalf("got %v, want a FileError at line 4", err)
	}
}

func TestValueErrorFromTheFileNamesItsLine(t *testing.T) {
	path := writeConfig(t, "profiles:\n  default:\n    lang: en\n    timeout: soon\n")
	_, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": path})})
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("got %v, want the line of timeout", err)
	}
}

// TestJournalPasswordOnlyForAJournal: the journal's password is fetched
// only when a shared journal is used: a failing command for it does not
// stop a profile without one, nor a --sandbox run.
func TestJournalPasswordOnlyForAJournal(t *testing.T) {
	cfg := loadWith(t, "profiles:\n  default:\n    journal_password_cmd: \"false\"\n", nil)
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{}); err != nil {
		t.Fatalf("no journal: %v", err)
	}
	withJournal := "profiles:\n  default:\n    journal: postgres://desk@db.example/j\n    journal_password_cmd: echo pw\n"
	cfg = loadWith(t, withJournal, nil)
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{NoJournal: true}); err != nil || cfg.JournalPassword != "" {
		t.Fatalf("--sandbox: %q, %v", cfg.JournalPassword, err)
	}
	cfg = loadWith(t, withJournal, nil)
	if err := cfg.LoadSecrets(context.Background(), SecretOptions{}); err != nil || cfg.JournalPassword != "pw" {
		t.Fatalf("with a journal: %q, %v", cfg.JournalPassword, err)
	}
}
