package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// levelValues are distinct, valid values of one key at each level of the
// precedence. flag is "" for keys no command has a flag for.
type levelValues struct{ flag, env, file string }

// precedenceRows holds a row for every key in Keys; the test fails when a
// key is added without one.
func precedenceRows() map[string]levelValues {
	rows := map[string]levelValues{
		"base_url":         {env: "https://env.example/ccpayment", file: "https://file.example/ccpayment"},
		"gateway":          {env: "paybull", file: "qnbpay"},
		"app_id":           {env: "env-app-id", file: "file-app-id"},
		"app_secret":       {env: "env-app-secret", file: "file-app-secret"},
		"merchant_key":     {env: "env-merchant-key", file: "file-merchant-key"},
		"default_currency": {flag: "USD", env: "EUR", file: "TRY"},
		"lang":             {flag: "tr", env: "en", file: "TR"},
		"timeout":          {flag: "5s", env: "10s", file: "20s"},
		"output":           {flag: "json", env: "csv", file: "tsv"},
		"ca_cert":          {env: "/env/ca.pem", file: "/file/ca.pem"},
		"journal":          {env: "postgres://env.example/desk", file: "postgresql://file.example/desk"},
		"journal_password": {env: "env-pg-password", file: "file-pg-password"},
	}
	for _, name := range SecretNames {
		for _, r := range []Ref{RefCommand, RefFile, RefKeyring} {
			rows[RefKey(name, r)] = levelValues{env: "env-" + string(r), file: "file-" + string(r)}
		}
	}
	return rows
}

// flagSetForKeys registers every key's flag, as the commands that read
// those keys do, plus the global --profile and --config.
func flagSetForKeys(t *testing.T) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.String("profile", "", "")
	fs.String("config", "", "")
	for _, k := range Keys {
		if k.Flag != "" && fs.Lookup(k.Flag) == nil {
			fs.String(k.Flag, k.Default, "")
		}
	}
	return fs
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// TestPrecedence pins flag > env > file > default for every key.
func TestPrecedence(t *testing.T) {
	precedenceValues := precedenceRows()
	for _, k := range Keys {
		if _, ok := precedenceValues[k.Name]; !ok {
			t.Errorf("key %s has no row in precedenceValues", k.Name)
		}
		if (precedenceValues[k.Name].flag != "") != (k.Flag != "") {
			t.Errorf("key %s: flag value given iff the key has a flag (Flag=%q)", k.Name, k.Flag)
		}
	}
	// One file per key: a secret's references in the same profile would
	// choose where the secret comes from (TestSecretSources).
	paths := map[string]string{}
	for _, k := range Keys {
		paths[k.Name] = writeConfig(t, "profiles:\n  default:\n    "+k.Name+": "+precedenceValues[k.Name].file+"\n")
	}

	levels := []struct {
		name                    string
		useFlag, useEnv, inFile bool
		want                    func(k Key, v levelValues) (string, Source)
	}{
		{"flag", true, true, true, func(k Key, v levelValues) (string, Source) { return v.flag, SourceFlag }},
		{"env", false, true, true, func(k Key, v levelValues) (string, Source) { return v.env, SourceEnv }},
		{"file", false, false, true, func(k Key, v levelValues) (string, Source) { return v.file, SourceFile }},
		{"default", false, false, false, func(k Key, v levelValues) (string, Source) { return k.Default, SourceDefault }},
	}
	for _, k := range Keys {
		v := precedenceValues[k.Name]
		for _, lv := range levels {
			if lv.useFlag && k.Flag == "" {
				continue // no command has a flag for this key
			}
			t.Run(k.Name+"/"+lv.name, func(t *testing.T) {
				fs := flagSetForKeys(t)
				env := map[string]string{"PAYCLI_CONFIG": paths[k.Name]}
				if !lv.inFile {
					env["PAYCLI_CONFIG"] = filepath.Join(t.TempDir(), "missing.yaml")
				}
				if lv.useEnv {
					env[k.Env()] = v.env
				}
				if lv.useFlag {
					if err := fs.Set(k.Flag, v.flag); err != nil {
						t.Fatal(err)
					}
				}
				cfg, err := Load(LoadOptions{Flags: fs, LookupEnv: mapEnv(env)})
				if err != nil {
					t.Fatal(err)
				}
				wantValue, wantSource := lv.want(k, v)
				if got := cfg.Get(k.Name); got != wantValue {
					t.Errorf("value = %q, want %q", got, wantValue)
				}
				if got := cfg.Source(k.Name); got != wantSource {
					t.Errorf("source = %q, want %q", got, wantSource)
				}
			})
		}
	}
}

