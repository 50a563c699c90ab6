package hashcmd

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// configField is the layout field whose value comes from the
// configuration and never from a flag.
const configField = "merchant_key"

// fieldAliases returns the shorter spellings of field flags that people
// write, each mapped to its field.
func fieldAliases() map[string]string {
	return map[string]string{"currency": "currency_code", "invoice": "invoice_id"}
}

// GenerateOptions are the inputs of `paycli hash generate`.
type GenerateOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	// Random supplies the iv and salt (crypto/rand outside tests).
	Random io.Reader

	// Layout is the layout's name; empty when Plaintext is set.
	Layout string
	// Values holds the field flags given, keyed by field name.
	Values map[string]string
	// Plaintext is a raw plaintext given with --plaintext.
	Plaintext    string
	HasPlaintext bool
	// IV and Salt, when set, replace the random ones (to reproduce a value).
	IV, Salt string

	// Format is the format asked for on the command line (-o, or JSON for
	// --jq); every format but JSON prints the hash_key alone.
	Format render.Format
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
}

// shownFlag is the flag help shows for a layout field: its short name
// (--currency, --invoice) when it has one, else flagName.
func shownFlag(field string) string {
	for alias, f := range fieldAliases() {
		if f == field {
			return alias
		}
	}
	return flagName(field)
}

// flagName is the flag for a layout field: "currency_code" → "currency-code".
func flagName(field string) string { return strings.ReplaceAll(field, "_", "-") }

// fieldFlags lists every field that some layout has and that a flag may
// set, in the order of the layouts table, with the layouts using each.
func fieldFlags() (fields []string, usedBy map[string][]string) {
	usedBy = map[string][]string{}
	for _, l := range hashkey.Layouts {
		for _, field := range l.Fields {
			if field == configField {
				continue
			}
			if _, seen := usedBy[field]; !seen {
				fields = append(fields, field)
			}
			usedBy[field] = append(usedBy[field], l.Name)
		}
	}
	return fields, usedBy
}

