package configcmd

import (
	"context"
	"fmt"
	"github.com/paycli/paycli/internal/redact"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// GetOptions are the inputs of `paycli config get`.
type GetOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)

	Key         config.Key
	ShowSecrets bool

	// Format is the format asked for on the command line (-o, or JSON for
	// --jq); every format but JSON prints the value alone.
	Format render.Format
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
}

// NewCmdGet builds `paycli config get KEY`.
func NewCmdGet(f *cmdutil.Factory, runF func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "get KEY",
		Short: "Print the value paycli uses for a setting",
		Long: `Print the value paycli uses for a setting, resolved as every command
resolves it (flag > environment > file > default), alone on one line.
An unset key prints an empty line.

Secrets are printed masked unless --show-secrets is given, so that a
secret never reaches a screen, a terminal recording or a log by accident;
so are the user name and password a base_url may hold (shown as xxxxx).

With -o json or --jq on the command line the output is the setting as
'paycli config list' shows it; the output setting itself (PAYCLI_OUTPUT,
the config file) does not change this command:
  {"key": "...", "value": "...", "source": "...", "secret": false}`,
		Example: `  paycli config get base_url
  APP_SECRET=$(paycli config get app_secret --show-secrets)
  paycli config get timeout --jq .source`,
		Args:              cmdutil.ExactArgs(1, "KEY"),
		ValidArgsFunction: completeKeys,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := checkKey(args[0])
			if err != nil {
				return err
			}
			opts.Key = k
			opts.Config = f.Config
			if !config.IsSecretName(k.Name) {
				opts.Config = settingsOf(f)
			}
			format, err := opts.JSON.Format(cmdutil.FlagOutputFormat(cmd))()
			if err != nil {
				return err
			}
			opts.Format = format
			return cmdutil.Run(cmd, opts, runF, getRun)
		},
	}
	cmd.Flags().BoolVar(&opts.ShowSecrets, "show-secrets", false, "print secrets in full")
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

func getRun(ctx context.Context, opts *GetOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return brokenFile(err)
	}
	value, masked := shownValue(opts.Key, cfg.Get(opts.Key.Name), opts.ShowSecrets)
	if masked {
		opts.IO.Notef("%s is masked; add --show-secrets to print it.", opts.Key.Name)
	}
	if opts.Format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, Setting{Key: opts.Key.Name, Value: value, Source: cfg.Source(opts.Key.Name), Secret: opts.Key.Secret})
	}
	_, err = fmt.Fprintln(opts.IO.Out, value)
	return err
}

// ListOptions are the inputs of `paycli config list`.
type ListOptions struct {
	cmdutil.Deps

	ShowSecrets bool
}

// NewCmdList builds `paycli config list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	// IO alone: the run sets Config to the settings without their secrets
	// fetched (settingsOf), and Format from them.
	opts := &ListOptions{Deps: cmdutil.Deps{IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List every setting of the selected profile and where it comes from",
		Long: `List every setting of the selected profile with the value paycli uses and
its source: flag, env, file or default; for a secret kept elsewhere,
keyring, command or file-ref, with where it is in place of its value (list
never reads the keyring nor runs a command). Secrets are masked (first and
last four characters), and the user name and password of a base_url
replaced by xxxxx, unless --show-secrets is given. The keys that say where
a secret is (app_secret_cmd, …) are listed when they are set; gateway when
the profile names one or its base_url is one of the family's (source
base_url).

With -o json the output is:
  {"path": "...", "profile": "...", "settings": [{"key": "...",
   "value": "...", "source": "...", "secret": false}, ...]}`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config = settingsOf(f)
			opts.Format = opts.JSON.Format(func() (render.Format, error) {
				cfg, err := opts.Config()
				if err != nil {
					return "", err
				}
				return render.ParseFormat(cfg.Output)
			})
			return cmdutil.Run(cmd, opts, runF, listRun)
		},
	}
	cmd.Flags().BoolVar(&opts.ShowSecrets, "show-secrets", false, "print secrets in full")
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// Setting is one row of `paycli config list -o json`.
type Setting struct {
	Key    string        `json:"key"`
	Value  string        `json:"value"`
	Source config.Source `json:"source"`
	Secret bool          `json:"secret"`
}

