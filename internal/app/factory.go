package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/buildinfo"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/sandboxmode"
)

// ErrUnbound is what the configuration and everything built from it
// return before the root's pre-run hook has bound the running command
// (cmdutil.Factory.BindCommand): a configuration read then would lack the
// command line's flags. It is a mistake in paycli, never in its input.
var ErrUnbound = errors.New("internal error: the configuration was asked for before the command line was parsed")

// NewFactory builds paycli's dependencies, each on a line saying what it
// depends on. They are built lazily, when a command first asks, from the
// flags of the command that runs, which the root's pre-run hook binds
// (BindCommand); before that, Config and what depends on it are errors
// (ErrUnbound). It is the clock's home: the one place paycli's code reads
// the wall clock (time.Now); everything else is handed f.Now (archtest).
func NewFactory(ios *iostreams.IOStreams, lookupEnv func(string) (string, bool)) *cmdutil.Factory {
	f := &cmdutil.Factory{
		Build:     buildinfo.Read, // no dependencies
		IOStreams: ios,            // no dependencies
		LookupEnv: lookupEnv,      // no dependencies
		Now:       time.Now,       // no dependencies
		// The money commands' kinds, from the command tree's list: worked
		// out once, though every money command's constructor asks.
		MoneyKinds: sync.OnceValue(func() journal.Kinds { return slices.Clip(moneyKinds()) }), // no dependencies
	}
	line := &commandLine{}
	f.BindCommand = line.bind                                  // Depends on nothing: the root's pre-run hook calls it
	f.SandboxMode = sandboxModeFunc(f)                         // Depends on LookupEnv
	f.Keyring = &keyring.Store{LookupEnv: lookupEnv}           // Depends on LookupEnv (the session bus); touched only when a secret is read or stored
	resolve := resolveFunc(f, line)                            // Depends on the bound command's flags, LookupEnv, SandboxMode, Now, IOStreams (a loose file mode's warning), AddCloser (the in-process sandbox)
	f.Settings = settingsFunc(resolve)                         // Depends on resolve
	f.Config = configFunc(resolve, f.Keyring)                  // Depends on resolve, Keyring (the secrets, read once)
	f.GatewayIdentity = gatewayIdentityFunc(resolve, f.Config) // Depends on resolve, Config (the merchant_key names the account)
	f.SandboxIdentity = sandboxIdentityFunc(f)                 // Depends on LookupEnv
	f.Machine = machineFunc(f)                                 // Depends on LookupEnv
	f.TokenCache = tokenCacheFunc(f)                           // Depends on Config, LookupEnv (the cache folder), Now
	f.Gateway = gatewayFunc(f, line)                           // Depends on Config, LookupEnv (the cache folder), the bound command's --debug, IOStreams, Build, Now
	f.JournalPath = journalPathFunc(f)                         // Depends on LookupEnv (the state folder)
	f.Journal = journalFunc(f, resolve)                        // Depends on resolve (the profile's journal), JournalPath, Now, Build
	return f
}

// commandLine is the command that runs, once cobra has parsed its flags.
type commandLine struct {
	cmd atomic.Pointer[cobra.Command]
}

func (l *commandLine) bind(cmd *cobra.Command) { l.cmd.Store(cmd) }

// running returns the bound command, or ErrUnbound.
func (l *commandLine) running() (*cobra.Command, error) {
	cmd := l.cmd.Load()
	if cmd == nil {
		return nil, ErrUnbound
	}
	return cmd, nil
}

func sandboxModeFunc(f *cmdutil.Factory) func(*cobra.Command) (bool, error) {
	return func(cmd *cobra.Command) (bool, error) { return sandboxmode.Enabled(cmd, f.LookupEnv) }
}

// resolved is the configuration of one run, and the state folder of the
// sandbox it was pointed at under --sandbox ("" otherwise).
type resolved struct {
	cfg          *config.Config
	sandboxState string
}

