package configcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/family"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/redact"
	"github.com/spf13/cobra"
)

// InitOptions are the inputs of `paycli config init`.
type InitOptions struct {
	IO        *iostreams.IOStreams
	Where     config.LoadOptions
	Writer    config.AtomicWriter
	LookupEnv func(string) (string, bool)

	// Values given by flags, by key name; only keys whose flag was given.
	Flags map[string]string
	// AppSecretStdin and MerchantKeyStdin read those secrets from stdin, one
	// line each, app_secret first when both are set.
	AppSecretStdin   bool
	MerchantKeyStdin bool

	// Verify takes a token with the settings about to be saved; nil skips
	// the check, as NoVerify (--no-verify) does.
	Verify   func(context.Context, *config.Config) error
	NoVerify bool

	// Keyring takes the secrets; nil means none can be reached.
	Keyring *keyring.Store
	// InsecureStorage (--insecure-storage) writes the secrets in the file.
	InsecureStorage bool
}

// NewCmdInit builds `paycli config init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IOStreams, LookupEnv: f.LookupEnv, Verify: tokenCheck(f), Keyring: f.Keyring}
	var baseURL, appID, currency, lang, gatewayName string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create or update a profile with the gateway's credentials",
		Long: `Create or update a profile (the selected one: --profile, PAYCLI_PROFILE,
default_profile, else "default") with base_url, app_id, app_secret and
merchant_key.

On a terminal paycli asks for each value, offering the test and live base
URLs and hiding the secrets as you type; values given by flags are not
asked for, and pressing Enter keeps a value the profile already has.

--gateway names the gateway of the ccpayment family (sipay, qnbpay,
paybull, vepara, halkode, iqmoney, parolapara): the profile keeps its name
and base_url becomes test or live, that gateway's URLs from paycli's table
(test unless --base-url live, or the profile was live). --base-url with a
URL still overrides the gateway's.

Without a terminal nothing is asked. base_url and app_id come from the
flags (else PAYCLI_BASE_URL, PAYCLI_APP_ID, else the profile's current
values). Secrets are never taken from the command line: they come from
stdin with --app-secret-stdin and --merchant-key-stdin (one line each, in
that order when both are given), else from PAYCLI_APP_SECRET and
PAYCLI_MERCHANT_KEY, else the profile's current values.

Before saving, init asks the gateway for a bearer token with the new
base_url, app_id and app_secret, then checks the merchant_key with a call
that only reads (the merchant's active installment counts), and says
whether they worked. When they do not, nothing is saved: on a terminal init
asks whether to save anyway; without one it exits with the check's error
(3 for refused credentials, 4 for an unknown merchant_key or a wrong base
URL, 8 for an unreachable one). --no-verify skips the
check, for a gateway this machine cannot reach. (The --sandbox mode needs
no profile at all.)

app_secret and merchant_key are stored in the system keyring (Secret
Service on Linux, Keychain on macOS, Credential Manager on Windows) under
the profile and its gateway; the file keeps only a reference. Where no
keyring can be reached (a headless server, a container) init says so and
saves nothing; --insecure-storage, or a yes on a terminal, writes them in
the file in plain text instead.

When the file names no default_profile, init writes one: the existing
"default" profile if there is one, else the profile just written. It says
which profile is the default and how to change it.`,
		Example: `  paycli config init
  paycli config init --profile live --base-url live
  paycli config init --profile qnbpay --gateway qnbpay --base-url test
  paycli config init --profile offline --no-verify
  printf '%s\n%s\n' "$APP_SECRET" "$MERCHANT_KEY" |
    paycli config init --base-url test --app-id 12345 --app-secret-stdin --merchant-key-stdin`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Flags = map[string]string{}
			if cmd.Flags().Changed("gateway") {
				name, err := parseGateway(gatewayName)
				if err != nil {
					return err
				}
				opts.Flags["gateway"] = name
			}
			given := map[string]string{"base-url": baseURL, "app-id": appID, "default-currency": currency, "lang": lang}
			for flag, value := range given {
				if !cmd.Flags().Changed(flag) {
					continue
				}
				key := strings.ReplaceAll(flag, "-", "_")
				switch key {
				case "base_url":
					// Expanded by initRun, which knows the profile's gateway.
					value = shortcutWord(value)
				case "default_currency":
					value = strings.ToUpper(value)
				}
				if value == "" {
					return cmdutil.UsageErrorf("--%s is empty", flag)
				}
				if err := config.ValidateValue(key, value); err != nil {
					return cmdutil.UsageErrorf("invalid --%s: %v", flag, err)
				}
				opts.Flags[key] = value
			}
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, initRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&baseURL, "base-url", "", `gateway base URL, or "test" or "live" for the gateway's`)
	addGatewayFlag(cmd, &gatewayName, "gateway of the ccpayment family by name (sipay, qnbpay, …), for its base URLs")
	fl.StringVar(&appID, "app-id", "", "application id")
	fl.StringVar(&currency, "default-currency", "", "currency used when a command's --currency is not given, e.g. TRY")
	fl.StringVar(&lang, "lang", "", "language of the gateway's texts: tr or en")
	fl.BoolVar(&opts.AppSecretStdin, "app-secret-stdin", false, "read app_secret from stdin (one line)")
	fl.BoolVar(&opts.MerchantKeyStdin, "merchant-key-stdin", false, "read merchant_key from stdin (one line, after app_secret)")
	fl.BoolVar(&opts.NoVerify, "no-verify", false, "save without asking the gateway for a token first")
	fl.BoolVar(&opts.InsecureStorage, "insecure-storage", false, insecureStorageHelp)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway, Notes: map[cmdutil.Kind]string{cmdutil.KindAuth: "the gateway refused the credentials; nothing was saved"}})
	return cmd
}