// Listing is the JSON document of `paycli config list -o json`.
type Listing struct {
	Path     string    `json:"path"`
	Profile  string    `json:"profile"`
	Settings []Setting `json:"settings"`
}

func listRun(ctx context.Context, opts *ListOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return brokenFile(err)
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	listing := Listing{Path: cfg.Path, Profile: cfg.Profile, Settings: []Setting{}}
	rows := make([][]string, 0, len(config.Keys))
	for _, k := range config.Keys {
		// The keys that say where a secret is, and the journal's password,
		// only when they matter.
		if (k.SecretOf != "" || k.Name == "journal_password" && cfg.Journal == "") && cfg.Get(k.Name) == "" && cfg.Where(k.Name) == "" {
			continue
		}
		// The gateway when there is one: named, or a family URL's.
		if k.Name == "gateway" && cfg.Get(k.Name) == "" {
			continue
		}
		value, _ := shownValue(k, cfg.Get(k.Name), opts.ShowSecrets)
		if where := cfg.Where(k.Name); where != "" {
			value = where
		}
		s := Setting{Key: k.Name, Value: value, Source: cfg.Source(k.Name), Secret: k.Secret}
		listing.Settings = append(listing.Settings, s)
		rows = append(rows, []string{s.Key, s.Value, string(s.Source)})
	}
	header := []string{"KEY", "VALUE", "SOURCE"}
	if cfg.Source("base_url") == config.SourceSandbox && cfg.BaseURL == "" && format == render.Table {
		opts.IO.Notef("No 'paycli sandbox serve' is running: each --sandbox command starts an emulator of its own, at an address of its own.")
	}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, listing)
	case render.CSV, render.TSV:
		return render.WriteRecords(opts.IO.Out, format, []string{"key", "value", "source"}, rows)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{1}
	return render.WriteTable(opts.IO.Out, table, header, rows)
}

// PathOptions are the inputs of `paycli config path`.
type PathOptions struct {
	IO    *iostreams.IOStreams
	Where config.LoadOptions
	// JournalPath is the journal file's path (Factory.JournalPath); nil
	// leaves it out.
	JournalPath func() (string, error)

	// Format is the format asked for on the command line (-o, or JSON for
	// --jq); every format but JSON prints the path alone.
	Format render.Format
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
}