// resolveFunc resolves the configuration once per run, from the bound
// command's flags (flag > environment > file > default), then, under
// --sandbox, points it at the emulator. Asked before the command is
// bound it returns ErrUnbound and remembers nothing, so that an early
// call can never stand in for the configuration the flags choose.
func resolveFunc(f *cmdutil.Factory, line *commandLine) func() (*resolved, error) {
	once := sync.OnceValues(func() (*resolved, error) {
		cmd, err := line.running()
		if err != nil {
			return nil, err
		}
		return resolve(f, cmd)
	})
	return func() (*resolved, error) {
		if _, err := line.running(); err != nil {
			return nil, err
		}
		return once()
	}
}

func resolve(f *cmdutil.Factory, cmd *cobra.Command) (*resolved, error) {
	cfg, err := config.Load(config.LoadOptions{Flags: cmd.Flags(), LookupEnv: f.LookupEnv})
	if err != nil {
		return nil, err
	}
	if w := config.LooseModeWarning(cfg.Path, cfg.FileMode); w != "" {
		f.IOStreams.Notef("%s", w)
	}
	for _, w := range cfg.Warnings {
		f.IOStreams.Notef("%s", w)
	}
	// Plain-text secrets are read as before; a person at a terminal is
	// told once per run how to move them, a script's stderr is left alone.
	if len(cfg.PlainSecrets) > 0 && f.IOStreams.IsStderrTTY() {
		is, them := "is", "it"
		if len(cfg.PlainSecrets) > 1 {
			is, them = "are", "them"
		}
		f.IOStreams.Notef("hint: %s %s in plain text in %s; move %s into the system keyring: paycli config migrate-secrets",
			strings.Join(cfg.PlainSecrets, " and "), is, cfg.Path, them)
	}
	// --sandbox / PAYCLI_SANDBOX=1: the same commands, pointed at the emulator.
	on, err := f.SandboxMode(cmd)
	if err != nil {
		return nil, err
	}
	if !on {
		return &resolved{cfg: cfg}, nil
	}
	url, state, err := sandboxmode.Target(cmd, f.LookupEnv)
	if err != nil {
		return nil, err
	}
	if state == "" {
		if state, err = sandboxmode.DefaultStateDir(f.LookupEnv); err != nil {
			return nil, err
		}
	}
	overlay := sandboxmode.OverlayOptions{LookupEnv: f.LookupEnv, Now: f.Now, AddCloser: f.AddCloser, StateDir: state, URL: url}
	if cmdutil.CallsNoGateway(cmd) {
		cfg, err = sandboxmode.Credentials(context.Background(), overlay, cfg)
	} else {
		cfg, err = sandboxmode.Overlay(context.Background(), overlay, cfg)
	}
	if err != nil {
		return nil, err
	}
	if url != "" {
		// A sandbox named by its URL is that URL to the journal.
		state = url
	}
	return &resolved{cfg: cfg, sandboxState: state}, nil
}

func settingsFunc(resolve func() (*resolved, error)) func() (*config.Config, error) {
	return func() (*config.Config, error) {
		r, err := resolve()
		if err != nil {
			return nil, err
		}
		return r.cfg, nil
	}
}

// configFunc is the configuration with its secrets fetched, once per run:
// the keyring is read at most once (a profile's secrets are one entry),
// each *_cmd run once. A secret that cannot be had is a credential error
// (exit 3) naming the key and where it was looked for.
func configFunc(resolve func() (*resolved, error), store *keyring.Store) func() (*config.Config, error) {
	var (
		mu     sync.Mutex
		loaded bool
		failed error
	)
	return func() (*config.Config, error) {
		r, err := resolve()
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if !loaded {
			loaded = true
			// Under --sandbox the journal is the file: its password is not needed.
			opts := config.SecretOptions{Keyring: store, NoJournal: r.sandboxState != ""}
			if err := r.cfg.LoadSecrets(context.Background(), opts); err != nil {
				failed = credentialError(err)
			}
		}
		if failed != nil {
			return nil, failed
		}
		return r.cfg, nil
	}
}