// tokenCheck is InitOptions.Verify for paycli: a token call with the
// given settings, nothing cached, then, when there is a merchant_key, the
// merchant's active installment counts (/api/installments): a read that
// needs the merchant_key and nothing else, changes nothing and is answered
// for every merchant, so that an unknown key (status_code 14) shows now
// (docs/configuration.md). Both run under the settings' timeout (else
// 30s); failures read as they do for every other command.
func tokenCheck(f *cmdutil.Factory) func(context.Context, *config.Config) error {
	return func(ctx context.Context, cfg *config.Config) error {
		userAgent := "paycli"
		if f.Build != nil {
			userAgent += "/" + f.Build().Version
		}
		client, err := cmdutil.NewGatewayClient(cfg, cmdutil.GatewayOptions{UserAgent: userAgent, Now: f.Now})
		if err != nil {
			return err
		}
		timeout := cfg.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if cfg.MerchantKey == "" {
			_, err = client.Token(ctx)
		} else {
			// Takes a token first, as every call does.
			_, err = client.Installments(ctx)
		}
		err = cmdutil.ExplainGatewayError(err, cfg)
		if errors.Is(err, gateway.ErrUnavailable) && cmdutil.HintOf(err) == "" {
			// The base_url about to be saved, not the profile's old one.
			err = cmdutil.WithKind(cmdutil.KindUnavailable, err, cmdutil.UnavailableHint(err, cfg))
		}
		return err
	}
}

// expandBaseURL turns the shortcuts "test" and "live" (or "1" and "2", the
// numbers the prompt offers) into Sipay's URLs; with a gateway named, into
// the words test and live, which the gateway key resolves (so that the
// gateway's own URLs are used, and follow it when it changes).
func expandBaseURL(s, gateway string) string {
	word := shortcutWord(s)
	env, isEnv := family.ParseEnvironment(word)
	switch {
	case !isEnv || gateway != "":
		return word
	case env == family.Live:
		return config.LiveBaseURL
	}
	return config.TestBaseURL
}