// NewCmdPath builds `paycli config path`.
func NewCmdPath(f *cmdutil.Factory, runF func(context.Context, *PathOptions) error) *cobra.Command {
	opts := &PathOptions{IO: f.IOStreams, JournalPath: f.JournalPath}
	cmd := &cobra.Command{
		Use:   "path",
		Short: "Print the config file's path, and the journal file's",
		Long: `Print the config file's path: --config, else $PAYCLI_CONFIG, else <user config dir>/paycli/config.yaml. The file need not exist.

On a terminal a second line, on stderr, names the journal file of money
attempts (<state dir>/paycli/journal.jsonl; a profile whose journal setting
names a shared journal uses that instead, docs/journal.md). Piped, stdout
is the config file's path alone, for $(paycli config path).

With -o json or --jq on the command line the output is {"path": "...",
"journal": "..."}; a configured output format (PAYCLI_OUTPUT, the config
file) does not change this command.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Where = where(f, cmd)
			format, err := opts.JSON.Format(cmdutil.FlagOutputFormat(cmd))()
			if err != nil {
				return err
			}
			opts.Format = format
			return cmdutil.Run(cmd, opts, runF, pathRun)
		},
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// ConfigPath is the JSON document of `paycli config path -o json`.
type ConfigPath struct {
	Path string `json:"path"`
	// Journal is the journal file's path.
	Journal string `json:"journal,omitempty"`
}

func pathRun(ctx context.Context, opts *PathOptions) error {
	path, err := config.Path(opts.Where)
	if err != nil {
		return err
	}
	var journalPath string
	if opts.JournalPath != nil {
		if journalPath, err = opts.JournalPath(); err != nil {
			return err
		}
	}
	if opts.Format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, ConfigPath{Path: path, Journal: journalPath})
	}
	if _, err = fmt.Fprintln(opts.IO.Out, path); err != nil {
		return err
	}
	// A person is told where the journal is too; a script's $(...) gets
	// the config file's path alone.
	if journalPath != "" && opts.IO.IsStdoutTTY() {
		fmt.Fprintln(opts.IO.ErrOut, "Journal file: "+journalPath)
	}
	return nil
}

// ProfilesOptions are the inputs of `paycli config profiles`.
type ProfilesOptions struct {
	cmdutil.Deps
	Where config.LoadOptions
}

// NewCmdProfiles builds `paycli config profiles`.
func NewCmdProfiles(f *cmdutil.Factory, runF func(context.Context, *ProfilesOptions) error) *cobra.Command {
	opts := &ProfilesOptions{Deps: cmdutil.Deps{IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List the profiles in the config file, marking the default",
		Long: `List the profiles in the config file with their base URL, marking the
default one (default_profile, or "default" when the file names none).

With -o json the output is:
  [{"name": "...", "default": true, "base_url": "..."}, ...]`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Where = where(f, cmd)
			opts.Format = opts.JSON.Format(formatOf(f, cmd))
			return cmdutil.Run(cmd, opts, runF, profilesRun)
		},
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// ProfileRow is one entry of `paycli config profiles -o json`.
type ProfileRow struct {
	Name    string `json:"name"`
	Default bool   `json:"default"`
	BaseURL string `json:"base_url"`
}

func profilesRun(ctx context.Context, opts *ProfilesOptions) error {
	file, err := readFile(opts.IO, opts.Where)
	if err != nil {
		return err
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	def := file.DefaultProfile
	if def == "" {
		def = config.DefaultProfile
	}
	list := []ProfileRow{}
	rows := [][]string{}
	for _, name := range file.ProfileNames() {
		p := ProfileRow{Name: name, Default: name == def, BaseURL: redact.URL(file.Profiles[name]["base_url"])}
		list = append(list, p)
		mark := ""
		if p.Default {
			mark = "*"
		}
		rows = append(rows, []string{mark, p.Name, p.BaseURL})
	}
	if len(list) == 0 && format == render.Table {
		opts.IO.Notef("No profiles in %s; create one with 'paycli config init'.", file.Path)
		return nil
	}
	if _, ok := file.Profiles[def]; !ok && file.DefaultProfile != "" {
		opts.IO.Warnf("default_profile %q is not in %s; choose one with 'paycli config use PROFILE'.", def, file.Path)
	}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, list)
	case render.CSV, render.TSV:
		records := make([][]string, len(list))
		for i, p := range list {
			records[i] = []string{p.Name, fmt.Sprint(p.Default), p.BaseURL}
		}
		return render.WriteRecords(opts.IO.Out, format, []string{"name", "default", "base_url"}, records)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{2}
	return render.WriteTable(opts.IO.Out, table, []string{"DEFAULT", "PROFILE", "BASE URL"}, rows)
}

// settingsOf is the configuration without its secrets fetched, for what
// only reads other keys or says where the secrets are.
func settingsOf(f *cmdutil.Factory) func() (*config.Config, error) {
	if f.Settings != nil {
		return f.Settings
	}
	return f.Config
}

// shownValue is a setting as config get and list print it: secrets masked,
// and the user name and password a URL may hold masked too, unless
// showSecrets. masked reports whether anything was hidden.
func shownValue(k config.Key, value string, showSecrets bool) (shown string, masked bool) {
	switch {
	case showSecrets || value == "":
		return value, false
	case k.Secret:
		return config.Mask(value), true
	case k.URL:
		shown = redact.URL(value)
		return shown, shown != value
	}
	return value, false
}
