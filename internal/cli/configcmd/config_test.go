package configcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	appSecret   = "app-secret-0123456789"
	merchantKey = "merchant-key-abcdefghij"
)

// fixture is a config file location and streams for one test.
type fixture struct {
	t               *testing.T
	path            string
	env             map[string]string
	ios             *iostreams.IOStreams
	in, out, errOut *bytes.Buffer
}

func newFixture(t *testing.T, content string) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "paycli", "config.yaml")
	if content != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ios, in, out, errOut := iostreams.Test()
	return &fixture{t: t, path: path, env: map[string]string{"PAYCLI_CONFIG": path}, ios: ios, in: in, out: out, errOut: errOut}
}

func (fx *fixture) lookupEnv(k string) (string, bool) {
	v, ok := fx.env[k]
	return v, ok
}

func (fx *fixture) where() config.LoadOptions {
	return config.LoadOptions{LookupEnv: fx.lookupEnv}
}

func (fx *fixture) terminal() {
	fx.ios.SetStdinTTY(true)
	fx.ios.SetStdoutTTY(true)
}

func (fx *fixture) file() string {
	fx.t.Helper()
	b, err := os.ReadFile(fx.path)
	if err != nil {
		fx.t.Fatal(err)
	}
	return string(b)
}

// stderr returns what was written to stderr with the file's path replaced
// by CONFIG, for exact comparisons.
func (fx *fixture) stderr() string {
	return strings.ReplaceAll(fx.errOut.String(), fx.path, "CONFIG")
}

func (fx *fixture) factory() *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: fx.ios,
		LookupEnv: fx.lookupEnv,
		Config: func() (*config.Config, error) {
			return config.Load(config.LoadOptions{LookupEnv: fx.lookupEnv})
		},
	}
}

func (fx *fixture) noSecretsShown() {
	fx.t.Helper()
	for _, s := range []string{appSecret, merchantKey} {
		if strings.Contains(fx.out.String(), s) || strings.Contains(fx.errOut.String(), s) {
			fx.t.Errorf("secret %q was printed:\nstdout: %s\nstderr: %s", s, fx.out, fx.errOut)
		}
	}
}

func wantUsage(t *testing.T, err error, msg string) {
	t.Helper()
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || err.Error() != msg {
		t.Errorf("err = %v (kind %v), want usage error %q", err, kind, msg)
	}
}