// shortcutWord is "test" or "live" for their shortcuts (also "1" and "2"),
// else s trimmed.
func shortcutWord(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "test":
		return "test"
	case "2", "live":
		return "live"
	}
	return strings.TrimSpace(s)
}

// gatewayOf is the gateway the profile will name: the flag's, else the
// profile's own.
func gatewayOf(values, current map[string]string) string {
	if g, ok := values["gateway"]; ok {
		return g
	}
	return current["gateway"]
}

// initRun asks for a profile's settings (or takes them from flags and
// stdin), checks them with the gateway and saves them.
func initRun(ctx context.Context, opts *InitOptions) error {
	profile, values, current, err := gatherProfile(ctx, opts)
	if err != nil {
		return err
	}
	if err := requireCallSettings(profile, values, current); err != nil {
		return err
	}
	if err := verify(ctx, opts, profile, values, current); err != nil {
		return err
	}

	edit, _, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	created, err := edit.AddProfile(profile)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	saved, secrets, err := setProfileValues(edit, profile, values, current, opts.InsecureStorage)
	if err != nil {
		return err
	}
	storage := secretStorage{IO: opts.IO, Keyring: opts.Keyring, Insecure: opts.InsecureStorage}
	kept, err := storage.store(ctx, edit, profile, saved, secrets)
	if err != nil {
		return err
	}
	pinned, err := pinAndSave(opts.IO, opts.Writer, edit, profile)
	if err != nil {
		return err
	}

	printProfile(opts.IO.ErrOut, created, profile, edit.Path, values, current)
	if kept != "" && !strings.HasSuffix(kept, "(plain text)") {
		opts.IO.Notef("Secrets are kept in %s; the file holds only a reference.", kept)
	}
	reportDefault(opts.IO, edit.Before.DefaultProfile, pinned, profile, created)
	return nil
}

// gatherProfile is the profile init writes, the values it is given (by
// flags, then the prompt or stdin and the environment) and the ones it
// holds now (its keyring secrets included).
func gatherProfile(ctx context.Context, opts *InitOptions) (profile string, values, current map[string]string, err error) {
	// The questions and the check can take minutes: the file is read
	// without the lock here and again under it just before saving.
	path, err := config.Path(opts.Where)
	if err != nil {
		return "", nil, nil, err
	}
	before, err := config.ReadFile(path)
	if err != nil {
		return "", nil, nil, brokenFile(err)
	}
	profile, _ = config.SelectProfile(opts.Where, before)
	if err := config.ValidateProfileName(profile); err != nil {
		return "", nil, nil, cmdutil.UsageErrorf("%v", err)
	}
	current = withKeyringSecrets(opts.Keyring, before.Profiles[profile])
	values = map[string]string{}
	for k, v := range opts.Flags {
		values[k] = v
	}
	if v, given := values["base_url"]; given {
		values["base_url"] = expandBaseURL(v, gatewayOf(values, current))
	}

	if opts.IO.CanPrompt() && !opts.AppSecretStdin && !opts.MerchantKeyStdin {
		opts.IO.Notef("Setting up profile %q in %s", profile, path)
		err = promptValues(ctx, opts.IO, values, current)
	} else {
		err = collectValues(opts, values, current)
	}
	if err != nil {
		return "", nil, nil, err
	}
	return profile, values, current, nil
}