// TestProfileSelection pins --profile > PAYCLI_PROFILE > default_profile >
// "default".
func TestProfileSelection(t *testing.T) {
	path := writeConfig(t, `default_profile: fromfile
profiles:
  fromflag: {app_id: a-flag}
  fromenv: {app_id: a-env}
  fromfile: {app_id: a-file}
  default: {app_id: a-default}
`)
	noDefault := writeConfig(t, "profiles:\n  default: {app_id: a-default}\n")
	tests := []struct {
		name       string
		flag, env  string
		path       string
		want       string
		wantAppID  string
		wantExists bool
	}{
		{"flag beats env and file", "fromflag", "fromenv", path, "fromflag", "a-flag", true},
		{"env beats file", "", "fromenv", path, "fromenv", "a-env", true},
		{"file's default_profile", "", "", path, "fromfile", "a-file", true},
		{"default without default_profile", "", "", noDefault, "default", "a-default", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flagSetForKeys(t)
			if tt.flag != "" {
				_ = fs.Set("profile", tt.flag)
			}
			env := map[string]string{"PAYCLI_CONFIG": tt.path}
			if tt.env != "" {
				env["PAYCLI_PROFILE"] = tt.env
			}
			cfg, err := Load(LoadOptions{Flags: fs, LookupEnv: mapEnv(env)})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Profile != tt.want || cfg.AppID != tt.wantAppID {
				t.Errorf("profile %q app_id %q, want %q %q", cfg.Profile, cfg.AppID, tt.want, tt.wantAppID)
			}
		})
	}

	t.Run("unknown profile names the file and the known profiles", func(t *testing.T) {
		_, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": path, "PAYCLI_PROFILE": "nope"})})
		var pe *ProfileError
		if !errors.As(err, &pe) {
			t.Fatalf("err = %v, want *ProfileError", err)
		}
		want := `profile "nope" not found in ` + path + ` (profiles: default, fromenv, fromfile, fromflag)`
		if err.Error() != want {
			t.Errorf("err = %q\nwant  %q", err, want)
		}
	})
	t.Run("no file at all uses an empty default profile", func(t *testing.T) {
		cfg, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": filepath.Join(t.TempDir(), "none.yaml")})})
		if err != nil || cfg.Profile != "default" || cfg.FileMode != 0 {
			t.Fatalf("cfg %+v err %v", cfg, err)
		}
	})
}

func TestPathResolution(t *testing.T) {
	fs := flagSetForKeys(t)
	env := mapEnv(map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"})
	if p, _ := Path(LoadOptions{Flags: fs, LookupEnv: env}); p != filepath.Join("/xdg", "paycli", "config.yaml") {
		t.Errorf("XDG path = %s", p)
	}
	env = mapEnv(map[string]string{"HOME": "/home/u"})
	if p, _ := Path(LoadOptions{Flags: fs, LookupEnv: env}); p != filepath.Join("/home/u", ".config", "paycli", "config.yaml") {
		t.Errorf("HOME path = %s", p)
	}
	env = mapEnv(map[string]string{"HOME": "/home/u", "PAYCLI_CONFIG": "/env.yaml"})
	if p, _ := Path(LoadOptions{Flags: fs, LookupEnv: env}); p != "/env.yaml" {
		t.Errorf("env path = %s", p)
	}
	_ = fs.Set("config", "/flag.yaml")
	if p, _ := Path(LoadOptions{Flags: fs, LookupEnv: env}); p != "/flag.yaml" {
		t.Errorf("flag path = %s", p)
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"short", "••••••••"},
		{"exactly12chr", "••••••••"},
		{"thirteen-char", "thir••••char"},
		{"sk_live_0123456789abcdef", "sk_l••••cdef"},
		{"ŞükrüÇağlar-ĞİŞÖ", "Şükr••••ĞİŞÖ"},
	}
	for _, tt := range tests {
		if got := Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(tt.in) > 12 && strings.Contains(Mask(tt.in), tt.in[4:len(tt.in)-4]) {
			t.Errorf("Mask(%q) shows the middle", tt.in)
		}
	}
}

