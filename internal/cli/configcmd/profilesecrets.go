package configcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/spf13/cobra"
)

// MigrateOptions are the inputs of `paycli config migrate-secrets`.
type MigrateOptions struct {
	IO      *iostreams.IOStreams
	Where   config.LoadOptions
	Writer  config.AtomicWriter
	Keyring *keyring.Store
	// AllProfiles moves the secrets of every profile, not only the
	// selected one.
	AllProfiles bool
}

// NewCmdMigrateSecrets builds `paycli config migrate-secrets`.
func NewCmdMigrateSecrets(f *cmdutil.Factory, runF func(context.Context, *MigrateOptions) error) *cobra.Command {
	opts := &MigrateOptions{IO: f.IOStreams, Keyring: f.Keyring}
	cmd := &cobra.Command{
		Use:   "migrate-secrets",
		Short: "Move a profile's plain-text secrets into the system keyring",
		Long: `Move the secrets a profile holds in plain text in the config file
(app_secret, merchant_key, journal_password) into the system keyring, and
remove them from the file, which keeps only a reference. A plain-text
secret that the file also gives another way (the keyring, a command, a
file), and that paycli therefore does not use, is removed.

Where no keyring can be reached nothing changes.`,
		Example: `  paycli config migrate-secrets
  paycli config migrate-secrets --all-profiles`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, migrateRun)
		},
	}
	cmd.Flags().BoolVar(&opts.AllProfiles, "all-profiles", false, "move the secrets of every profile in the file")
	return cmd
}

func migrateRun(ctx context.Context, opts *MigrateOptions) error {
	edit, selected, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	profiles := []string{selected}
	if opts.AllProfiles {
		profiles = edit.Before.ProfileNames()
	} else if _, ok := edit.Before.Profiles[selected]; !ok {
		return &config.ProfileError{Profile: selected, Path: edit.Path, Known: edit.Before.ProfileNames()}
	}
	var report []string
	for _, profile := range profiles {
		values := edit.Before.Profiles[profile]
		move, drop := map[string]string{}, []string{}
		for _, name := range config.SecretNames {
			if values[name] == "" {
				continue
			}
			if elsewhere(values, name) {
				drop = append(drop, name)
			} else {
				move[name] = values[name]
			}
		}
		for _, name := range drop {
			if _, err := edit.Unset(profile, name); err != nil {
				return err
			}
			report = append(report, fmt.Sprintf("Removed the unused plain-text %s of profile %q (the file gives it another way).", name, profile))
		}
		if len(move) == 0 {
			continue
		}
		storage := secretStorage{IO: opts.IO, Keyring: opts.Keyring, NoPlainText: true}
		kept, err := storage.store(ctx, edit, profile, values, move)
		if err != nil {
			return err
		}
		report = append(report, fmt.Sprintf("Moved %s of profile %q into %s.", strings.Join(sortedNames(move), " and "), profile, kept))
	}
	if len(report) == 0 {
		opts.IO.Notef("No plain-text secrets in %s; nothing changed.", edit.Path)
		return nil
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}
	for _, line := range report {
		opts.IO.Notef("%s", line)
	}
	return nil
}

// elsewhere reports whether the profile gives secret name by a reference
// (command, file, keyring), which paycli uses rather than plain text.
func elsewhere(values map[string]string, name string) bool {
	for _, r := range []config.Ref{config.RefCommand, config.RefFile, config.RefKeyring} {
		if values[config.RefKey(name, r)] != "" {
			return true
		}
	}
	return false
}

func sortedNames(m map[string]string) []string {
	var names []string
	for _, name := range config.SecretNames {
		if _, ok := m[name]; ok {
			names = append(names, name)
		}
	}
	return names
}

// keyringRefs returns the account a profile's secrets live under in the
// keyring and which secrets, from the file's references.
func keyringRefs(values map[string]string) (acct string, names []string) {
	for _, name := range config.SecretNames {
		if a := values[config.RefKey(name, config.RefKeyring)]; a != "" {
			acct, names = a, append(names, name)
		}
	}
	return acct, names
}

// RenameOptions are the inputs of `paycli config rename`.
type RenameOptions struct {
	IO       *iostreams.IOStreams
	Where    config.LoadOptions
	Writer   config.AtomicWriter
	Keyring  *keyring.Store
	From, To string
}

// NewCmdRename builds `paycli config rename OLD NEW`.
func NewCmdRename(f *cmdutil.Factory, runF func(context.Context, *RenameOptions) error) *cobra.Command {
	opts := &RenameOptions{IO: f.IOStreams, Keyring: f.Keyring}
	return &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Rename a profile, its keyring entry with it",
		Long: `Rename a profile in the config file, keeping its settings and comments
(and default_profile, when it named the profile). Secrets the profile keeps
in the system keyring move to an entry under the new name; where the
keyring cannot be reached nothing changes.`,
		Args: cmdutil.ExactArgs(2, "OLD and NEW"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, name := range args {
				if err := config.ValidateProfileName(name); err != nil {
					return cmdutil.UsageErrorf("%v", err)
				}
			}
			opts.From, opts.To = args[0], args[1]
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, renameRun)
		},
	}
}

