// Package config resolves paycli's settings. One viper.Viper per run
// (newViper) reads the config file, the PAYCLI_* environment and the bound
// flags with viper's precedence, flag > environment > config file >
// default; paycli keeps the typed Config, each key's source, the checks of
// the file (yaml.v3, which says on which line a mistake is) and the writing
// of it (yaml.v3 again, keeping comments: viper's writer drops them).
// Secrets may instead come from the system keyring, a command or a file
// (secrets.go), resolved once per run by LoadSecrets.
//
// The file is YAML at $PAYCLI_CONFIG, else <user config dir>/paycli/config.yaml:
//
//	default_profile: default
//	profiles:
//	  default:
//	    base_url: https://provisioning.sipay.com.tr/ccpayment
//	    app_id: ...
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/paycli/paycli/internal/family"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
)

// EnvPrefix is the prefix of every environment variable paycli reads.
const EnvPrefix = "PAYCLI"

// DefaultProfile is the profile used when nothing names one.
const DefaultProfile = "default"

// URLs of the gateway that paycli offers when it asks for a base URL and
// no gateway is named: Sipay's (the family table, internal/family).
const (
	TestBaseURL = "https://provisioning.sipay.com.tr/ccpayment"
	LiveBaseURL = "https://app.sipay.com.tr/ccpayment"
)

// Key describes one setting of a profile.
type Key struct {
	Name    string
	Flag    string // name of the flag that sets it, if any command has one
	Default string
	Secret  bool
	// URL: a URL whose user name and password are masked when shown.
	URL  bool
	Help string
	// SecretOf names the secret this key says where to find (app_secret
	// for app_secret_cmd); Ref is how: RefCommand, RefFile or RefKeyring.
	SecretOf string
	Ref      Ref
}

// Ref is how a key points at a secret kept elsewhere.
type Ref string

const (
	// RefCommand: a command prints the secret (app_secret_cmd).
	RefCommand Ref = "cmd"
	// RefFile: a file holds it (app_secret_file, PAYCLI_APP_SECRET_FILE).
	RefFile Ref = "file"
	// RefKeyring: the system keyring holds it, under the account named
	// (app_secret_keyring; written by paycli, not by hand).
	RefKeyring Ref = "keyring"
)

// Env is the name of the environment variable for the key.
func (k Key) Env() string { return EnvPrefix + "_" + strings.ToUpper(k.Name) }

// Keys lists every setting a profile can hold, in display order.
// Languages are the values of lang: the languages the gateway writes its
// texts in.
var Languages = []string{"tr", "en"}

var Keys = []Key{
	{Name: "gateway", Help: "gateway by name (sipay, qnbpay, …): picks base_url"},
	{Name: "base_url", URL: true, Help: "gateway base URL, ending in /ccpayment (or test, live)"},
	{Name: "app_id", Secret: true, Help: "application id for the token call"},
	{Name: "app_secret", Secret: true, Help: "application secret; also the hash_key password"},
	{Name: "merchant_key", Secret: true, Help: "merchant key sent with payments"},
	{Name: "default_currency", Flag: "currency", Help: "currency used when --currency is not given: an ISO 4217 code (the gateway takes TRY, USD, EUR)"},
	{Name: "lang", Flag: "lang", Default: "en", Help: "language of the gateway's texts (tr or en)"},
	{Name: "timeout", Flag: "timeout", Default: "30s", Help: "time limit for one command (e.g. 30s, 2m)"},
	{Name: "output", Flag: "output", Default: "table", Help: "output format: table, json, csv or tsv"},
	{Name: "ca_cert", Help: "PEM file with extra CA certificates to trust"},
	{Name: "journal", URL: true, Help: "the desk's shared journal, a postgres:// URL (unset: a file on this machine)"},
	{Name: "journal_password", Secret: true, Help: "password of the journal URL's role (else ~/.pgpass or PGPASSWORD)"},
	{Name: "app_secret_cmd", SecretOf: "app_secret", Ref: RefCommand, Help: "command that prints app_secret"},
	{Name: "app_secret_file", SecretOf: "app_secret", Ref: RefFile, Help: "file that holds app_secret"},
	{Name: "app_secret_keyring", SecretOf: "app_secret", Ref: RefKeyring, Help: "keyring entry holding app_secret (set by paycli)"},
	{Name: "merchant_key_cmd", SecretOf: "merchant_key", Ref: RefCommand, Help: "command that prints merchant_key"},
	{Name: "merchant_key_file", SecretOf: "merchant_key", Ref: RefFile, Help: "file that holds merchant_key"},
	{Name: "merchant_key_keyring", SecretOf: "merchant_key", Ref: RefKeyring, Help: "keyring entry holding merchant_key (set by paycli)"},
	{Name: "journal_password_cmd", SecretOf: "journal_password", Ref: RefCommand, Help: "command that prints journal_password"},
	{Name: "journal_password_file", SecretOf: "journal_password", Ref: RefFile, Help: "file that holds journal_password"},
	{Name: "journal_password_keyring", SecretOf: "journal_password", Ref: RefKeyring, Help: "keyring entry holding journal_password (set by paycli)"},
}