func TestInitOnTerminal(t *testing.T) {
	fx := newFixture(t, "")
	fx.terminal()
	fx.in.WriteString("ftp://nope\n2\n12345\n" + appSecret + "\n\n" + merchantKey + "\neuro\ntry\n")
	err := initRun(context.Background(), &InitOptions{IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv, Flags: map[string]string{}, InsecureStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	wantFile := `default_profile: default
profiles:
  default:
    base_url: https://app.sipay.com.tr/ccpayment
    app_id: "12345"
    app_secret: app-secret-0123456789
    merchant_key: merchant-key-abcdefghij
    default_currency: TRY
`
	if got := fx.file(); got != wantFile {
		t.Errorf("file:\n%s\nwant:\n%s", got, wantFile)
	}
	wantErr := `Setting up profile "default" in CONFIG
Base URL of the gateway:
  1) test  https://provisioning.sipay.com.tr/ccpayment
  2) live  https://app.sipay.com.tr/ccpayment
Choose 1 or 2, or type a URL [1]: Invalid base_url: "ftp://nope" is not an http(s) URL
Choose 1 or 2, or type a URL [1]: app_id: app_secret (hidden): merchant_key (hidden): merchant_key is required.
merchant_key (hidden): default_currency, used when a command has no --currency (e.g. TRY; Enter for none): Invalid default_currency: "EURO" is not an ISO 4217 currency code; the gateway takes TRY, USD, EUR
default_currency, used when a command has no --currency (e.g. TRY; Enter for none): Created profile "default" in CONFIG:
  base_url         https://app.sipay.com.tr/ccpayment
  app_id           ••••••••
  app_secret       app-••••6789
  merchant_key     merc••••ghij
  default_currency TRY
Default profile is now "default" (the config file had no default); choose another with 'paycli config use PROFILE'.
`
	if got := fx.stderr(); got != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
	}
	if fx.out.Len() != 0 {
		t.Errorf("stdout: %q", fx.out)
	}
	fx.noSecretsShown()
}

func TestInitOnTerminalKeepsCurrentValues(t *testing.T) {
	fx := newFixture(t, `# mine
default_profile: live
profiles:
  live:
    base_url: https://app.sipay.com.tr/ccpayment
    app_id: "777"
    app_secret: `+appSecret+`
    merchant_key: `+merchantKey+`
    lang: tr # Turkish texts
`)
	before := fx.file()
	fx.terminal()
	fx.in.WriteString("\n\n\n\n") // Enter everywhere keeps
	err := initRun(context.Background(), &InitOptions{IO: fx.ios, Where: fx.where(), Flags: map[string]string{}, InsecureStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fx.file(); got != before {
		t.Errorf("file changed:\n%s", got)
	}
	if !strings.Contains(fx.stderr(), "app_secret (hidden; Enter keeps app-••••6789): ") ||
		!strings.Contains(fx.stderr(), `Updated profile "live" in CONFIG:`) {
		t.Errorf("stderr:\n%s", fx.stderr())
	}
	fx.noSecretsShown()
}

func TestInitWithoutTerminal(t *testing.T) {
	tests := []struct {
		name     string
		existing string
		flags    map[string]string
		stdin    string
		env      map[string]string
		secrets  [2]bool // app_secret, merchant_key from stdin
		wantFile string
		wantErr  string
	}{
		{
			name:    "secrets on stdin",
			flags:   map[string]string{"base_url": config.TestBaseURL, "app_id": "42", "lang": "tr"},
			stdin:   appSecret + "\r\n" + merchantKey + "\n",
			secrets: [2]bool{true, true},
			wantFile: "default_profile: default\nprofiles:\n  default:\n    base_url: " + config.TestBaseURL +
				"\n    app_id: \"42\"\n    app_secret: " + appSecret + "\n    merchant_key: " + merchantKey + "\n    lang: tr\n",
		},
		{
			name: "everything from the environment",
			env:  map[string]string{"PAYCLI_BASE_URL": "live", "PAYCLI_APP_ID": "43", "PAYCLI_APP_SECRET": appSecret, "PAYCLI_MERCHANT_KEY": merchantKey},
			wantFile: "default_profile: default\nprofiles:\n  default:\n    base_url: " + config.LiveBaseURL +
				"\n    app_id: \"43\"\n    app_secret: " + appSecret + "\n    merchant_key: " + merchantKey + "\n",
		},
		{
			name:     "a new profile keeps the implicit default",
			existing: "profiles:\n  default:\n    lang: en\n",
			flags:    map[string]string{"base_url": config.TestBaseURL, "app_id": "44"},
			env:      map[string]string{"PAYCLI_PROFILE": "staging", "PAYCLI_APP_SECRET": appSecret},
			stdin:    merchantKey + "\n",
			secrets:  [2]bool{false, true},
			wantFile: "default_profile: default\nprofiles:\n  default:\n    lang: en\n  staging:\n    base_url: " + config.TestBaseURL +
				"\n    app_id: \"44\"\n    app_secret: " + appSecret + "\n    merchant_key: " + merchantKey + "\n",
		},
		{
			name:    "missing values",
			flags:   map[string]string{"app_id": "42"},
			wantErr: `profile "default" would lack base_url, app_secret, merchant_key`,
		},
		{
			name:    "empty stdin",
			flags:   map[string]string{"base_url": config.TestBaseURL, "app_id": "42"},
			secrets: [2]bool{true, true},
			wantErr: "no app_secret on stdin (expected one line)",
		},
		{
			name:    "one line for two secrets",
			flags:   map[string]string{"base_url": config.TestBaseURL, "app_id": "42"},
			stdin:   appSecret + "\n",
			secrets: [2]bool{true, true},
			wantErr: "no merchant_key on stdin (expected one line)",
		},
		{
			name:    "bad value in the environment",
			env:     map[string]string{"PAYCLI_BASE_URL": "ftp://x", "PAYCLI_APP_ID": "1", "PAYCLI_APP_SECRET": "s", "PAYCLI_MERCHANT_KEY": "m"},
			wantErr: `invalid base_url (from flag or PAYCLI_BASE_URL): "ftp://x" is not an http(s) URL`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.existing)
			for k, v := range tt.env {
				fx.env[k] = v
			}
			fx.in.WriteString(tt.stdin)
			flags := map[string]string{}
			for k, v := range tt.flags {
				flags[k] = v
			}
			err := initRun(context.Background(), &InitOptions{
				IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv, Flags: flags,
				AppSecretStdin: tt.secrets[0], MerchantKeyStdin: tt.secrets[1], InsecureStorage: true,
			})
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				if _, statErr := os.Stat(fx.path); tt.existing == "" && statErr == nil {
					t.Error("a file was written despite the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fx.file(); got != tt.wantFile {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.wantFile)
			}
			fx.noSecretsShown()
		})
	}
}

func TestNewCmdInitFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantFlags map[string]string
		wantErr   string
	}{
		{[]string{"--base-url", "test", "--app-id", "1"}, map[string]string{"base_url": "test", "app_id": "1"}, ""},
		{[]string{"--base-url", "LIVE", "--default-currency", "TRY", "--lang", "tr"}, map[string]string{"base_url": "live", "default_currency": "TRY", "lang": "tr"}, ""},
		{[]string{"--gateway", "QNBpay", "--base-url", "2"}, map[string]string{"gateway": "qnbpay", "base_url": "live"}, ""},
		{[]string{"--base-url", "ftp://x"}, nil, `invalid --base-url: "ftp://x" is not an http(s) URL`},
		{[]string{"--lang", "turkish"}, nil, `invalid --lang: "turkish" is not a language the gateway answers in: use tr or en`},
		{[]string{"--lang", "de"}, nil, `invalid --lang: "de" is not a language the gateway answers in: use tr or en`},
		{[]string{"--app-id", ""}, nil, "--app-id is empty"},
		{[]string{"extra"}, nil, `unexpected argument "extra": init takes no arguments`},
		{[]string{"--app-secret", "s"}, nil, "unknown flag: --app-secret"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fx := newFixture(t, "")
			var got *InitOptions
			cmd := NewCmdInit(fx.factory(), func(_ context.Context, o *InitOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Flags) != len(tt.wantFlags) {
				t.Errorf("flags %v, want %v", got.Flags, tt.wantFlags)
			}
			for k, v := range tt.wantFlags {
				if got.Flags[k] != v {
					t.Errorf("%s = %q, want %q", k, got.Flags[k], v)
				}
			}
		})
	}
}