// setProfileValues writes the profile's changed settings in the file and
// returns the settings it holds after (saved) and the secrets that
// changed, which the secret storage takes (unless insecure asks for them
// in the file, as plain text).
func setProfileValues(edit *config.Edit, profile string, values, current map[string]string, insecure bool) (saved, secrets map[string]string, err error) {
	fileValues := edit.Before.Profiles[profile]
	secrets = map[string]string{}
	saved = map[string]string{}
	for k, v := range fileValues {
		saved[k] = v
	}
	for _, k := range config.Keys {
		v, ok := values[k.Name]
		if !ok {
			continue
		}
		if config.IsSecretName(k.Name) && !insecure {
			if v != current[k.Name] {
				secrets[k.Name] = v
			}
			continue
		}
		if v == fileValues[k.Name] {
			continue
		}
		saved[k.Name] = v
		if err := edit.Set(profile, k.Name, v); err != nil {
			return nil, nil, cmdutil.UsageErrorf("%v", err)
		}
		if config.IsSecretName(k.Name) {
			// Plain text asked for: a keyring reference would win over it.
			if _, err := edit.Unset(profile, config.RefKey(k.Name, config.RefKeyring)); err != nil {
				return nil, nil, err
			}
		}
	}
	return saved, secrets, nil
}

// withKeyringSecrets is a profile's file values with the secrets its
// keyring entry holds, so that init can keep them (Enter) and check them;
// a keyring that cannot be read leaves them to be asked for again.
func withKeyringSecrets(store *keyring.Store, file map[string]string) map[string]string {
	current := map[string]string{}
	for k, v := range file {
		current[k] = v
	}
	acct := ""
	for _, name := range config.SecretNames {
		if a := file[config.RefKey(name, config.RefKeyring)]; a != "" {
			acct = a
		}
	}
	if acct == "" || store == nil {
		return current
	}
	entry, err := store.Get(acct)
	if err != nil {
		return current
	}
	for _, name := range config.SecretNames {
		if file[config.RefKey(name, config.RefKeyring)] != "" && entry[name] != "" {
			current[name] = entry[name]
		}
	}
	return current
}