// NewCmdGenerate builds `paycli hash generate`.
func NewCmdGenerate(f *cmdutil.Factory, runF func(context.Context, *GenerateOptions) error) *cobra.Command {
	opts := &GenerateOptions{IO: f.IOStreams, Config: f.Config, Random: rand.Reader}
	fields, usedBy := fieldFlags()
	aliases := fieldAliases()
	values := make(map[string]*string, len(fields)+len(aliases))

	cmd := &cobra.Command{
		Use:   "generate --layout NAME --FIELD VALUE... | --plaintext TEXT",
		Short: "Make a hash_key for a layout's fields or for a raw plaintext",
		Long: `Make a hash_key with the configured app_secret and a random iv and salt.

With --layout, give one flag per field of the layout ('paycli hash layouts'
lists them); merchant_key is taken from the configuration. With --plaintext,
the text is encrypted as given (fields joined by "|").

The hash_key alone is printed on stdout, followed by a newline. With -o json
or --jq on the command line the output is the JSON object below ("layout"
only with --layout); a configured output format (PAYCLI_OUTPUT, the config
file) does not change this command:
  {"hash_key": "...", "layout": "..."}`,
		Example: `  # a card payment's hash_key
  paycli hash generate --layout payment --total 100.00 --installment 1 --currency TRY --invoice INV-1

  # check status
  paycli hash generate --layout checkstatus --invoice INV-1

  # any plaintext
  paycli hash generate --plaintext '100.00|1|TRY|my_merchant_key|INV-1'

  # as JSON
  paycli hash generate --layout checkstatus --invoice INV-1 -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			given := map[string]string{} // field → flag that set it
			opts.Values = map[string]string{}
			for name, v := range values {
				if !cmd.Flags().Changed(name) {
					continue
				}
				field := strings.ReplaceAll(name, "-", "_")
				if f, ok := aliases[name]; ok {
					field = f
				}
				if prev, dup := given[field]; dup {
					a, b := min(prev, name), max(prev, name)
					return cmdutil.UsageErrorf("--%s and --%s both set %s: give one", a, b, field)
				}
				if strings.Contains(*v, "|") {
					return cmdutil.UsageErrorf("--%s may not contain '|': it separates the fields", name)
				}
				given[field] = name
				opts.Values[field] = *v
			}
			opts.HasPlaintext = cmd.Flags().Changed("plaintext")
			if err := checkGenerateFlags(opts, given, usedBy); err != nil {
				return err
			}
			if (opts.IV == "") != (opts.Salt == "") {
				return cmdutil.UsageErrorf("--iv and --salt go together: give both or neither")
			}
			format, err := opts.JSON.Format(cmdutil.FlagOutputFormat(cmd))()
			if err != nil {
				return err
			}
			opts.Format = format
			return cmdutil.Run(cmd, opts, runF, generateRun)
		},
	}

	fl := cmd.Flags()
	fl.StringVar(&opts.Layout, "layout", "", "layout of the fields: "+strings.Join(hashkey.LayoutNames(), ", "))
	fl.StringVar(&opts.Plaintext, "plaintext", "", "encrypt this text as it is, instead of a layout's fields")
	// A field with a short name (--currency, --invoice: what every other
	// command calls it) is shown by that name only; its field-named flag
	// (--currency-code) still works, hidden, so that help names it once.
	shortName := map[string]string{}
	for alias, field := range aliases {
		shortName[field] = alias
	}
	for _, field := range fields {
		name, help := flagName(field), fmt.Sprintf("%s (layouts: %s)", field, strings.Join(usedBy[field], ", "))
		if alias, ok := shortName[field]; ok {
			values[alias] = fl.String(alias, "", help)
			_ = cmd.RegisterFlagCompletionFunc(alias, fieldCompletion(field))
			values[name] = fl.String(name, "", "same as --"+alias)
			_ = cmd.RegisterFlagCompletionFunc(name, fieldCompletion(field))
			_ = fl.MarkHidden(name)
			continue
		}
		values[name] = fl.String(name, "", help)
		_ = cmd.RegisterFlagCompletionFunc(name, fieldCompletion(field))
	}
	_ = cmd.RegisterFlagCompletionFunc("plaintext", cobra.NoFileCompletions)
	fl.StringVar(&opts.IV, "iv", "", "use this iv (16 lowercase hex characters) instead of a random one, with --salt")
	fl.StringVar(&opts.Salt, "salt", "", "use this salt (4 lowercase hex characters) instead of a random one, with --iv")
	_ = fl.MarkHidden("iv")
	_ = fl.MarkHidden("salt")
	_ = cmd.RegisterFlagCompletionFunc("layout", layoutCompletion)
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	// The app_secret may live in the keyring or come from a command (exit 3).
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsLocal, cmdutil.KindAuth), Notes: map[cmdutil.Kind]string{cmdutil.KindAuth: "the app_secret could not be fetched from where the profile keeps it"}})
	return cmd
}

// generated is the JSON form of `paycli hash generate`. The schema is
// stable: fields may be added, never renamed or removed. It holds no
// plaintext: a layout's plaintext holds the merchant_key.
type generated struct {
	HashKey string `json:"hash_key"`
	Layout  string `json:"layout,omitempty"`
}

// fieldCompletion completes a field flag's value: ISO 4217 codes for
// currency_code, nothing (and no file names) for the others.
func fieldCompletion(field string) cobra.CompletionFunc {
	if field == "currency_code" {
		return cmdutil.CompleteCurrency
	}
	return cobra.NoFileCompletions
}

// checkGenerateFlags checks that the flags name exactly one plaintext:
// --plaintext alone, or --layout with every field it needs and no other.
func checkGenerateFlags(opts *GenerateOptions, given map[string]string, usedBy map[string][]string) error {
	if opts.HasPlaintext {
		if opts.Layout != "" || len(given) > 0 {
			return cmdutil.UsageErrorf("--plaintext is the whole plaintext: give it without --layout and field flags")
		}
		return nil
	}
	if opts.Layout == "" {
		return cmdutil.UsageHint(fmt.Errorf("missing --layout (or --plaintext)"),
			"Layouts: "+strings.Join(hashkey.LayoutNames(), ", ")+" ('paycli hash layouts' shows their fields).")
	}
	l, err := lookupLayout(opts.Layout)
	if err != nil {
		return err
	}
	// Report flags the layout does not have in a stable order.
	var foreign []string
	for field, name := range given {
		if !slices.Contains(l.Fields, field) {
			foreign = append(foreign, "--"+name)
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		return cmdutil.UsageHint(
			fmt.Errorf("layout %s has no field for %s", l.Name, strings.Join(foreign, ", ")),
			"Its fields: "+strings.Join(l.Fields, "|")+".")
	}
	var missing []string
	for _, field := range l.Fields {
		if _, ok := given[field]; !ok && field != configField {
			missing = append(missing, "--"+shownFlag(field))
		}
	}
	if len(missing) > 0 {
		return cmdutil.UsageHint(
			fmt.Errorf("layout %s needs %s", l.Name, strings.Join(missing, ", ")),
			"Its fields: "+strings.Join(l.Fields, "|")+" (merchant_key comes from the configuration).")
	}
	// --currency is also the flag other commands use for default_currency,
	// and the configuration checks it as such; say so plainly here rather
	// than through a message about default_currency.
	if v, ok := opts.Values["currency_code"]; ok && given["currency_code"] == "currency" && !isCurrencyCode(v) {
		return cmdutil.UsageErrorf("--currency %q is not a three-letter currency code such as TRY; use --currency-code to give any other value", v)
	}
	return nil
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return true
}

func generateRun(ctx context.Context, opts *GenerateOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	secret, err := cmdutil.RequireAppSecret(cfg, "it is the key of every hash_key")
	if err != nil {
		return err
	}
	plaintext := opts.Plaintext
	if !opts.HasPlaintext {
		l, err := lookupLayout(opts.Layout)
		if err != nil {
			return err
		}
		values := make(map[string]string, len(l.Fields))
		for k, v := range opts.Values {
			values[k] = v
		}
		if l.Key == hashkey.KeyMerchantKey {
			// getTransactions' hash_key is made with the merchant_key.
			secret = cfg.MerchantKey
		}
		if slices.Contains(l.Fields, configField) || l.Key == hashkey.KeyMerchantKey {
			if cfg.MerchantKey == "" {
				return cmdutil.UsageHint(
					fmt.Errorf("layout %s needs merchant_key, and none is configured for profile %q", l.Name, cfg.Profile),
					"Set it with 'paycli config set merchant_key -' (reads it from stdin) or the PAYCLI_MERCHANT_KEY environment variable.")
			}
			values[configField] = cfg.MerchantKey
		}
		if plaintext, err = l.Plaintext(values); err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
	}
	var hk string
	if opts.IV != "" {
		hk, err = hashkey.GenerateWith(secret, plaintext, opts.IV, opts.Salt)
		if err != nil {
			return cmdutil.UsageErrorf("--iv/--salt: %v", err)
		}
	} else if hk, err = hashkey.GenerateFrom(opts.Random, secret, plaintext); err != nil {
		return err
	}
	if opts.Format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, generated{HashKey: hk, Layout: opts.Layout})
	}
	_, err = fmt.Fprintln(opts.IO.Out, hk)
	return err
}