func TestSet(t *testing.T) {
	const existing = "default_profile: live # chosen\nprofiles:\n  live:\n    lang: en # English texts\n"
	tests := []struct {
		name       string
		existing   string
		env        map[string]string
		key, value string
		stdin      string
		terminal   bool
		wantFile   string
		wantStderr string
		wantErr    string
	}{
		{
			name: "plain value into the default profile", existing: existing, key: "lang", value: "tr",
			wantFile:   "default_profile: live # chosen\nprofiles:\n  live:\n    lang: tr # English texts\n",
			wantStderr: "Set lang in profile \"live\".\n",
		},
		{
			name: "new profile from PAYCLI_PROFILE", existing: existing, env: map[string]string{"PAYCLI_PROFILE": "test"},
			key: "base_url", value: config.TestBaseURL,
			wantFile:   "default_profile: live # chosen\nprofiles:\n  live:\n    lang: en # English texts\n  test:\n    base_url: " + config.TestBaseURL + "\n",
			wantStderr: "Created profile \"test\" in CONFIG.\nSet base_url in profile \"test\".\nDefault profile is still \"live\"; use this one with --profile test, or make it the default with 'paycli config use test'.\n",
		},
		{
			name: "secret in argv warns", key: "app_secret", value: appSecret,
			wantFile:   "default_profile: default\nprofiles:\n  default:\n    app_secret: " + appSecret + "\n",
			wantStderr: "warning: app_secret given on the command line stays in your shell history; next time use: paycli config set app_secret -\nCreated profile \"default\" in CONFIG.\nSet app_secret in profile \"default\".\nDefault profile is now \"default\" (the config file had no default); choose another with 'paycli config use PROFILE'.\n",
		},
		{
			name: "secret from stdin", existing: existing, key: "merchant_key", value: "-", stdin: merchantKey + "\n",
			wantFile:   "default_profile: live # chosen\nprofiles:\n  live:\n    lang: en # English texts\n    merchant_key: " + merchantKey + "\n",
			wantStderr: "Set merchant_key in profile \"live\".\n",
		},
		{
			name: "secret from a terminal is asked for", existing: existing, key: "merchant_key", value: "-", stdin: merchantKey + "\n", terminal: true,
			wantFile:   "default_profile: live # chosen\nprofiles:\n  live:\n    lang: en # English texts\n    merchant_key: " + merchantKey + "\n",
			wantStderr: "merchant_key (hidden): Set merchant_key in profile \"live\".\n",
		},
		{
			name: "environment wins, and set says so", existing: existing, env: map[string]string{"PAYCLI_LANG": "de"}, key: "lang", value: "tr",
			wantFile:   "default_profile: live # chosen\nprofiles:\n  live:\n    lang: tr # English texts\n",
			wantStderr: "Set lang in profile \"live\".\nnote: PAYCLI_LANG is set in the environment and wins over the file.\n",
		},
		{name: "empty stdin", existing: existing, key: "app_id", value: "-", wantErr: "no value for app_id on stdin"},
		{name: "bad value from stdin", existing: existing, key: "output", value: "-", stdin: "xml\n", wantErr: `invalid output: "xml" is not one of table, json, csv, tsv`},
		{name: "empty value", existing: existing, key: "lang", value: "-", stdin: "\n", wantErr: "no value for lang on stdin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.existing)
			for k, v := range tt.env {
				fx.env[k] = v
			}
			if tt.terminal {
				fx.terminal()
			}
			fx.in.WriteString(tt.stdin)
			k, _ := config.LookupKey(tt.key)
			err := setRun(context.Background(), &SetOptions{IO: fx.ios, Where: fx.where(), Key: k, Value: tt.value, InsecureStorage: true})
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				if tt.existing != "" && fx.file() != tt.existing {
					t.Errorf("file changed despite the error:\n%s", fx.file())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fx.file(); got != tt.wantFile {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.wantFile)
			}
			if got := fx.stderr(); got != tt.wantStderr {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantStderr)
			}
			if fx.out.Len() != 0 {
				t.Errorf("stdout: %q", fx.out)
			}
		})
	}
}