// requireCallSettings refuses a profile that would lack a setting every
// gateway call needs.
func requireCallSettings(profile string, values, current map[string]string) error {
	var missing []string
	for _, name := range []string{"base_url", "app_id", "app_secret", "merchant_key"} {
		if values[name] == "" && current[name] == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return cmdutil.UsageHint(
		fmt.Errorf("profile %q would lack %s", profile, strings.Join(missing, ", ")),
		"Without a terminal give --base-url and --app-id, and secrets on stdin (--app-secret-stdin, --merchant-key-stdin) or in PAYCLI_APP_SECRET and PAYCLI_MERCHANT_KEY.")
}

// printProfile tells what the profile now holds, secrets masked.
func printProfile(w io.Writer, created bool, profile, path string, values, current map[string]string) {
	verb := "Updated"
	if created {
		verb = "Created"
	}
	fmt.Fprintf(w, "%s profile %q in %s:\n", verb, profile, path)
	for _, k := range config.Keys {
		v, ok := values[k.Name]
		if !ok {
			v = current[k.Name]
		}
		if v == "" {
			continue
		}
		v, _ = shownValue(k, v, false)
		if _, word := family.ParseEnvironment(v); word && k.Name == "base_url" {
			if url, err := config.ResolveBaseURL(gatewayOf(values, current), v); err == nil {
				v += " (" + url + ")"
			}
		}
		fmt.Fprintf(w, "  %-16s %s\n", k.Name, v)
	}
}

// verify takes a token with the settings the profile is about to get, so
// that a mistyped secret or base URL shows now, not at the first payment.
// When the gateway refuses them nothing is saved, unless the person at the
// terminal asks to save anyway; --no-verify skips the check.
func verify(ctx context.Context, opts *InitOptions, profile string, values, current map[string]string) error {
	if opts.NoVerify || opts.Verify == nil {
		return nil
	}
	value := func(name string) string {
		if v, ok := values[name]; ok {
			return v
		}
		return current[name]
	}
	timeout, err := config.ParseTimeout(value("timeout"))
	if err != nil {
		timeout = 0 // Verify's own limit applies
	}
	baseURL, err := config.ResolveBaseURL(value("gateway"), value("base_url"))
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	cfg := &config.Config{
		Profile: profile, BaseURL: baseURL,
		AppID: value("app_id"), AppSecret: value("app_secret"), MerchantKey: value("merchant_key"),
		CACert: value("ca_cert"), Timeout: timeout,
	}
	shownURL := redact.URL(cfg.BaseURL)
	opts.IO.Notef("Checking the credentials with %s ...", shownURL)
	err = opts.Verify(ctx, cfg)
	if err == nil {
		if cfg.MerchantKey == "" {
			opts.IO.Notef("The gateway issued a token: base_url, app_id and app_secret work (no merchant_key to check).")
		} else {
			opts.IO.Notef("The gateway issued a token and knows the merchant: base_url, app_id, app_secret and merchant_key work.")
		}
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if opts.IO.CanPrompt() {
		msg, hint := err.Error(), cmdutil.HintOf(err)
		opts.IO.Notef("The check failed: %s", msg)
		if hint != "" {
			opts.IO.Notef("%s", hint)
		}
		save, cerr := opts.IO.Confirm(ctx, fmt.Sprintf("Save profile %q anyway?", profile))
		if cerr != nil {
			return cerr
		}
		if save {
			opts.IO.Notef("Saving the settings unchecked.")
			return nil
		}
	}
	return fmt.Errorf("profile %q was not saved (add --no-verify to save it unchecked): %w", profile, err)
}

// reportDefault says which profile is the default after a write, and how
// to change it, so that no profile becomes the default silently. previous
// is the file's default_profile before the write, pinned what the write
// set ("" for nothing), written the profile just written and created
// whether the write created it (a new profile that is not the default is
// worth a word; an old one is not).
func reportDefault(ios *iostreams.IOStreams, previous, pinned, written string, created bool) {
	switch {
	case pinned == written:
		ios.Notef("Default profile is now %q (the config file had no default); choose another with 'paycli config use PROFILE'.", pinned)
	case pinned != "":
		ios.Notef("Default profile is %q, as before; use this one with --profile %s, or make it the default with 'paycli config use %s'.", pinned, written, written)
	case created && previous != "" && previous != written:
		ios.Notef("Default profile is still %q; use this one with --profile %s, or make it the default with 'paycli config use %s'.", previous, written, written)
	}
}

// promptValues asks on the terminal for each required key that no flag
// gave. Enter keeps the profile's current value; a bad value is asked again.
func promptValues(ctx context.Context, ios *iostreams.IOStreams, values, current map[string]string) error {
	ask := func(name string, read func() (string, error)) error {
		if _, given := values[name]; given {
			return nil
		}
		for {
			v, err := read()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return cmdutil.UsageErrorf("no answer for %s", name)
				}
				return err
			}
			if v == "" {
				if current[name] != "" {
					return nil
				}
				ios.Notef("%s is required.", name)
				continue
			}
			if err := config.ValidateValue(name, v); err != nil {
				ios.Notef("Invalid %s: %v", name, err)
				continue
			}
			values[name] = v
			return nil
		}
	}
	gateway := gatewayOf(values, current)
	if _, given := values["base_url"]; !given {
		title, test, live := "the gateway", config.TestBaseURL, config.LiveBaseURL
		if m, ok := family.Lookup(gateway); ok {
			title, test, live = m.Title, m.TestURL, m.LiveURL
		}
		fmt.Fprintf(ios.ErrOut, "Base URL of %s:\n  1) test  %s\n  2) live  %s\n", title, test, live)
	}
	steps := []struct {
		name string
		read func() (string, error)
	}{
		{"base_url", func() (string, error) {
			def := "1"
			if cur := current["base_url"]; cur != "" {
				def = cur
				// A gateway named keeps the environment, not another URL.
				if env, ok := environmentOf(cur); ok && gateway != "" {
					def = map[family.Environment]string{family.Test: "1", family.Live: "2"}[env]
				}
			}
			v, err := ios.Prompt(ctx, "Choose 1 or 2, or type a URL", def)
			return expandBaseURL(v, gateway), err
		}},
		{"app_id", func() (string, error) { return ios.Prompt(ctx, "app_id", current["app_id"]) }},
		{"app_secret", func() (string, error) { return ios.PromptSecret(ctx, secretQuestion("app_secret", current)) }},
		{"merchant_key", func() (string, error) { return ios.PromptSecret(ctx, secretQuestion("merchant_key", current)) }},
	}
	for _, s := range steps {
		if err := ask(s.name, s.read); err != nil {
			return err
		}
	}
	return askCurrency(ctx, ios, values, current)
}

