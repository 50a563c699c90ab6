package configcmd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/keyringtest"
)

// These tests run against a real Secret Service (keyringtest): what paycli
// stores is checked with secret-tool, as a person would.

func (fx *fixture) setSecret(store *keyring.Store, name, value string, insecure bool) error {
	fx.t.Helper()
	fx.in.WriteString(value + "\n")
	k, _ := config.LookupKey(name)
	return setRun(context.Background(), &SetOptions{IO: fx.ios, Where: fx.where(), Keyring: store, Key: k, Value: "-", InsecureStorage: insecure})
}

func (fx *fixture) loadWithSecrets(store *keyring.Store) (*config.Config, error) {
	cfg, err := config.Load(fx.where())
	if err != nil {
		return nil, err
	}
	return cfg, cfg.LoadSecrets(context.Background(), config.SecretOptions{Keyring: store})
}

func TestSetStoresTheSecretInTheKeyring(t *testing.T) {
	kr := keyringtest.Start(t)
	store := &keyring.Store{}
	fx := newFixture(t, "# my desk\nprofiles:\n  live:\n    base_url: https://app.sipay.com.tr/ccpayment # live\n    app_id: \"42\"\n    app_secret: old-plain-secret\n")
	fx.env["PAYCLI_PROFILE"] = "live"
	if err := fx.setSecret(store, "app_secret", appSecret, false); err != nil {
		t.Fatal(err)
	}
	if err := fx.setSecret(store, "merchant_key", merchantKey, false); err != nil {
		t.Fatal(err)
	}
	file := fx.file()
	if strings.Contains(file, appSecret) || strings.Contains(file, merchantKey) || strings.Contains(file, "old-plain-secret") {
		t.Fatalf("a secret is in the file:\n%s", file)
	}
	acct := keyringAccount("live", "https://app.sipay.com.tr/ccpayment", "42")
	for _, want := range []string{"# my desk", "# live", "app_secret_keyring: " + acct, "merchant_key_keyring: " + acct} {
		if !strings.Contains(file, want) {
			t.Errorf("file lacks %q:\n%s", want, file)
		}
	}
	if got := kr.Lookup(t, keyring.Service, acct); !strings.Contains(got, appSecret) || !strings.Contains(got, merchantKey) {
		t.Errorf("secret-tool finds %q under %s", got, acct)
	}
	if !strings.Contains(fx.stderr(), `Set app_secret in profile "live", kept in the system keyring (paycli/`+acct+`)`) {
		t.Errorf("stderr: %s", fx.stderr())
	}
	cfg, err := fx.loadWithSecrets(store)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AppSecret != appSecret || cfg.MerchantKey != merchantKey || cfg.Source("app_secret") != config.SourceKeyring {
		t.Fatalf("resolved %q %q from %s", cfg.AppSecret, cfg.MerchantKey, cfg.Source("app_secret"))
	}

	// config list says where, never the value, and reads no keyring.
	fx.out.Reset()
	reads := store.Reads()
	cfg, _ = config.Load(fx.where())
	err = listRun(context.Background(), &ListOptions{Deps: cmdutil.Deps{IO: fx.ios, Config: func() (*config.Config, error) { return cfg, nil }, Format: func() (render.Format, error) { return render.Table, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	if store.Reads() != reads {
		t.Error("config list read the keyring")
	}
	if !strings.Contains(fx.out.String(), "keyring paycli/"+acct) || !strings.Contains(fx.out.String(), "app_secret_keyring") {
		t.Errorf("list:\n%s", fx.out)
	}
	fx.noSecretsShown()
}

func TestSetWithoutAKeyringSavesNothingAndSaysWhy(t *testing.T) {
	const existing = "profiles:\n  default:\n    app_id: \"42\"\n"
	noBus := &keyring.Store{LookupEnv: func(string) (string, bool) { return "", false }}
	fx := newFixture(t, existing)
	err := fx.setSecret(noBus, "app_secret", appSecret, false)
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") ||
		!strings.Contains(cmdutil.HintOf(err), "--insecure-storage") || !strings.Contains(cmdutil.HintOf(err), "app_secret_cmd") {
		t.Fatalf("err = %v (hint %q), want a usage error naming the bus, with the ways out", err, cmdutil.HintOf(err))
	}
	if fx.file() != existing {
		t.Fatalf("file changed:\n%s", fx.file())
	}
	// --insecure-storage writes it as before.
	if err := fx.setSecret(noBus, "app_secret", appSecret, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fx.file(), "app_secret: "+appSecret) {
		t.Fatalf("file:\n%s", fx.file())
	}
}

func TestSetOnATerminalAsksBeforePlainText(t *testing.T) {
	keyringtest.StartBus(t) // a session bus, but no keyring running on it
	store := &keyring.Store{}
	fx := newFixture(t, "")
	fx.terminal()
	fx.in.WriteString(appSecret + "\ny\n")
	k, _ := config.LookupKey("app_secret")
	if err := setRun(context.Background(), &SetOptions{IO: fx.ios, Where: fx.where(), Keyring: store, Key: k, Value: "-"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fx.stderr(), "The system keyring cannot take app_secret") || !strings.Contains(fx.file(), "app_secret: "+appSecret) {
		t.Fatalf("stderr %q, file:\n%s", fx.stderr(), fx.file())
	}
}

func TestSetOnALockedKeyringRefuses(t *testing.T) {
	kr := keyringtest.Start(t)
	kr.Lock(t)
	fx := newFixture(t, "")
	err := fx.setSecret(&keyring.Store{}, "merchant_key", merchantKey, false)
	var un *keyring.UnavailableError
	if !errors.As(err, &un) {
		t.Fatalf("err = %v, want the keyring's refusal", err)
	}
	if strings.Contains(err.Error(), merchantKey) {
		t.Fatal("the error shows the secret")
	}
}

func TestReadingFromALockedKeyringIsACredentialError(t *testing.T) {
	kr := keyringtest.Start(t)
	store := &keyring.Store{}
	fx := newFixture(t, "profiles:\n  default:\n    app_id: \"42\"\n")
	if err := fx.setSecret(store, "app_secret", appSecret, false); err != nil {
		t.Fatal(err)
	}
	kr.Lock(t)
	_, err := fx.loadWithSecrets(store)
	var ce *config.CredentialError
	if !errors.As(err, &ce) || ce.Secret != "app_secret" || !strings.Contains(err.Error(), "keyring paycli/default@") {
		t.Fatalf("err = %v, want a CredentialError for app_secret naming the entry", err)
	}
}

func TestInitStoresNoSecretInTheFile(t *testing.T) {
	kr := keyringtest.Start(t)
	fx := newFixture(t, "")
	fx.in.WriteString(appSecret + "\n" + merchantKey + "\n")
	err := initRun(context.Background(), &InitOptions{IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv, Keyring: &keyring.Store{},
		Flags: map[string]string{"base_url": config.TestBaseURL, "app_id": "7"}, AppSecretStdin: true, MerchantKeyStdin: true})
	if err != nil {
		t.Fatal(err)
	}
	file := fx.file()
	if strings.Contains(file, appSecret) || strings.Contains(file, merchantKey) {
		t.Fatalf("a secret is in the file:\n%s", file)
	}
	acct := keyringAccount("default", config.TestBaseURL, "7")
	if got := kr.Lookup(t, keyring.Service, acct); !strings.Contains(got, appSecret) {
		t.Fatalf("keyring entry %s: %q", acct, got)
	}
	fx.noSecretsShown()

	// A second init keeps the secrets it finds in the keyring.
	fx2 := &fixture{t: t, path: fx.path, env: fx.env, ios: fx.ios, in: fx.in, out: fx.out, errOut: fx.errOut}
	err = initRun(context.Background(), &InitOptions{IO: fx2.ios, Where: fx2.where(), LookupEnv: fx2.lookupEnv, Keyring: &keyring.Store{},
		Flags: map[string]string{"lang": "tr"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := fx.loadWithSecrets(&keyring.Store{}); err != nil || cfg.AppSecret != appSecret || cfg.Lang != "tr" {
		t.Fatalf("after a second init: %v", err)
	}
}

func TestInitOnAHeadlessMachineSaysWhyAndWhatToDo(t *testing.T) {
	fx := newFixture(t, "")
	fx.in.WriteString(appSecret + "\n" + merchantKey + "\n")
	noBus := &keyring.Store{LookupEnv: func(string) (string, bool) { return "", false }}
	err := initRun(context.Background(), &InitOptions{IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv, Keyring: noBus,
		Flags: map[string]string{"base_url": config.TestBaseURL, "app_id": "7"}, AppSecretStdin: true, MerchantKeyStdin: true})
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "no D-Bus session bus") ||
		!strings.Contains(cmdutil.HintOf(err), "--insecure-storage") {
		t.Fatalf("err = %v (hint %q)", err, cmdutil.HintOf(err))
	}
}

func TestMigrateSecretsMovesPlainTextIntoTheKeyring(t *testing.T) {
	kr := keyringtest.Start(t)
	fx := newFixture(t, "default_profile: live\nprofiles:\n  live: # the desk's account\n    base_url: "+config.LiveBaseURL+"\n    app_id: \"9\"\n    app_secret: "+appSecret+" # old\n    merchant_key: "+merchantKey+"\n")
	if cfg, _ := config.Load(fx.where()); len(cfg.PlainSecrets) != 2 {
		t.Fatalf("the old file is not read as before: %v", cfg.PlainSecrets)
	}
	err := migrateRun(context.Background(), &MigrateOptions{IO: fx.ios, Where: fx.where(), Keyring: &keyring.Store{}})
	if err != nil {
		t.Fatal(err)
	}
	file := fx.file()
	if strings.Contains(file, appSecret) || strings.Contains(file, merchantKey) || !strings.Contains(file, "# the desk's account") {
		t.Fatalf("file:\n%s", file)
	}
	acct := keyringAccount("live", config.LiveBaseURL, "9")
	if got := kr.Lookup(t, keyring.Service, acct); !strings.Contains(got, appSecret) || !strings.Contains(got, merchantKey) {
		t.Fatalf("keyring: %q", got)
	}
	cfg, err := fx.loadWithSecrets(&keyring.Store{})
	if err != nil || cfg.AppSecret != appSecret || cfg.MerchantKey != merchantKey || len(cfg.PlainSecrets) != 0 {
		t.Fatalf("after migration: %v, %+v", err, cfg.PlainSecrets)
	}
	fx.noSecretsShown()
}

func TestMigrateSecretsWithoutAKeyringChangesNothing(t *testing.T) {
	keyringtest.StartBus(t)
	existing := "profiles:\n  default:\n    app_secret: " + appSecret + "\n"
	fx := newFixture(t, existing)
	fx.terminal() // even on a terminal, migration never falls back to plain text
	err := migrateRun(context.Background(), &MigrateOptions{IO: fx.ios, Where: fx.where(), Keyring: &keyring.Store{}})
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || fx.file() != existing {
		t.Fatalf("err = %v, file:\n%s", err, fx.file())
	}
}

func TestRenameAndDeleteCarryTheKeyringEntry(t *testing.T) {
	kr := keyringtest.Start(t)
	store := &keyring.Store{}
	fx := newFixture(t, "default_profile: old\nprofiles:\n  old:\n    base_url: "+config.TestBaseURL+"\n    app_id: \"5\"\n")
	if err := fx.setSecret(store, "app_secret", appSecret, false); err != nil {
		t.Fatal(err)
	}
	oldAcct := keyringAccount("old", config.TestBaseURL, "5")
	newAcct := keyringAccount("new", config.TestBaseURL, "5")
	if err := renameRun(context.Background(), &RenameOptions{IO: fx.ios, Where: fx.where(), Keyring: store, From: "old", To: "new"}); err != nil {
		t.Fatal(err)
	}
	if kr.Lookup(t, keyring.Service, oldAcct) != "" || !strings.Contains(kr.Lookup(t, keyring.Service, newAcct), appSecret) {
		t.Fatalf("after rename: old %q, new %q", kr.Lookup(t, keyring.Service, oldAcct), kr.Lookup(t, keyring.Service, newAcct))
	}
	if !strings.Contains(fx.file(), "default_profile: new") || !strings.Contains(fx.file(), "app_secret_keyring: "+newAcct) {
		t.Fatalf("file:\n%s", fx.file())
	}
	if cfg, err := fx.loadWithSecrets(store); err != nil || cfg.Profile != "new" || cfg.AppSecret != appSecret {
		t.Fatalf("after rename: %v", err)
	}
	if err := deleteRun(context.Background(), &DeleteOptions{IO: fx.ios, Where: fx.where(), Keyring: store, Profile: "new", Yes: true}); err != nil {
		t.Fatal(err)
	}
	if kr.Lookup(t, keyring.Service, newAcct) != "" {
		t.Fatal("the keyring entry outlived its profile")
	}
	if strings.Contains(fx.file(), "new") {
		t.Fatalf("file:\n%s", fx.file())
	}
}

func TestDeleteWithoutAKeyringChangesNothing(t *testing.T) {
	existing := "profiles:\n  p:\n    app_secret_keyring: p@abc\n"
	fx := newFixture(t, existing)
	noBus := &keyring.Store{LookupEnv: func(string) (string, bool) { return "", false }}
	err := deleteRun(context.Background(), &DeleteOptions{IO: fx.ios, Where: fx.where(), Keyring: noBus, Profile: "p", Yes: true})
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || fx.file() != existing {
		t.Fatalf("err = %v, file:\n%s", err, fx.file())
	}
}

func TestSetRefusesTheKeyringReferenceByHand(t *testing.T) {
	fx := newFixture(t, "")
	cmd := NewCmdSet(fx.factory(), func(context.Context, *SetOptions) error { t.Fatal("ran"); return nil })
	cmd.SetArgs([]string{"app_secret_keyring", "x@y"})
	cmd.SetOut(discard{})
	cmd.SetErr(discard{})
	wantUsage(t, cmd.Execute(), "app_secret_keyring is written by paycli: store the secret with 'paycli config set app_secret -'")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