func TestNewCmdSetArgs(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"colour", "red"}, `unknown key "colour" (known keys: ` + strings.Join(config.KeyNames(), ", ") + `)`},
		{[]string{"timeout", "soon"}, `invalid timeout: "soon" is not a duration (e.g. 30s, 2m)`},
		{[]string{"lang"}, "missing KEY and VALUE"},
		{[]string{"lang", "tr", "en"}, `too many arguments: "en" (expected KEY and VALUE)`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fx := newFixture(t, "")
			cmd := NewCmdSet(fx.factory(), func(context.Context, *SetOptions) error { t.Fatal("ran"); return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			wantUsage(t, cmd.Execute(), tt.wantErr)
		})
	}
	t.Run("unknown key hint", func(t *testing.T) {
		_, err := checkKey("colour")
		if h := cmdutil.HintOf(err); h != "Run 'paycli config --help' for what each key means." {
			t.Errorf("hint %q", h)
		}
	})
}

const twoProfiles = `default_profile: live
profiles:
  live:
    base_url: https://app.sipay.com.tr/ccpayment
    app_id: "1234567890123"
    app_secret: ` + appSecret + `
    merchant_key: ` + merchantKey + `
  test:
    base_url: https://provisioning.sipay.com.tr/ccpayment
`

func TestGet(t *testing.T) {
	tests := []struct {
		key        string
		show       bool
		env        map[string]string
		wantOut    string
		wantStderr string
	}{
		{key: "base_url", wantOut: "https://app.sipay.com.tr/ccpayment\n"},
		{key: "base_url", env: map[string]string{"PAYCLI_BASE_URL": "http://127.0.0.1:9/ccpayment"}, wantOut: "http://127.0.0.1:9/ccpayment\n"},
		{key: "app_secret", wantOut: "app-••••6789\n", wantStderr: "app_secret is masked; add --show-secrets to print it.\n"},
		{key: "app_secret", show: true, wantOut: appSecret + "\n"},
		{key: "lang", wantOut: "en\n"},
		{key: "ca_cert", wantOut: "\n"},
		{key: "merchant_key", env: map[string]string{"PAYCLI_PROFILE": "test"}, wantOut: "\n"},
		{key: "base_url", env: map[string]string{"PAYCLI_BASE_URL": "https://merchant:s3cret@gw.example/ccpayment"},
			wantOut: "https://xxxxx@gw.example/ccpayment\n", wantStderr: "base_url is masked; add --show-secrets to print it.\n"},
		{key: "base_url", show: true, env: map[string]string{"PAYCLI_BASE_URL": "https://merchant:s3cret@gw.example/ccpayment"},
			wantOut: "https://merchant:s3cret@gw.example/ccpayment\n"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			fx := newFixture(t, twoProfiles)
			for k, v := range tt.env {
				fx.env[k] = v
			}
			k, _ := config.LookupKey(tt.key)
			err := getRun(context.Background(), &GetOptions{IO: fx.ios, Config: fx.factory().Config, Key: k, ShowSecrets: tt.show})
			if err != nil {
				t.Fatal(err)
			}
			if fx.out.String() != tt.wantOut || fx.stderr() != tt.wantStderr {
				t.Errorf("stdout %q stderr %q, want %q %q", fx.out, fx.stderr(), tt.wantOut, tt.wantStderr)
			}
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		golden string
		format render.Format
		show   bool
		tty    bool
	}{
		{"list.table.golden", render.Table, false, true},
		{"list.table.golden", render.Table, false, false},
		{"list.show-secrets.golden", render.Table, true, false},
		{"list.json.golden", render.JSON, false, false},
		{"list.csv.golden", render.CSV, false, false},
		{"list.tsv.golden", render.TSV, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			fx := newFixture(t, twoProfiles)
			fx.env["PAYCLI_TIMEOUT"] = "2m"
			fx.env["PAYCLI_CONFIG"] = fx.path
			fx.ios.SetStdoutTTY(tt.tty)
			err := listRun(context.Background(), &ListOptions{Deps: cmdutil.Deps{IO: fx.ios, Config: fx.factory().Config, Format: func() (render.Format, error) { return tt.format, nil }}, ShowSecrets: tt.show})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, strings.ReplaceAll(fx.out.String(), fx.path, "CONFIG"))
			if !tt.show {
				fx.noSecretsShown()
			}
			if fx.errOut.Len() != 0 {
				t.Errorf("stderr: %q", fx.errOut)
			}
		})
	}
}