// credentialError gives a secret that could not be fetched its exit code
// (3) and what to do.
func credentialError(err error) error {
	var ce *config.CredentialError
	if !errors.As(err, &ce) {
		return err
	}
	env := strings.ToUpper(config.EnvPrefix + "_" + ce.Secret)
	hint := fmt.Sprintf("Fix the source named above, or give the secret another way for this run: %s or %s_FILE.", env, env)
	var unavailable *keyring.UnavailableError
	if errors.As(err, &unavailable) {
		hint = fmt.Sprintf("Unlock the keyring (log in to the desktop session), or give the secret another way: %s or %s_FILE.", env, env)
	}
	return cmdutil.WithKind(cmdutil.KindAuth, err, hint)
}

func gatewayIdentityFunc(resolve func() (*resolved, error), withSecrets func() (*config.Config, error)) func() (string, error) {
	return func() (string, error) {
		r, err := resolve()
		if err != nil {
			return "", err
		}
		if r.sandboxState != "" {
			// The in-process sandbox listens on a new port each run; its
			// memory is the state folder.
			return sandboxmode.Identity(r.sandboxState), nil
		}
		// The merchant_key names the merchant's account, whatever app_id
		// the desk has now: a secret, read with the others.
		cfg, err := withSecrets()
		if err != nil {
			return "", err
		}
		return journal.AccountOf(cfg.BaseURL, cfg.AppID, cfg.MerchantKey), nil
	}
}

func sandboxIdentityFunc(f *cmdutil.Factory) func() (string, error) {
	return func() (string, error) {
		dir, err := sandboxmode.DefaultStateDir(f.LookupEnv)
		if err != nil {
			return "", err
		}
		return sandboxmode.Identity(dir), nil
	}
}

func cacheDir(f *cmdutil.Factory) (string, error) {
	return config.CacheDir(config.LoadOptions{LookupEnv: f.LookupEnv})
}

// configAndCacheDir is the run's configuration and the cache folder: what
// the token cache, alone or in the gateway client, is built from.
func configAndCacheDir(f *cmdutil.Factory) (*config.Config, string, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, "", err
	}
	dir, err := cacheDir(f)
	if err != nil {
		return nil, "", err
	}
	return cfg, dir, nil
}

func tokenCacheFunc(f *cmdutil.Factory) func() (*gateway.FileTokenCache, error) {
	return func() (*gateway.FileTokenCache, error) {
		cfg, dir, err := configAndCacheDir(f)
		if err != nil {
			return nil, err
		}
		return cmdutil.NewTokenCache(cfg, dir, f.Now), nil
	}
}

// gatewayFunc builds the client once per run; an unbound call is an error
// remembered by nothing, as for the configuration.
func gatewayFunc(f *cmdutil.Factory, line *commandLine) func() (*gateway.Client, error) {
	build := sync.OnceValues(func() (*gateway.Client, error) {
		cmd, err := line.running()
		if err != nil {
			return nil, err
		}
		cfg, dir, err := configAndCacheDir(f)
		if err != nil {
			return nil, err
		}
		var debug io.Writer
		if on, _ := cmd.Flags().GetBool("debug"); on {
			debug = f.IOStreams.ErrOut
		}
		return cmdutil.NewGatewayClient(cfg, cmdutil.GatewayOptions{
			CacheDir:  dir,
			UserAgent: "paycli/" + f.Build().Version,
			Debug:     debug,
			Now:       f.Now,
		})
	})
	return func() (*gateway.Client, error) {
		if _, err := line.running(); err != nil {
			return nil, err
		}
		return build()
	}
}

func journalPathFunc(f *cmdutil.Factory) func() (string, error) {
	return func() (string, error) {
		dir, err := config.StateDir(config.LoadOptions{LookupEnv: f.LookupEnv})
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, journal.FileName), nil
	}
}

// journalFunc opens the journal of money-moving attempts: the desk's
// shared journal when the profile names one (journal, PAYCLI_JOURNAL),
// else the file at JournalPath. Under --sandbox it is always the file: a
// sandbox's attempts are nobody else's business. Each call opens a store
// of its own, which its caller closes.
func journalFunc(f *cmdutil.Factory, resolve func() (*resolved, error)) func() (journal.Store, error) {
	warned := &sync.Map{} // the shared journal's warnings told this run
	return func() (journal.Store, error) {
		path, err := f.JournalPath()
		if err != nil {
			return nil, err
		}
		r, err := resolve()
		if err != nil {
			return nil, err
		}
		if r.cfg.Journal == "" || r.sandboxState != "" {
			return journal.OpenFile(path, f.Now), nil
		}
		return openSharedJournal(r.cfg, path, f, warned)
	}
}