// TestValidateValueOddInput: values that are not text, and huge values,
// get a short, exact complaint.
func TestValidateValueOddInput(t *testing.T) {
	huge := "https://" + strings.Repeat("a", 50<<20)
	tests := []struct{ key, value, want string }{
		{"app_secret", "x\xffy", "the value is not valid UTF-8 text"},
		{"base_url", "https://gw.example/\xff", "the value is not valid UTF-8 text"},
		{"base_url", huge[:len(huge)-1] + " ", `"https://` + strings.Repeat("a", 72) + `… (52428808 characters)" is not an http(s) URL`},
		{"base_url", "ftp://user:pass@gw.example", `"ftp://xxxxx@gw.example" is not an http(s) URL`},
		{"lang", strings.Repeat("é", 100), `"` + strings.Repeat("é", 80) + `… (100 characters)" is not a language the gateway answers in: use tr or en`},
	}
	for _, tt := range tests {
		err := ValidateValue(tt.key, tt.value)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ValidateValue(%s, %.40q) = %v, want %q", tt.key, tt.value, err, tt.want)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	tests := []struct {
		name, content string
		wantLine      int
		wantMsg       string
	}{
		{"unclosed flow at the end", "profiles:\n  a:\n    app_id: [\n", 3, "did not find expected node content"},
		{"unclosed flow", "default_profile: live\nprofiles:\n  live:\n    app_id: [oops\n", 4, "did not find expected ',' or ']'"},
		{"unclosed flow mapping", "profiles:\n  live: {lang: tr\n\n", 2, "did not find expected ',' or '}'"},
		// yaml.v3 names the start of the broken mapping, not the stray line.
		{"bad indentation", "profiles:\n  live:\n    lang: tr\n   app_id: x\n", 2, "did not find expected key"},
		{"tab", "profiles:\n\tlive:\n", 2, "found character that cannot start any token"},
		{"colon in value", "profiles:\n  live:\n    base_url: a: b\n", 3, "mapping values are not allowed in this context"},
		{"broken first line", "[\n", 1, "did not find expected node content"},
		{"unknown top key", "default_profile: a\ncolour: red\n", 2, `unknown key "colour" (expected default_profile or profiles)`},
		{"unknown profile key", "profiles:\n  a:\n    colour: red\n", 3, `unknown key "colour" in profile "a"`},
		{"bad profile name", "profiles:\n  'a b':\n    lang: tr\n", 2, `profile name "a b" may hold only`},
		{"nested value", "profiles:\n  a:\n    lang: {x: 1}\n", 3, "lang in profile \"a\" must be a single value"},
		{"not a mapping", "- a\n- b\n", 1, "expected a mapping"},
		{"duplicate profile key", "profiles:\n  a:\n    lang: en\n    lang: tr\n", 4, `duplicate key "lang" in profile "a" (first at line 3)`},
		{"duplicate profile", "profiles:\n  a: {}\n  b: {}\n  a: {}\n", 4, `duplicate key "a" in profiles (first at line 2)`},
		{"duplicate top key", "default_profile: a\ndefault_profile: b\n", 2, `duplicate key "default_profile" (first at line 1)`},
		{"second document", "profiles:\n  a:\n    lang: en\n---\nprofiles:\n  b: {}\n", 4, "a second YAML document starts here"},
		{"long unknown key", "profiles:\n  a:\n    " + strings.Repeat("k", 1000) + ": x\n", 3, `unknown key "` + strings.Repeat("k", 80) + `… (1000 characters)" in profile "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.content)
			_, err := ReadFile(path)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if fe.Line != tt.wantLine || fe.Path != path || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q (line %d), want line %d and %q", err, fe.Line, tt.wantLine, tt.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), "config file "+path+", line ") {
				t.Errorf("err = %q does not start with the file and line", err)
			}
		})
	}
}

// A journal that is not a postgres:// URL is refused where it is set,
// and one with a password is shown without it.
func TestJournalKey(t *testing.T) {
	for _, bad := range []string{"/var/lib/paycli/journal.jsonl", "mysql://db/desk", "http://db/desk"} {
		if err := ValidateValue("journal", bad); err == nil || !strings.Contains(err.Error(), "is not a postgres:// URL") {
			t.Errorf("ValidateValue(journal, %q) = %v, want a postgres:// URL refusal", bad, err)
		}
	}
	if err := ValidateValue("journal", "postgres://ayse:s3cret@db/desk"); err != nil {
		t.Errorf("a postgres URL refused: %v", err)
	}
	err := ValidateValue("journal", "mysql://ayse:s3cret@db/desk")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the refusal of a URL with a password: %v", err)
	}
	if k, _ := LookupKey("journal"); !k.URL || k.Env() != "PAYCLI_JOURNAL" {
		t.Errorf("journal key = %+v", k)
	}
}