// TestListMasksURLUserinfo: a password in base_url is a secret like
// app_secret, in config list and config profiles alike.
func TestListMasksURLUserinfo(t *testing.T) {
	content := "profiles:\n  default:\n    base_url: https://merchant:s3cret@gw.example/ccpayment\n"
	for _, format := range []render.Format{render.Table, render.JSON, render.CSV} {
		fx := newFixture(t, content)
		format := func() (render.Format, error) { return format, nil }
		if err := listRun(context.Background(), &ListOptions{Deps: cmdutil.Deps{IO: fx.ios, Config: fx.factory().Config, Format: format}}); err != nil {
			t.Fatal(err)
		}
		if err := profilesRun(context.Background(), &ProfilesOptions{Deps: cmdutil.Deps{IO: fx.ios, Format: format}, Where: fx.where()}); err != nil {
			t.Fatal(err)
		}
		out := fx.out.String()
		if strings.Contains(out, "s3cret") || strings.Count(out, "https://xxxxx@gw.example/ccpayment") != 2 {
			t.Errorf("output does not mask the URL's userinfo:\n%s", out)
		}
	}
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		name, content string
		format        render.Format
		wantOut       string
		wantStderr    string
	}{
		{"table", twoProfiles, render.Table,
			"DEFAULT  PROFILE  BASE URL\n*        live     https://app.sipay.com.tr/ccpayment\n         test     https://provisioning.sipay.com.tr/ccpayment\n", ""},
		{"json", twoProfiles, render.JSON,
			"[\n  {\n    \"name\": \"live\",\n    \"default\": true,\n    \"base_url\": \"https://app.sipay.com.tr/ccpayment\"\n  },\n  {\n    \"name\": \"test\",\n    \"default\": false,\n    \"base_url\": \"https://provisioning.sipay.com.tr/ccpayment\"\n  }\n]\n", ""},
		{"csv", twoProfiles, render.CSV,
			"name,default,base_url\nlive,true,https://app.sipay.com.tr/ccpayment\ntest,false,https://provisioning.sipay.com.tr/ccpayment\n", ""},
		{"implicit default", "profiles:\n  default: {}\n  other: {}\n", render.Table,
			"DEFAULT  PROFILE  BASE URL\n*        default\n         other\n", ""},
		{"no file", "", render.Table, "", "No profiles in CONFIG; create one with 'paycli config init'.\n"},
		{"no file json", "", render.JSON, "[]\n", ""},
		{"dangling default", "default_profile: gone\nprofiles:\n  a: {}\n", render.Table,
			"DEFAULT  PROFILE  BASE URL\n         a\n", "warning: default_profile \"gone\" is not in CONFIG; choose one with 'paycli config use PROFILE'.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.content)
			err := profilesRun(context.Background(), &ProfilesOptions{Deps: cmdutil.Deps{IO: fx.ios, Format: func() (render.Format, error) { return tt.format, nil }}, Where: fx.where()})
			if err != nil {
				t.Fatal(err)
			}
			if fx.out.String() != tt.wantOut || fx.stderr() != tt.wantStderr {
				t.Errorf("stdout:\n%q\nstderr:\n%q\nwant:\n%q\n%q", fx.out, fx.stderr(), tt.wantOut, tt.wantStderr)
			}
		})
	}
}