// SecretNames are the secrets that can live in the keyring, come from a
// command or a file.
var SecretNames = []string{"app_secret", "merchant_key", "journal_password"}

// RefKey names the key that points at secret by ref: app_secret_cmd.
func RefKey(secret string, ref Ref) string { return secret + "_" + string(ref) }

// LookupKey finds a key by name.
func LookupKey(name string) (Key, bool) {
	i := slices.IndexFunc(Keys, func(k Key) bool { return k.Name == name })
	if i < 0 {
		return Key{}, false
	}
	return Keys[i], true
}

// KeyNames returns the names of all keys, in display order.
func KeyNames() []string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	return names
}

// OutputFormats are the values accepted by --output.
var OutputFormats = []string{"table", "json", "csv", "tsv"}

// Source says where a resolved value came from.
type Source string

const (
	SourceFlag    Source = "flag"
	SourceEnv     Source = "env"
	SourceFile    Source = "file"
	SourceDefault Source = "default"
	// SourceKeyring: the system keyring (a *_keyring reference).
	SourceKeyring Source = "keyring"
	// SourceCommand: a command's output (*_cmd, PAYCLI_*_CMD).
	SourceCommand Source = "command"
	// SourceFileRef: a file's content (*_file, PAYCLI_*_FILE).
	SourceFileRef Source = "file-ref"
	// SourceSandbox: --sandbox (or PAYCLI_SANDBOX) put the sandbox's value
	// in place of the profile's.
	SourceSandbox Source = "sandbox"
	// SourceGateway: base_url unset, taken from the family table by the
	// gateway key (its test URL).
	SourceGateway Source = "gateway"
	// SourceBaseURL: gateway unset, named by base_url, one of the family
	// table's URLs.
	SourceBaseURL Source = "base_url"
)

// Config is the resolved configuration of one profile.
type Config struct {
	// Path is the config file consulted (it may not exist).
	Path string
	// Profile is the selected profile's name.
	Profile string
	// ProfileNamed is true when --profile or PAYCLI_PROFILE chose the
	// profile, rather than the file's default_profile or "default": advice
	// that names a command then names the profile too.
	ProfileNamed bool
	// FileMode is the config file's permission bits (0 when it does not
	// exist); the caller warns when LooseModeWarning says so, since this
	// package never prints.
	FileMode fs.FileMode

	BaseURL string
	// Gateway names the family member the base URL is (family.Members):
	// the gateway key, else the member whose test or live URL base_url
	// is; empty for any other URL (the sandbox, a proxy). Environment is
	// which of its URLs: test or live, empty when base_url is another URL.
	Gateway     string
	Environment family.Environment

	AppID           string
	AppSecret       string
	MerchantKey     string
	DefaultCurrency string
	Lang            string
	Timeout         time.Duration
	Output          string
	CACert          string
	// Journal is the desk's shared journal (a postgres:// URL), or empty
	// for the journal file on this machine.
	Journal string

	// GatewayID names the gateway for what paycli keeps per gateway (the
	// token cache) when the base URL cannot: the --sandbox emulator started
	// in-process listens on a new port each run, yet it is the same
	// gateway. Empty means the base URL names it; see GatewayName.
	GatewayID string

	// JournalPassword is the password of the journal URL's role, when it
	// is not in the URL: from the keyring, a command or a file. Empty
	// leaves it to the URL, ~/.pgpass or PGPASSWORD (pgx reads both).
	JournalPassword string

	// Warnings are what the caller shows on stderr once: a secret both in
	// the file and elsewhere, plain-text secrets to migrate.
	Warnings []string
	// PlainSecrets are the secrets read from plain text in the file, for
	// the hint to move them into the keyring.
	PlainSecrets []string

	values  map[string]string
	sources map[string]Source
	// pending are the secrets still to fetch (LoadSecrets): where from.
	pending map[string]secretRef
	// fetched are the secrets LoadSecrets fetched: where from.
	fetched map[string]secretRef
	// file is the config file as read, for the lines of its values.
	file *File
}