// openSharedJournal connects to the profile's shared journal, within the
// command's time limit. Its spool (outcomes the database could not take)
// lives beside the journal file, one per database.
func openSharedJournal(cfg *config.Config, journalPath string, f *cmdutil.Factory, warned *sync.Map) (journal.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	user, host := f.Machine()
	s, err := pgjournal.Open(ctx, pgjournal.Options{
		URL:         journalURL(cfg),
		SpoolDir:    filepath.Dir(journalPath),
		Now:         f.Now,
		Warn:        sharedJournalWarn(f, warned),
		OSUser:      user,
		Host:        host,
		PID:         os.Getpid(),
		Application: "paycli/" + f.Build().Version,
	})
	if err != nil {
		return nil, schemaHint(err, cfg.Journal)
	}
	return s, nil
}

// sharedJournalWarn tells the shared journal's warnings (a clock far from
// the database's, spooled lines it refused) on stderr, each once per run
// however many times the journal is opened.
func sharedJournalWarn(f *cmdutil.Factory, warned *sync.Map) func(string) {
	return func(msg string) {
		if _, told := warned.LoadOrStore(msg, true); !told {
			f.IOStreams.Warnf("%s", msg)
		}
	}
}

// journalURL is the journal URL with journal_password put in, when the
// profile keeps the password apart (keyring, command, file) and the URL
// has none. Without either, pgx looks in ~/.pgpass and PGPASSWORD.
func journalURL(cfg *config.Config) string {
	if cfg.JournalPassword == "" {
		return cfg.Journal
	}
	u, err := url.Parse(cfg.Journal)
	if err != nil {
		return cfg.Journal
	}
	if _, has := u.User.Password(); has {
		return cfg.Journal
	}
	name := ""
	if u.User != nil {
		name = u.User.Username()
	}
	u.User = url.UserPassword(name, cfg.JournalPassword)
	return u.String()
}

// schemaHint makes a shared journal whose schema paycli cannot use (none,
// the role not granted, older or newer) the configuration's error it is
// (exit 2), naming the database and who puts it right.
func schemaHint(err error, url string) error {
	var older *pgjournal.OlderSchemaError
	var newer *pgjournal.NewerSchemaError
	at := func() error { return fmt.Errorf("the shared journal at %s: %w", redact.URL(url), err) }
	var login *pgjournal.LoginError
	switch {
	case errors.As(err, &login):
		return cmdutil.WithKind(cmdutil.KindJournalRefused, err, login.Fix())
	case errors.Is(err, pgjournal.ErrNoSchema):
		return cmdutil.UsageHint(at(), "Ask the database's owner to run 'paycli journal init --url URL --grant ROLE' for your role, or check the profile's journal URL.")
	case errors.As(err, &older):
		return cmdutil.UsageHint(at(), "Ask the database's owner to run 'paycli journal init --url URL' with this paycli: it migrates the schema.")
	case errors.As(err, &newer):
		return cmdutil.UsageHint(at(), "Upgrade paycli: an older one must not write to this journal.")
	}
	if pooler := (*pgjournal.PoolerError)(nil); errors.As(err, &pooler) {
		return cmdutil.UsageHint(err, "Ask the desk's admin for a pool in session mode (PgBouncer: pool_mode = session), or use the database's own host and port: see 'Behind a connection pooler' in docs/journal.md. Nothing was sent.")
	}
	return err
}

// machineFunc names who runs paycli on this machine, for context beside
// the database role: the login name (else $USER) and the host name.
func machineFunc(f *cmdutil.Factory) func() (osUser, host string) {
	return func() (string, string) {
		name := ""
		if u, err := user.Current(); err == nil {
			name = u.Username
		} else {
			name, _ = f.LookupEnv("USER")
		}
		host, _ := os.Hostname()
		return name, host
	}
}
