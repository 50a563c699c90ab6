package configcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/family"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/spf13/cobra"
)

// SetOptions are the inputs of `paycli config set`.
type SetOptions struct {
	IO     *iostreams.IOStreams
	Where  config.LoadOptions
	Writer config.AtomicWriter
	// Keyring takes app_secret, merchant_key and journal_password; nil
	// means none can be reached.
	Keyring *keyring.Store
	// InsecureStorage (--insecure-storage) writes those in the file.
	InsecureStorage bool

	Key config.Key
	// Value is the value to store; "-" means read it from stdin.
	Value string
	// Gateway (--gateway) is a family member's name to store as the
	// gateway key in the same write; "" for none.
	Gateway string
}

// NewCmdSet builds `paycli config set KEY VALUE`.
func NewCmdSet(f *cmdutil.Factory, runF func(context.Context, *SetOptions) error) *cobra.Command {
	opts := &SetOptions{IO: f.IOStreams, Keyring: f.Keyring}
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Store a setting in the selected profile",
		Long: `Store a setting in the selected profile, creating the profile if needed.

Give VALUE as - to read it from stdin (one line; on a terminal paycli asks,
hiding secrets). Secrets typed on the command line end up in your shell
history, so use - for app_secret and merchant_key.

app_secret, merchant_key and journal_password go to the system keyring
(Secret Service, Keychain, Credential Manager) under the profile and its
gateway; the file keeps only a reference (app_secret_keyring). Where no
keyring can be reached set says so and saves nothing, unless
--insecure-storage (or a yes on a terminal) lets it write the secret in the
file in plain text. A secret can also stay out of paycli altogether:
app_secret_cmd runs a command that prints it, app_secret_file names a file
that holds it.

The gateway key (or --gateway beside any key) names the gateway of the
ccpayment family; base_url test or live then means that gateway's URLs. A
base_url that is a family URL becomes its word when the gateway is set, so
that the new gateway's URL is used; another URL stays and overrides it.`,
		Example: `  paycli config set base_url https://provisioning.sipay.com.tr/ccpayment
  paycli config set lang tr --profile live
  paycli config set gateway qnbpay
  paycli config set base_url live --gateway qnbpay --profile qnbpay-live
  pass show sipay/app_secret | paycli config set app_secret -
  paycli config set merchant_key_cmd 'vault kv get -field=merchant_key secret/sipay'`,
		Args:              cmdutil.ExactArgs(2, "KEY and VALUE"),
		ValidArgsFunction: completeSetArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := checkKey(args[0])
			if err != nil {
				return err
			}
			if k.Ref == config.RefKeyring {
				return cmdutil.UsageErrorf("%s is written by paycli: store the secret with 'paycli config set %s -'", k.Name, k.SecretOf)
			}
			opts.Key, opts.Value = k, args[1]
			if cmd.Flags().Changed("gateway") {
				name, err := parseGateway(opts.Gateway)
				if err != nil {
					return err
				}
				opts.Gateway = name
			}
			if args[1] != "-" {
				if err := config.ValidateValue(k.Name, args[1]); err != nil {
					return cmdutil.UsageErrorf("invalid %s: %v", k.Name, err)
				}
			}
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, setRun)
		},
	}
	cmd.Flags().BoolVar(&opts.InsecureStorage, "insecure-storage", false, insecureStorageHelp)
	addGatewayFlag(cmd, &opts.Gateway, "also set the gateway key: a gateway of the ccpayment family by name (sipay, qnbpay, …)")
	return cmd
}

func setRun(ctx context.Context, opts *SetOptions) error {
	k, value := opts.Key, opts.Value
	if value == "-" {
		v, err := readValue(ctx, opts.IO, k)
		if err != nil {
			return err
		}
		value = v
	} else if k.Secret {
		opts.IO.Warnf("%s given on the command line stays in your shell history; next time use: paycli config set %s -", k.Name, k.Name)
	}
	if value == "" {
		return cmdutil.UsageHint(fmt.Errorf("empty value for %s", k.Name), fmt.Sprintf("To remove it, run 'paycli config unset %s'.", k.Name))
	}
	if err := config.ValidateValue(k.Name, value); err != nil {
		return cmdutil.UsageErrorf("invalid %s: %v", k.Name, err)
	}
	gateway := opts.Gateway
	if k.Name == "gateway" {
		m, _ := family.Lookup(value)
		value, gateway = m.Name, m.Name
	}

	edit, profile, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	created, err := edit.AddProfile(profile)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	kept := ""
	if config.IsSecretName(k.Name) {
		storage := secretStorage{IO: opts.IO, Keyring: opts.Keyring, Insecure: opts.InsecureStorage}
		where, err := storage.store(ctx, edit, profile, edit.Before.Profiles[profile], map[string]string{k.Name: value})
		if err != nil {
			return err
		}
		if !strings.HasSuffix(where, "(plain text)") {
			kept = ", kept in " + where
		}
	} else if err := edit.Set(profile, k.Name, value); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	if gateway != "" {
		if err := edit.Set(profile, "gateway", gateway); err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
		if k.Name != "base_url" {
			if err := followGateway(opts.IO, edit, profile, gateway); err != nil {
				return err
			}
		}
	}
	pinned, err := pinAndSave(opts.IO, opts.Writer, edit, profile)
	if err != nil {
		return err
	}
	if created {
		opts.IO.Notef("Created profile %q in %s.", profile, edit.Path)
	}
	opts.IO.Notef("Set %s in profile %q%s.", k.Name, profile, kept)
	if gateway != "" && k.Name != "gateway" {
		opts.IO.Notef("Set gateway in profile %q: %s.", profile, gateway)
	}
	reportDefault(opts.IO, edit.Before.DefaultProfile, pinned, profile, created)
	if opts.Where.LookupEnv != nil {
		if v, ok := opts.Where.LookupEnv(k.Env()); ok && v != "" {
			opts.IO.Notef("note: %s is set in the environment and wins over the file.", k.Env())
		}
	}
	return nil
}

