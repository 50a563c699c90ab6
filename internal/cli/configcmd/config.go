// Package configcmd implements `paycli config`: creating profiles, reading,
// changing and listing settings, and choosing the default profile.
//
// The commands that change the file work on the raw file (config.OpenEdit)
// rather than on the resolved configuration, so they can create a profile
// that does not exist yet and repair a file whose default_profile names a
// missing one. Every write is atomic and leaves the file with mode 0600.
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
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// NewCmdConfig builds `paycli config` and its subcommands.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Create profiles and read or change settings",
		Long: `Manage paycli's configuration file and its profiles.

Settings resolve, for every key, as: flag > environment (PAYCLI_<KEY>) >
config file > default. The profile is chosen by --profile, then
PAYCLI_PROFILE, then the file's default_profile, then "default".

Keys:
` + keyTable() + `
Secrets (app_id, app_secret, merchant_key, journal_password) are shown
masked, first and last four characters, unless --show-secrets is given.
app_secret, merchant_key and journal_password are kept in the system
keyring by config init and config set (the file holds a reference), or
fetched when needed: from a command (app_secret_cmd, run without a shell)
or a file (app_secret_file, PAYCLI_APP_SECRET_FILE). The file is written
atomically with mode 0600 in a folder with mode 0700.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		NewCmdInit(f, nil),
		cmdutil.SetExits(NewCmdSet(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
		cmdutil.NoGateway(NewCmdGet(f, nil)),
		cmdutil.SetExits(NewCmdUnset(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
		cmdutil.NoGateway(NewCmdList(f, nil)),
		NewCmdPath(f, nil),
		NewCmdProfiles(f, nil),
		cmdutil.SetExits(NewCmdUse(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
		cmdutil.SetExits(NewCmdMigrateSecrets(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
		cmdutil.SetExits(NewCmdRename(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
		cmdutil.SetExits(NewCmdDelete(f, nil), cmdutil.Exits{Kinds: cmdutil.ExitsLocal}),
	)
	return cmd
}

func keyTable() string {
	var b strings.Builder
	for _, k := range config.Keys {
		fmt.Fprintf(&b, "  %-17s %-24s %s\n", k.Name, k.Env(), k.Help)
	}
	return b.String()
}

// where returns what locates the config file and profile for a command:
// its parsed flags (--config, --profile) and the environment.
func where(f *cmdutil.Factory, cmd *cobra.Command) config.LoadOptions {
	return config.LoadOptions{Flags: cmd.Flags(), LookupEnv: f.LookupEnv}
}

// completeKeys offers key names for the first argument.
func completeKeys(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	// The keyring references are paycli's to write, not the user's.
	var names []string
	for _, k := range config.Keys {
		if k.Ref != config.RefKeyring {
			names = append(names, k.Name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeSetArgs completes `config set KEY VALUE`: the key, then the
// values the key takes where there is a short list of them (output formats,
// languages, the family's gateways, the words test and live and Sipay's
// two base URLs), files for ca_cert, and nothing
// for free text.
func completeSetArgs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return completeKeys(cmd, args, toComplete)
	}
	if len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	switch args[0] {
	case "output":
		return config.OutputFormats, cobra.ShellCompDirectiveNoFileComp
	case "lang":
		return []string{"tr\tTurkish", "en\tEnglish"}, cobra.ShellCompDirectiveNoFileComp
	case "base_url":
		return []string{"test\tthe gateway's test URL", "live\tthe gateway's live URL",
			config.TestBaseURL + "\ttest gateway", config.LiveBaseURL + "\tlive gateway"}, cobra.ShellCompDirectiveNoFileComp
	case "gateway":
		return completeGateways(cmd, args, toComplete)
	case "ca_cert":
		return nil, cobra.ShellCompDirectiveDefault
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// checkKey turns an unknown key name into a usage error naming the known keys.
func checkKey(name string) (config.Key, error) {
	k, ok := config.LookupKey(name)
	if !ok {
		return config.Key{}, cmdutil.UsageHint(&config.UnknownKeyError{Key: name}, "Run 'paycli config --help' for what each key means.")
	}
	return k, nil
}

// openEdit opens the selected config file for change and names the profile
// to change. A broken file is a usage error with advice.
func openEdit(w config.LoadOptions) (*config.Edit, string, error) {
	path, err := config.Path(w)
	if err != nil {
		return nil, "", err
	}
	edit, err := config.OpenEdit(path)
	if err != nil {
		return nil, "", brokenFile(err)
	}
	profile, _ := config.SelectProfile(w, edit.Before)
	if err := config.ValidateProfileName(profile); err != nil {
		return nil, "", cmdutil.UsageErrorf("%v", err)
	}
	return edit, profile, nil
}

// readFile reads the selected config file, warning on stderr when its mode
// is loose.
func readFile(ios *iostreams.IOStreams, w config.LoadOptions) (*config.File, error) {
	path, err := config.Path(w)
	if err != nil {
		return nil, err
	}
	file, err := config.ReadFile(path)
	if err != nil {
		return nil, brokenFile(err)
	}
	if msg := config.LooseModeWarning(path, file.Mode); msg != "" {
		ios.Notef("%s", msg)
	}
	return file, nil
}

// brokenFile adds advice to a config file that cannot be parsed.
func brokenFile(err error) error {
	var fe *config.FileError
	if errors.As(err, &fe) {
		return cmdutil.UsageHint(err, "Fix that line by hand, or move the file aside and run 'paycli config init'.")
	}
	return err
}

// save writes the edit and reports on stderr when the write tightened a
// file that others could read.
func save(ios *iostreams.IOStreams, writer config.AtomicWriter, edit *config.Edit) error {
	if err := edit.Save(writer); err != nil {
		return err
	}
	if edit.Before.Exists && config.IsLooseMode(edit.Before.Mode) {
		ios.Notef("Tightened %s to mode 0600 (it was %04o).", edit.Path, edit.Before.Mode.Perm())
	}
	return nil
}

// pinDefaultProfile writes default_profile when the file has none, so that
// adding a profile never changes which profile paycli uses by default: the
// implicit "default" profile is pinned when it exists, otherwise the
// profile just written becomes the default. It returns the name it wrote,
// or "".
func pinDefaultProfile(edit *config.Edit, written string) (string, error) {
	if edit.Before.DefaultProfile != "" {
		return "", nil
	}
	name := written
	if _, ok := edit.Before.Profiles[config.DefaultProfile]; ok {
		name = config.DefaultProfile
	}
	return name, edit.SetDefaultProfile(name)
}

// pinAndSave pins the default profile (pinDefaultProfile) and saves the
// edit: the last step of every command that may add a profile. It returns
// the name pinned, or "".
func pinAndSave(ios *iostreams.IOStreams, w config.AtomicWriter, edit *config.Edit, profile string) (string, error) {
	pinned, err := pinDefaultProfile(edit, profile)
	if err != nil {
		return "", err
	}
	return pinned, save(ios, w, edit)
}

// formatOf resolves --output for commands that must work even when the
// configuration does not resolve (a default_profile naming a missing
// profile, a bad value elsewhere): the flag, then PAYCLI_OUTPUT, then the
// selected profile's output in the file, else table. It reads the file
// quietly; the command reports on the file itself.
func formatOf(f *cmdutil.Factory, cmd *cobra.Command) func() (render.Format, error) {
	return func() (render.Format, error) {
		if fl := cmd.Flags().Lookup("output"); fl != nil && fl.Changed {
			return render.ParseFormat(fl.Value.String())
		}
		if v, ok := f.LookupEnv(config.EnvPrefix + "_OUTPUT"); ok && v != "" {
			format, err := render.ParseFormat(v)
			if err != nil {
				return "", cmdutil.UsageErrorf("invalid %s_OUTPUT: %v", config.EnvPrefix, err)
			}
			return format, nil
		}
		w := where(f, cmd)
		if path, err := config.Path(w); err == nil {
			if file, err := config.ReadFile(path); err == nil {
				profile, _ := config.SelectProfile(w, file)
				if format, err := render.ParseFormat(file.Profiles[profile]["output"]); err == nil {
					return format, nil
				}
			}
		}
		return render.Table, nil
	}
}

// readValue reads a value given as "-": one line from stdin, its line
// ending dropped. On a terminal it asks, hiding secrets.
func readValue(ctx context.Context, ios *iostreams.IOStreams, k config.Key) (string, error) {
	if ios.CanPrompt() {
		if k.Secret {
			return ios.PromptSecret(ctx, k.Name+" (hidden)")
		}
		return ios.Prompt(ctx, k.Name, "")
	}
	line, err := ios.ReadLine()
	if errors.Is(err, io.EOF) || (err == nil && line == "") {
		return "", cmdutil.UsageErrorf("no value for %s on stdin", k.Name)
	}
	return line, err
}