// askCurrency asks for default_currency, the currency commands use when
// --currency is not given. Unlike the credentials it may stay unset.
func askCurrency(ctx context.Context, ios *iostreams.IOStreams, values, current map[string]string) error {
	if _, given := values["default_currency"]; given {
		return nil
	}
	question := "default_currency, used when a command has no --currency (e.g. TRY; Enter for none)"
	if cur := current["default_currency"]; cur != "" {
		question = "default_currency, used when a command has no --currency (Enter keeps it)"
	}
	for {
		v, err := ios.Prompt(ctx, question, current["default_currency"])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		v = strings.ToUpper(v)
		if v == "" || v == strings.ToUpper(current["default_currency"]) {
			return nil
		}
		if err := config.ValidateValue("default_currency", v); err != nil {
			ios.Notef("Invalid default_currency: %v", err)
			continue
		}
		values["default_currency"] = v
		return nil
	}
}

func secretQuestion(name string, current map[string]string) string {
	if cur := current[name]; cur != "" {
		return fmt.Sprintf("%s (hidden; Enter keeps %s)", name, config.Mask(cur))
	}
	return name + " (hidden)"
}

// collectValues fills values without a terminal: non-secrets from flags
// (already in values) or the environment, secrets from stdin or the
// environment. Argv never carries a secret.
func collectValues(opts *InitOptions, values, current map[string]string) error {
	env := func(name string) string {
		if opts.LookupEnv == nil {
			return ""
		}
		k, _ := config.LookupKey(name)
		v, _ := opts.LookupEnv(k.Env())
		return strings.TrimSpace(v)
	}
	for _, name := range []string{"base_url", "app_id"} {
		if _, given := values[name]; !given {
			if v := env(name); v != "" {
				if name == "base_url" {
					v = expandBaseURL(v, gatewayOf(values, current))
				}
				values[name] = v
			}
		}
	}
	followNamedGateway(values, current)
	for _, s := range []struct {
		name      string
		fromStdin bool
	}{{"app_secret", opts.AppSecretStdin}, {"merchant_key", opts.MerchantKeyStdin}} {
		if s.fromStdin {
			line, err := opts.IO.ReadLine()
			if errors.Is(err, io.EOF) || (err == nil && line == "") {
				return cmdutil.UsageErrorf("no %s on stdin (expected one line)", s.name)
			}
			if err != nil {
				return err
			}
			values[s.name] = line
		} else if v := env(s.name); v != "" {
			values[s.name] = v
		}
	}
	for name, v := range values {
		if err := config.ValidateValue(name, v); err != nil {
			k, _ := config.LookupKey(name)
			return cmdutil.UsageErrorf("invalid %s (from flag or %s): %v", name, k.Env(), err)
		}
	}
	return nil
}

// followNamedGateway gives base_url the environment's word when --gateway
// named a gateway and nothing gave base_url: the environment the profile
// was in (its word, or a family URL), else test. A base_url of another
// kind would override the gateway just named.
func followNamedGateway(values, current map[string]string) {
	if _, named := values["gateway"]; !named {
		return
	}
	if _, given := values["base_url"]; given {
		return
	}
	env, ok := environmentOf(current["base_url"])
	if !ok {
		env = family.Test
	}
	values["base_url"] = string(env)
}
