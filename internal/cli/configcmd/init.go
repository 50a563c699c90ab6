package configcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
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
}

// NewCmdInit builds `paycli config init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IOStreams, LookupEnv: f.LookupEnv}
	var baseURL, appID, currency, lang string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create or update a profile with the gateway's credentials",
		Long: `Create or update a profile (the selected one: --profile, PAYCLI_PROFILE,
default_profile, else "default") with base_url, app_id, app_secret and
merchant_key.

On a terminal paycli asks for each value, offering the test and live base
URLs and hiding the secrets as you type; values given by flags are not
asked for, and pressing Enter keeps a value the profile already has.

Without a terminal nothing is asked. base_url and app_id come from the
flags (else PAYCLI_BASE_URL, PAYCLI_APP_ID, else the profile's current
values). Secrets are never taken from the command line: they come from
stdin with --app-secret-stdin and --merchant-key-stdin (one line each, in
that order when both are given), else from PAYCLI_APP_SECRET and
PAYCLI_MERCHANT_KEY, else the profile's current values.

When the file names no default_profile, init writes one: the existing
"default" profile if there is one, else the profile just written.`,
		Example: `  paycli config init
  paycli config init --profile live --base-url live
  printf '%s\n%s\n' "$APP_SECRET" "$MERCHANT_KEY" |
    paycli config init --base-url test --app-id 12345 --app-secret-stdin --merchant-key-stdin`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Flags = map[string]string{}
			given := map[string]string{"base-url": baseURL, "app-id": appID, "default-currency": currency, "lang": lang}
			for flag, value := range given {
				if !cmd.Flags().Changed(flag) {
					continue
				}
				key := strings.ReplaceAll(flag, "-", "_")
				if key == "base_url" {
					value = expandBaseURL(value)
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
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&baseURL, "base-url", "", `gateway base URL, or "test" or "live" for the known ones`)
	fl.StringVar(&appID, "app-id", "", "application id")
	fl.StringVar(&currency, "default-currency", "", "currency used when a command's --currency is not given, e.g. TRY")
	fl.StringVar(&lang, "lang", "", "language of the gateway's texts: tr or en")
	fl.BoolVar(&opts.AppSecretStdin, "app-secret-stdin", false, "read app_secret from stdin (one line)")
	fl.BoolVar(&opts.MerchantKeyStdin, "merchant-key-stdin", false, "read merchant_key from stdin (one line, after app_secret)")
	return cmd
}

// expandBaseURL turns the shortcuts "test" and "live" (or "1" and "2", the
// numbers the prompt offers) into the gateway's URLs.
func expandBaseURL(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "test":
		return config.TestBaseURL
	case "2", "live":
		return config.LiveBaseURL
	}
	return strings.TrimSpace(s)
}

func initRun(ctx context.Context, opts *InitOptions) error {
	edit, profile, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	current := edit.Before.Profiles[profile]
	values := map[string]string{}
	for k, v := range opts.Flags {
		values[k] = v
	}

	if opts.IO.CanPrompt() && !opts.AppSecretStdin && !opts.MerchantKeyStdin {
		fmt.Fprintf(opts.IO.ErrOut, "Setting up profile %q in %s\n", profile, edit.Path)
		if err := promptValues(ctx, opts.IO, values, current); err != nil {
			return err
		}
	} else if err := collectValues(opts, values, current); err != nil {
		return err
	}

	// What a profile needs for every gateway call.
	var missing []string
	for _, name := range []string{"base_url", "app_id", "app_secret", "merchant_key"} {
		if values[name] == "" && current[name] == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return cmdutil.UsageHint(
			fmt.Errorf("profile %q would lack %s", profile, strings.Join(missing, ", ")),
			"Without a terminal give --base-url and --app-id, and secrets on stdin (--app-secret-stdin, --merchant-key-stdin) or in PAYCLI_APP_SECRET and PAYCLI_MERCHANT_KEY.")
	}

	created, err := edit.AddProfile(profile)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	for _, k := range config.Keys {
		v, ok := values[k.Name]
		if !ok || v == current[k.Name] {
			continue
		}
		if err := edit.Set(profile, k.Name, v); err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
	}
	pinned, err := pinDefaultProfile(edit, profile)
	if err != nil {
		return err
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}

	verb := "Updated"
	if created {
		verb = "Created"
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s profile %q in %s:\n", verb, profile, edit.Path)
	for _, k := range config.Keys {
		v, ok := values[k.Name]
		if !ok {
			v = current[k.Name]
		}
		if v == "" {
			continue
		}
		if k.Secret {
			v = config.Mask(v)
		}
		fmt.Fprintf(opts.IO.ErrOut, "  %-16s %s\n", k.Name, v)
	}
	if pinned != "" {
		fmt.Fprintf(opts.IO.ErrOut, "Default profile is %q.\n", pinned)
	}
	return nil
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
				fmt.Fprintf(ios.ErrOut, "%s is required.\n", name)
				continue
			}
			if err := config.ValidateValue(name, v); err != nil {
				fmt.Fprintf(ios.ErrOut, "Invalid %s: %v\n", name, err)
				continue
			}
			values[name] = v
			return nil
		}
	}
	if _, given := values["base_url"]; !given {
		fmt.Fprintf(ios.ErrOut, "Base URL of the gateway:\n  1) test  %s\n  2) live  %s\n", config.TestBaseURL, config.LiveBaseURL)
	}
	steps := []struct {
		name string
		read func() (string, error)
	}{
		{"base_url", func() (string, error) {
			def := "1"
			if cur := current["base_url"]; cur != "" {
				def = cur
			}
			v, err := ios.Prompt(ctx, "Choose 1 or 2, or type a URL", def)
			return expandBaseURL(v), err
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
	return nil
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
					v = expandBaseURL(v)
				}
				values[name] = v
			}
		}
	}
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