// UnsetOptions are the inputs of `paycli config unset`.
type UnsetOptions struct {
	IO     *iostreams.IOStreams
	Where  config.LoadOptions
	Writer config.AtomicWriter
	// Keyring is where the profile's secrets may be; nil means none.
	Keyring *keyring.Store

	Key config.Key
}

// NewCmdUnset builds `paycli config unset KEY`.
func NewCmdUnset(f *cmdutil.Factory, runF func(context.Context, *UnsetOptions) error) *cobra.Command {
	opts := &UnsetOptions{IO: f.IOStreams, Keyring: f.Keyring}
	return &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a setting from the selected profile",
		Long: `Remove a setting from the selected profile, so that its environment variable or default applies.
Unsetting app_secret, merchant_key or journal_password removes it from the
file and from the system keyring.`,
		Args:              cmdutil.ExactArgs(1, "KEY"),
		ValidArgsFunction: completeKeys,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := checkKey(args[0])
			if err != nil {
				return err
			}
			opts.Key = k
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, unsetRun)
		},
	}
}

func unsetRun(_ context.Context, opts *UnsetOptions) error {
	edit, profile, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	if _, ok := edit.Before.Profiles[profile]; !ok {
		return &config.ProfileError{Profile: profile, Path: edit.Path, Known: edit.Before.ProfileNames()}
	}
	removed, err := edit.Unset(profile, opts.Key.Name)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	var acct string
	if config.IsSecretName(opts.Key.Name) {
		ref := config.RefKey(opts.Key.Name, config.RefKeyring)
		acct = edit.Before.Profiles[profile][ref]
		if inKeyring, err := edit.Unset(profile, ref); err != nil {
			return cmdutil.UsageErrorf("%v", err)
		} else if inKeyring {
			removed = true
		}
	}
	if !removed {
		opts.IO.Notef("%s is not set in profile %q; nothing changed.", opts.Key.Name, profile)
		return nil
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}
	opts.IO.Notef("Removed %s from profile %q.", opts.Key.Name, profile)
	if acct != "" {
		storage := secretStorage{IO: opts.IO, Keyring: opts.Keyring}
		if err := storage.forget(acct, []string{opts.Key.Name}); err != nil {
			opts.IO.Warnf("could not remove it from the keyring entry %s/%s: %v", keyring.Service, acct, err)
		}
	}
	return nil
}

// UseOptions are the inputs of `paycli config use`.
type UseOptions struct {
	IO     *iostreams.IOStreams
	Where  config.LoadOptions
	Writer config.AtomicWriter

	Profile string
}

// NewCmdUse builds `paycli config use PROFILE`.
func NewCmdUse(f *cmdutil.Factory, runF func(context.Context, *UseOptions) error) *cobra.Command {
	opts := &UseOptions{IO: f.IOStreams}
	return &cobra.Command{
		Use:   "use PROFILE",
		Short: "Make a profile the default",
		Long:  "Make a profile the default: it is used when neither --profile nor PAYCLI_PROFILE names one.",
		Args:  cmdutil.ExactArgs(1, "PROFILE"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.CompleteProfiles(where(f, cmd))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := config.ValidateProfileName(args[0]); err != nil {
				return cmdutil.UsageErrorf("%v", err)
			}
			opts.Profile = args[0]
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, useRun)
		},
	}
}

func useRun(_ context.Context, opts *UseOptions) error {
	edit, _, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	if _, ok := edit.Before.Profiles[opts.Profile]; !ok {
		return cmdutil.UsageHint(
			&config.ProfileError{Profile: opts.Profile, Path: edit.Path, Known: edit.Before.ProfileNames()},
			fmt.Sprintf("Create it with 'paycli config init --profile %s'.", opts.Profile))
	}
	if err := edit.SetDefaultProfile(opts.Profile); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}
	opts.IO.Notef("Default profile is now %q.", opts.Profile)
	return nil
}