func TestUse(t *testing.T) {
	fx := newFixture(t, twoProfiles)
	if err := useRun(context.Background(), &UseOptions{IO: fx.ios, Where: fx.where(), Profile: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := fx.file(); got != strings.Replace(twoProfiles, "default_profile: live", "default_profile: test", 1) {
		t.Errorf("file:\n%s", got)
	}
	if fx.stderr() != "Default profile is now \"test\".\n" {
		t.Errorf("stderr %q", fx.stderr())
	}

	err := useRun(context.Background(), &UseOptions{IO: fx.ios, Where: fx.where(), Profile: "prod"})
	var pe *config.ProfileError
	if !errors.As(err, &pe) || err.Error() != `profile "prod" not found in `+fx.path+` (profiles: live, test)` {
		t.Errorf("err = %v", err)
	}
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || cmdutil.HintOf(err) != "Create it with 'paycli config init --profile prod'." {
		t.Errorf("kind %v hint %q", kind, cmdutil.HintOf(err))
	}
}

func TestUnset(t *testing.T) {
	fx := newFixture(t, twoProfiles)
	k, _ := config.LookupKey("app_secret")
	if err := unsetRun(context.Background(), &UnsetOptions{IO: fx.ios, Where: fx.where(), Key: k}); err != nil {
		t.Fatal(err)
	}
	if got := fx.file(); got != strings.Replace(twoProfiles, "    app_secret: "+appSecret+"\n", "", 1) {
		t.Errorf("file:\n%s", got)
	}
	if err := unsetRun(context.Background(), &UnsetOptions{IO: fx.ios, Where: fx.where(), Key: k}); err != nil {
		t.Fatal(err)
	}
	want := "Removed app_secret from profile \"live\".\napp_secret is not set in profile \"live\"; nothing changed.\n"
	if fx.stderr() != want {
		t.Errorf("stderr %q, want %q", fx.stderr(), want)
	}

	fx.env["PAYCLI_PROFILE"] = "nope"
	err := unsetRun(context.Background(), &UnsetOptions{IO: fx.ios, Where: fx.where(), Key: k})
	var pe *config.ProfileError
	if !errors.As(err, &pe) {
		t.Errorf("err = %v, want *ProfileError", err)
	}
}

func TestLooseFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	fx := newFixture(t, twoProfiles)
	if err := os.Chmod(fx.path, 0o644); err != nil {
		t.Fatal(err)
	}
	err := profilesRun(context.Background(), &ProfilesOptions{Deps: cmdutil.Deps{IO: fx.ios, Format: func() (render.Format, error) { return render.JSON, nil }}, Where: fx.where()})
	if err != nil {
		t.Fatal(err)
	}
	want := "warning: CONFIG is readable by others (mode 0644); run: chmod 600 CONFIG\n"
	if fx.stderr() != want {
		t.Errorf("stderr %q, want %q", fx.stderr(), want)
	}

	fx.errOut.Reset()
	if err := useRun(context.Background(), &UseOptions{IO: fx.ios, Where: fx.where(), Profile: "test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fx.stderr(), "Tightened CONFIG to mode 0600 (it was 0644).\n") {
		t.Errorf("stderr %q", fx.stderr())
	}
	if info, _ := os.Stat(fx.path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o", info.Mode().Perm())
	}
}

func TestBrokenFile(t *testing.T) {
	fx := newFixture(t, "profiles:\n  live:\n    app_id: [\n")
	before := fx.file()
	k, _ := config.LookupKey("lang")
	err := setRun(context.Background(), &SetOptions{IO: fx.ios, Where: fx.where(), Key: k, Value: "tr"})
	var fe *config.FileError
	if !errors.As(err, &fe) || fe.Line != 3 {
		t.Fatalf("err = %v, want a *FileError at line 3", err)
	}
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage {
		t.Errorf("kind %v", kind)
	}
	if fx.file() != before {
		t.Error("a broken file was rewritten")
	}
}

func TestPath(t *testing.T) {
	fx := newFixture(t, "")
	if err := pathRun(context.Background(), &PathOptions{IO: fx.ios, Where: fx.where()}); err != nil {
		t.Fatal(err)
	}
	if fx.out.String() != fx.path+"\n" {
		t.Errorf("stdout %q", fx.out)
	}
}

// TestSetConcurrentProfiles: 30 `config set` runs at once, each on its own
// profile of one file, all survive.
func TestSetConcurrentProfiles(t *testing.T) {
	fx := newFixture(t, "")
	k, _ := config.LookupKey("app_id")
	const writers = 30
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			env := map[string]string{"PAYCLI_CONFIG": fx.path, "PAYCLI_PROFILE": fmt.Sprintf("p%02d", i)}
			ios, _, _, _ := iostreams.Test()
			errs[i] = setRun(context.Background(), &SetOptions{
				IO:    ios,
				Where: config.LoadOptions{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }},
				Key:   k, Value: fmt.Sprint(1000 + i),
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	file, err := config.ReadFile(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(file.Profiles); got != writers {
		t.Errorf("%d of %d profiles survive: %v", got, writers, file.ProfileNames())
	}
	for i := range writers {
		if got := file.Profiles[fmt.Sprintf("p%02d", i)]["app_id"]; got != fmt.Sprint(1000+i) {
			t.Errorf("profile p%02d app_id = %q", i, got)
		}
	}
}

// TestSetRefusesInvalidUTF8: a secret that is not text is a usage error
// (exit 2), and nothing is written.
func TestSetRefusesInvalidUTF8(t *testing.T) {
	fx := newFixture(t, "")
	fx.in.WriteString("sk_\xff\xfe_0123456789\n")
	k, _ := config.LookupKey("app_secret")
	err := setRun(context.Background(), &SetOptions{IO: fx.ios, Where: fx.where(), Key: k, Value: "-"})
	wantUsage(t, err, "invalid app_secret: the value is not valid UTF-8 text")
	if _, statErr := os.Stat(fx.path); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("config file written: %v", statErr)
	}
}

// TestInitVerifies: init takes a token with the new settings before
// saving; a refusal saves nothing unless the person at the terminal asks.
func TestInitVerifies(t *testing.T) {
	refused := cmdutil.WithKind(cmdutil.KindAuth, errors.New(`the gateway refused the credentials of profile "default"`), "Check app_id and app_secret.")
	flags := func() map[string]string {
		return map[string]string{"base_url": "https://u:p@gw.example/ccpayment", "app_id": "42", "default_currency": "TRY"}
	}
	tests := []struct {
		name       string
		verifyErr  error
		noVerify   bool
		terminal   bool
		answer     string
		wantSaved  bool
		wantErr    string
		wantStderr []string
	}{
		{name: "accepted", wantSaved: true,
			wantStderr: []string{"Checking the credentials with https://xxxxx@gw.example/ccpayment ...\n", "The gateway issued a token and knows the merchant: base_url, app_id, app_secret and merchant_key work.\n"}},
		{name: "refused without a terminal", verifyErr: refused,
			wantErr: `profile "default" was not saved (add --no-verify to save it unchecked): the gateway refused the credentials of profile "default"`},
		{name: "refused, kept on the terminal", verifyErr: refused, terminal: true, answer: "n\n",
			wantErr:    `profile "default" was not saved`,
			wantStderr: []string{"The check failed: the gateway refused the credentials of profile \"default\"\nCheck app_id and app_secret.\nSave profile \"default\" anyway? [y/N] "}},
		{name: "refused, saved on request", verifyErr: refused, terminal: true, answer: "y\n", wantSaved: true,
			wantStderr: []string{"Saving the settings unchecked.\n"}},
		{name: "--no-verify", verifyErr: refused, noVerify: true, wantSaved: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, "")
			if tt.terminal {
				fx.terminal()
			}
			fx.env["PAYCLI_APP_SECRET"] = appSecret
			fx.env["PAYCLI_MERCHANT_KEY"] = merchantKey
			fx.in.WriteString(appSecret + "\n" + merchantKey + "\n" + tt.answer)
			var checked *config.Config
			err := initRun(context.Background(), &InitOptions{
				IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv, Flags: flags(),
				AppSecretStdin: tt.terminal, MerchantKeyStdin: tt.terminal, NoVerify: tt.noVerify, InsecureStorage: true,
				Verify: func(_ context.Context, cfg *config.Config) error { checked = cfg; return tt.verifyErr },
			})
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindAuth {
					t.Errorf("kind = %v, want the check's own (auth)", kind)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(fx.path)
			if saved := statErr == nil; saved != tt.wantSaved {
				t.Errorf("saved = %v, want %v", saved, tt.wantSaved)
			}
			if tt.noVerify != (checked == nil) {
				t.Errorf("Verify called = %v with --no-verify %v", checked != nil, tt.noVerify)
			}
			if checked != nil && (checked.Profile != "default" || checked.BaseURL != "https://u:p@gw.example/ccpayment" ||
				checked.AppID != "42" || checked.AppSecret != appSecret || checked.MerchantKey != merchantKey) {
				t.Errorf("Verify got %+v", checked)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(fx.stderr(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, fx.stderr())
				}
			}
			fx.noSecretsShown()
		})
	}
}

// runUnderRoot runs cmd below a root that carries -o as paycli's root does.
func (fx *fixture) runUnderRoot(cmd *cobra.Command, args ...string) error {
	root := &cobra.Command{Use: "paycli", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().StringP("output", "o", "table", "")
	root.AddCommand(cmd)
	root.SetArgs(append([]string{cmd.Name()}, args...))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	return root.Execute()
}

// TestGetJSON: -o json and --jq on the command line print the setting as
// config list does; a configured output format, even json, leaves the bare
// value that $(paycli config get …) captures.
func TestGetJSON(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantOut    string
		wantStderr string
	}{
		{name: "-o json", args: []string{"base_url", "-o", "json"},
			wantOut: "{\n  \"key\": \"base_url\",\n  \"value\": \"https://app.sipay.com.tr/ccpayment\",\n  \"source\": \"file\",\n  \"secret\": false\n}\n"},
		{name: "a secret stays masked", args: []string{"app_secret", "-o", "json"},
			wantOut:    "{\n  \"key\": \"app_secret\",\n  \"value\": \"app-••••6789\",\n  \"source\": \"file\",\n  \"secret\": true\n}\n",
			wantStderr: "app_secret is masked; add --show-secrets to print it.\n"},
		{name: "--jq", args: []string{"lang", "--jq", "[.value, .source]"}, env: map[string]string{"PAYCLI_LANG": "tr"},
			wantOut: "[\"tr\",\"env\"]\n"},
		{name: "--jq with --show-secrets", args: []string{"app_secret", "--show-secrets", "--jq", ".value"},
			wantOut: appSecret + "\n"},
		{name: "configured json leaves the bare value", args: []string{"output"}, env: map[string]string{"PAYCLI_OUTPUT": "json"},
			wantOut: "json\n"},
		{name: "-o tsv leaves the bare value", args: []string{"lang", "-o", "tsv"},
			wantOut: "en\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, twoProfiles)
			for k, v := range tt.env {
				fx.env[k] = v
			}
			if err := fx.runUnderRoot(NewCmdGet(fx.factory(), nil), tt.args...); err != nil {
				t.Fatal(err)
			}
			if fx.out.String() != tt.wantOut || fx.stderr() != tt.wantStderr {
				t.Errorf("stdout %q stderr %q\nwant   %q        %q", fx.out, fx.stderr(), tt.wantOut, tt.wantStderr)
			}
		})
	}
}

// TestPathJSON: config path prints {"path"} with -o json, the path with
// --jq .path, and the bare path under a configured json.
func TestPathJSON(t *testing.T) {
	tests := []struct {
		args    []string
		env     map[string]string
		wantOut string
	}{
		{[]string{"-o", "json"}, nil, "{\n  \"path\": \"CONFIG\"\n}\n"},
		{[]string{"--jq", ".path"}, nil, "CONFIG\n"},
		{nil, map[string]string{"PAYCLI_OUTPUT": "json"}, "CONFIG\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fx := newFixture(t, "")
			for k, v := range tt.env {
				fx.env[k] = v
			}
			if err := fx.runUnderRoot(NewCmdPath(fx.factory(), nil), tt.args...); err != nil {
				t.Fatal(err)
			}
			// The path is JSON-escaped in the document (backslashes on Windows).
			path := strings.TrimSuffix(strings.TrimPrefix(mustJSON(t, fx.path), `"`), `"`)
			if got := strings.ReplaceAll(strings.ReplaceAll(fx.out.String(), path, "CONFIG"), fx.path, "CONFIG"); got != tt.wantOut {
				t.Errorf("stdout %q, want %q", got, tt.wantOut)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