func renameRun(_ context.Context, opts *RenameOptions) error {
	edit, _, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	values, ok := edit.Before.Profiles[opts.From]
	if !ok {
		return cmdutil.UsageHint(&config.ProfileError{Profile: opts.From, Path: edit.Path, Known: edit.Before.ProfileNames()}, "")
	}
	if err := edit.RenameProfile(opts.From, opts.To); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	oldAcct, names := keyringRefs(values)
	newAcct := ""
	if oldAcct != "" {
		if opts.Keyring == nil {
			return errNoKeyringFor("move", opts.From, errors.New("none is set up for this command"))
		}
		entry, err := opts.Keyring.Get(oldAcct)
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return errNoKeyringFor("move", opts.From, err)
		}
		newAcct = keyringAccount(opts.To, values["base_url"], values["app_id"])
		if err == nil {
			if err := opts.Keyring.Set(newAcct, entry); err != nil {
				return errNoKeyringFor("move", opts.From, err)
			}
		}
		for _, name := range names {
			if err := edit.Set(opts.To, config.RefKey(name, config.RefKeyring), newAcct); err != nil {
				return err
			}
		}
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}
	opts.IO.Notef("Renamed profile %q to %q.", opts.From, opts.To)
	if oldAcct != "" && oldAcct != newAcct {
		if err := opts.Keyring.Delete(oldAcct); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			opts.IO.Warnf("the old keyring entry %s/%s is still there: %v", keyring.Service, oldAcct, err)
		} else {
			opts.IO.Notef("Its secrets moved in the system keyring to %s/%s.", keyring.Service, newAcct)
		}
	}
	return nil
}

func errNoKeyringFor(verb, profile string, err error) error {
	return cmdutil.UsageHint(fmt.Errorf("cannot %s the secrets of profile %q in the system keyring: %w", verb, profile, err),
		"Nothing was changed. Unlock the keyring (log in to the desktop session) and try again.")
}

// DeleteOptions are the inputs of `paycli config delete`.
type DeleteOptions struct {
	IO      *iostreams.IOStreams
	Where   config.LoadOptions
	Writer  config.AtomicWriter
	Keyring *keyring.Store
	Profile string
	Yes     bool
}

// NewCmdDelete builds `paycli config delete PROFILE`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{IO: f.IOStreams, Keyring: f.Keyring}
	cmd := &cobra.Command{
		Use:   "delete PROFILE",
		Short: "Delete a profile and its secrets in the keyring",
		Long: `Delete a profile from the config file, with its comments, and the entry
holding its secrets in the system keyring. A default_profile naming it is
removed too. On a terminal delete asks first; without one it needs --yes.
Where the keyring cannot be reached nothing changes.`,
		Args: cmdutil.ExactArgs(1, "PROFILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Profile = args[0]
			opts.Where = where(f, cmd)
			return cmdutil.Run(cmd, opts, runF, deleteRun)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

func deleteRun(ctx context.Context, opts *DeleteOptions) error {
	edit, _, err := openEdit(opts.Where)
	if err != nil {
		return err
	}
	defer edit.Close()
	values, ok := edit.Before.Profiles[opts.Profile]
	if !ok {
		return cmdutil.UsageHint(&config.ProfileError{Profile: opts.Profile, Path: edit.Path, Known: edit.Before.ProfileNames()}, "")
	}
	acct, _ := keyringRefs(values)
	if acct != "" {
		if opts.Keyring == nil {
			return errNoKeyringFor("remove", opts.Profile, errors.New("none is set up for this command"))
		}
		if err := opts.Keyring.Check(); err != nil {
			return errNoKeyringFor("remove", opts.Profile, err)
		}
	}
	if !opts.Yes {
		if !opts.IO.CanPrompt() {
			return cmdutil.UsageErrorf("deleting profile %q needs --yes without a terminal", opts.Profile)
		}
		ok, err := opts.IO.Confirm(ctx, fmt.Sprintf("Delete profile %q from %s and its secrets from the keyring?", opts.Profile, edit.Path))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.SilentError(cmdutil.KindUsage)
		}
	}
	if acct != "" {
		if err := opts.Keyring.Delete(acct); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return errNoKeyringFor("remove", opts.Profile, err)
		}
	}
	if _, err := edit.DeleteProfile(opts.Profile); err != nil {
		return err
	}
	if err := save(opts.IO, opts.Writer, edit); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Deleted profile %q", opts.Profile)
	if acct != "" {
		fmt.Fprintf(opts.IO.ErrOut, " and its keyring entry %s/%s", keyring.Service, acct)
	}
	fmt.Fprintln(opts.IO.ErrOut, ".")
	if edit.Before.DefaultProfile == opts.Profile {
		opts.IO.Notef("It was the default profile; choose another with 'paycli config use PROFILE'.")
	}
	return nil
}