// GatewayName names the gateway the configuration points at, stable from
// run to run: GatewayID when set, else the base URL.
func (c *Config) GatewayName() string {
	if c.GatewayID != "" {
		return c.GatewayID
	}
	return c.BaseURL
}

// Overlaid returns a copy of c under the profile named profile, with the
// keys of values set to them from source (the sandbox's base URL and
// credentials under --sandbox); c is left as it is.
func (c *Config) Overlaid(profile string, source Source, values map[string]string) (*Config, error) {
	out := *c
	out.Profile = profile
	out.values, out.sources = maps.Clone(c.values), maps.Clone(c.sources)
	out.pending = maps.Clone(c.pending)
	for k := range values {
		delete(out.pending, k)
	}
	if out.values == nil {
		out.values, out.sources = map[string]string{}, map[string]Source{}
	}
	for k, v := range values {
		out.values[k], out.sources[k] = v, source
	}
	if err := out.fill(); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns a key's resolved value as text.
func (c *Config) Get(name string) string { return c.values[name] }

// Source returns where a key's value came from.
func (c *Config) Source(name string) Source { return c.sources[name] }

// LoadOptions tell Load where to look.
type LoadOptions struct {
	// Flags are the parsed flags of the running command; a key whose flag
	// is present and was set takes the flag's value.
	Flags *pflag.FlagSet
	// LookupEnv reads the environment; os.LookupEnv when nil.
	LookupEnv func(string) (string, bool)
}

func (o LoadOptions) env(name string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (o LoadOptions) flag(name string) (*pflag.Flag, bool) {
	if o.Flags == nil || name == "" {
		return nil, false
	}
	f := o.Flags.Lookup(name)
	return f, f != nil && f.Changed
}

// Path returns the config file path: the --config flag, then
// $PAYCLI_CONFIG, then <user config dir>/paycli/config.yaml.
func Path(opts LoadOptions) (string, error) {
	if f, ok := opts.flag("config"); ok && f.Value.String() != "" {
		return f.Value.String(), nil
	}
	if p, ok := opts.env(EnvPrefix + "_CONFIG"); ok && p != "" {
		return p, nil
	}
	dir, err := userDir(opts, "XDG_CONFIG_HOME", ".config", os.UserConfigDir)
	if err != nil {
		return "", fmt.Errorf("cannot find a config folder: %w; set PAYCLI_CONFIG", err)
	}
	return filepath.Join(dir, "paycli", "config.yaml"), nil
}

// userDir resolves a per-user folder through the injected environment on
// Unix-like systems, where the XDG variables and HOME decide it, and falls
// back to the standard library elsewhere.
func userDir(opts LoadOptions, xdg, homeSub string, std func() (string, error)) (string, error) {
	if v, ok := opts.env(xdg); ok && filepath.IsAbs(v) {
		return v, nil
	}
	if opts.LookupEnv != nil {
		if home, ok := opts.env("HOME"); ok && home != "" {
			return filepath.Join(home, homeSub), nil
		}
	}
	return std()
}

// SelectProfile names the profile to use: the --profile flag, then
// $PAYCLI_PROFILE, then the file's default_profile, then "default".
// explicit is false only in the last case, where a missing profile is not
// an error (a fresh machine has no file at all).
func SelectProfile(opts LoadOptions, file *File) (name string, explicit bool) {
	if f, ok := opts.flag("profile"); ok {
		return f.Value.String(), true
	}
	if p, ok := opts.env(EnvPrefix + "_PROFILE"); ok && p != "" {
		return p, true
	}
	if file != nil && file.DefaultProfile != "" {
		return file.DefaultProfile, true
	}
	return DefaultProfile, false
}

// fill copies the resolved text values into the typed fields, validating
// those with a fixed form.
func (c *Config) fill() error {
	c.AppID = c.values["app_id"]
	c.AppSecret = c.values["app_secret"]
	c.MerchantKey = c.values["merchant_key"]
	c.DefaultCurrency = strings.ToUpper(c.values["default_currency"])
	c.Lang = c.values["lang"]
	c.CACert = c.values["ca_cert"]
	c.Journal = c.values["journal"]
	c.Output = c.values["output"]
	c.JournalPassword = c.values["journal_password"]
	for _, name := range KeyNames() {
		if err := ValidateValue(name, c.values[name]); err != nil {
			return c.invalid(name, err)
		}
	}
	c.resolveGateway()
	d, _ := ParseTimeout(c.values["timeout"])
	c.Timeout = d
	return nil
}

// UnknownGatewayError is a gateway name that is not in the family table.
type UnknownGatewayError struct{ Name string }

func (e *UnknownGatewayError) Error() string {
	return fmt.Sprintf("%q is not a gateway paycli knows: use one of %s", Shorten(e.Name), strings.Join(family.Names(), ", "))
}

// ResolveBaseURL is the base URL that a profile's gateway and base_url
// make: base_url when it is a URL (it overrides the gateway's); the named
// gateway's test or live URL when base_url is test or live, its test URL
// when base_url is unset (a name alone never reaches live money); Sipay's
// for test or live without a gateway; "" when neither is set.
func ResolveBaseURL(gateway, baseURL string) (string, error) {
	baseURL = strings.TrimSpace(baseURL)
	env, isEnv := family.ParseEnvironment(baseURL)
	if !isEnv && baseURL != "" {
		return strings.TrimRight(baseURL, "/"), nil
	}
	name := family.DefaultName
	if strings.TrimSpace(gateway) != "" {
		name = gateway
	} else if baseURL == "" {
		return "", nil
	}
	m, ok := family.Lookup(name)
	if !ok {
		return "", &UnknownGatewayError{Name: gateway}
	}
	return m.BaseURL(env), nil
}

// resolveGateway sets BaseURL, Gateway and Environment from the gateway
// and base_url keys (ResolveBaseURL); values must be valid. base_url then
// holds the URL, so that config get and list show where calls go. A base
// URL the sandbox put in place is the sandbox, whatever the profile names.
func (c *Config) resolveGateway() {
	c.Gateway, c.Environment = "", ""
	raw := strings.TrimSpace(c.values["base_url"])
	if c.sources["base_url"] == SourceSandbox {
		c.BaseURL = strings.TrimRight(raw, "/")
		if c.sources["gateway"] == SourceBaseURL {
			c.values["gateway"], c.sources["gateway"] = "", SourceDefault
		}
		return
	}
	resolved, _ := ResolveBaseURL(c.values["gateway"], raw)
	if raw == "" && resolved != "" {
		c.sources["base_url"] = SourceGateway
	}
	c.values["base_url"], c.BaseURL = resolved, resolved
	byURL, env, known := family.ByURL(resolved)
	if named, ok := family.Lookup(c.values["gateway"]); ok {
		c.values["gateway"], c.Gateway = named.Name, named.Name
		if known && byURL.Name == named.Name {
			c.Environment = env
		}
		return
	}
	if known {
		c.values["gateway"], c.sources["gateway"] = byURL.Name, SourceBaseURL
		c.Gateway, c.Environment = byURL.Name, env
	}
}

// GatewayTitle names the gateway for a person: "QNBpay (test)", "Sipay
// (live)", "QNBpay" behind a base_url of its own; "" when the base URL is
// no member's (the sandbox, a proxy).
func (c *Config) GatewayTitle() string {
	m, ok := family.Lookup(c.Gateway)
	if !ok {
		return ""
	}
	if c.Environment == "" {
		return m.Title
	}
	return m.Title + " (" + string(c.Environment) + ")"
}

func (c *Config) invalid(name string, err error) error {
	k, _ := LookupKey(name)
	var where string
	switch c.sources[name] {
	case SourceFlag:
		where = "--" + k.Flag
	case SourceEnv:
		where = k.Env()
	case SourceFile:
		where = fmt.Sprintf("%s (profile %q)", c.Path, c.Profile)
		if line := c.file.lineOf(c.Profile, name); line > 0 {
			where = fmt.Sprintf("%s, line %d (profile %q)", c.Path, line, c.Profile)
		}
	default:
		where = "default"
	}
	return &ValueError{Key: name, Where: where, Err: err}
}

// ValueError is a setting whose value has the wrong form.
type ValueError struct {
	Key, Where string
	Err        error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("invalid %s from %s: %v", e.Key, e.Where, e.Err)
}
func (e *ValueError) Unwrap() error { return e.Err }

// ProfileError is a profile that the config file does not hold.
type ProfileError struct {
	Profile, Path string
	Known         []string
}

func (e *ProfileError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("profile %q not found: %s has no profiles", e.Profile, e.Path)
	}
	return fmt.Sprintf("profile %q not found in %s (profiles: %s)", e.Profile, e.Path, strings.Join(e.Known, ", "))
}

// ValidateProfileName accepts names made of letters, digits, '-', '_' and '.'.
func ValidateProfileName(name string) error {
	if name == "" {
		return errors.New("profile name is empty")
	}
	for _, r := range name {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("profile name %q may hold only letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// ValidateValue checks a key's value has the form the key needs. Empty
// values are always accepted: they mean "not set".
func ValidateValue(name, value string) error {
	if value == "" {
		return nil
	}
	if !utf8.ValidString(value) {
		return errors.New("the value is not valid UTF-8 text")
	}
	switch name {
	case "gateway":
		if _, ok := family.Lookup(value); !ok {
			return &UnknownGatewayError{Name: value}
		}
	case "base_url":
		if _, ok := family.ParseEnvironment(value); ok {
			return nil
		}
		u, err := url.Parse(value)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("%q is not an http(s) URL", Shorten(redact.URL(value)))
		}
	case "journal":
		return checkJournalURL(value)
	case "timeout":
		if _, err := ParseTimeout(value); err != nil {
			return err
		}
	case "output":
		if !slices.Contains(OutputFormats, value) {
			return fmt.Errorf("%q is not one of %s", Shorten(value), strings.Join(OutputFormats, ", "))
		}
	case "default_currency":
		// Refused when set, not when a command later needs it.
		if _, err := money.CheckCode(value); err != nil {
			return err
		}
	case "lang":
		if !slices.Contains(Languages, strings.ToLower(value)) {
			return fmt.Errorf("%q is not a language the gateway answers in: use %s", Shorten(value), strings.Join(Languages, " or "))
		}
	}
	return nil
}

// ParseTimeout reads a duration such as "30s" or "2m"; a bare number is
// seconds. It must be positive.
func ParseTimeout(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		s = strconv.Itoa(n) + "s"
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 30s, 2m)", Shorten(s))
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be positive", Shorten(s))
	}
	return d, nil
}

// Mask hides a secret but its first and last four characters; secrets of
// twelve characters or fewer are hidden whole.
func Mask(s string) string { return redact.Secret(s) }

// shortenLimit is how much of a value an error message quotes: enough to
// recognise it, never a pasted file.
const shortenLimit = 80

// Shorten cuts a value the user gave to at most 80 characters, marking the
// cut with "…" and the full length, so that an error quoting a huge value
// stays one readable line.
func Shorten(s string) string {
	r := []rune(s)
	if len(r) <= shortenLimit {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", string(r[:shortenLimit]), len(r))
}
