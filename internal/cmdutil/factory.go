// Package cmdutil holds what every command shares: the Factory of lazily
// built dependencies, error categories and flag helpers.
package cmdutil

import (
	"errors"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/buildinfo"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/render"
)

// Factory builds the dependencies commands need. Each field is a function
// so that a command only pays for what it uses; internal/app fills them in
// (app.NewFactory, the one place they are built) and tests replace them.
type Factory struct {
	// Build reports the binary's version.
	Build     func() buildinfo.Info
	IOStreams *iostreams.IOStreams
	// LookupEnv reads the environment (os.LookupEnv outside tests).
	LookupEnv func(string) (string, bool)
	// Now is the clock.
	Now func() time.Time
	// BindCommand tells the factory which command runs, once cobra has
	// parsed its flags: the root's pre-run hook calls it. Config and what
	// is built from it read that command's flags; asked before, they are
	// an error, never a configuration without the flags.
	BindCommand func(cmd *cobra.Command)
	// Config resolves the configuration for the running command (flags
	// included), with its secrets fetched from where they are kept (the
	// keyring, a command, a file). It is computed once per run.
	Config func() (*config.Config, error)
	// Settings is Config without fetching the secrets: for commands that
	// only show where they are (config list) or read other keys. nil
	// means Config.
	Settings func() (*config.Config, error)
	// Keyring is the system keyring, where config init, set and
	// migrate-secrets store secrets; nothing is asked of it until then.
	Keyring *keyring.Store
	// Gateway builds the gateway client from Config alone (NewGatewayClient),
	// once per run: missing credentials or an unusable base URL are usage
	// errors, before anything is sent.
	Gateway func() (*gateway.Client, error)
	// TokenCache is the selected profile's token cache.
	TokenCache func() (*gateway.FileTokenCache, error)
	// JournalPath is where the journal of money-moving attempts lives:
	// <state dir>/paycli/journal.jsonl.
	JournalPath func() (string, error)
	// Journal opens the store of money-moving attempts (the file at
	// JournalPath); each call opens one, which its caller closes.
	Journal func() (journal.Store, error)
	// GatewayIdentity names the gateway account the configuration points
	// at, for the journal (journal.Identity of the base URL and app_id; in
	// sandbox mode, of the sandbox's state folder, whatever port serves it).
	GatewayIdentity func() (string, error)
	// SandboxIdentity names the sandbox as GatewayIdentity does in sandbox
	// mode, whether or not this command runs in it: it tells the journal
	// lines of --sandbox commands from a profile's. nil means none.
	SandboxIdentity func() (string, error)
	// Machine names who runs paycli here and where: the OS user (the
	// login name, else $USER) and the host name, written beside a shared
	// journal's role and on a lead's settle line. nil names no one.
	Machine func() (osUser, host string)
	// MoneyKinds are the kinds of the money operations the app registers,
	// with how check status settles each (read through Kinds).
	MoneyKinds func() journal.Kinds
	// SandboxMode reports whether cmd runs against the sandbox (--sandbox
	// or PAYCLI_SANDBOX); nil means never.
	SandboxMode func(cmd *cobra.Command) (bool, error)

	closersMu sync.Mutex
	closers   []func() error
}

// OutputFormat returns the --output format resolved through the
// configuration (flag > PAYCLI_OUTPUT > file > table).
// Kinds are the money operations' kinds (MoneyKinds); none when the
// factory has no operations (a test's).
func (f *Factory) Kinds() journal.Kinds {
	if f.MoneyKinds == nil {
		return nil
	}
	return f.MoneyKinds()
}

func (f *Factory) OutputFormat() (render.Format, error) {
	settings := f.Settings
	if settings == nil {
		settings = f.Config
	}
	cfg, err := settings()
	if err != nil {
		return "", err
	}
	return render.ParseFormat(cfg.Output)
}

// Palette returns the colours for stdout, obeying the colour decision.
func (f *Factory) Palette() render.Palette {
	return render.Palette{Enabled: f.IOStreams.ColorEnabled()}
}

// AddCloser registers fn to run when the command ends; app.Run calls Close.
// It is for resources a lazily built dependency had to start, such as the
// in-process sandbox behind --sandbox.
func (f *Factory) AddCloser(fn func() error) {
	f.closersMu.Lock()
	defer f.closersMu.Unlock()
	f.closers = append(f.closers, fn)
}

// Close runs the registered closers, last added first, once each, and
// returns their errors joined.
func (f *Factory) Close() error {
	f.closersMu.Lock()
	closers := f.closers
	f.closers = nil
	f.closersMu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	return errors.Join(errs...)
}

// annotationNoGateway marks a command that never calls the gateway
// (NoGateway).
const annotationNoGateway = "paycli_no_gateway"

// NoGateway marks cmd as one that never calls the gateway, only reads the
// configuration (hash, webhook, config): under --sandbox it gets the
// sandbox's credentials without starting an emulator, so that it never
// holds the sandbox's state folder.
func NoGateway(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationNoGateway] = "true"
	return cmd
}

// CallsNoGateway reports whether cmd was marked with NoGateway.
func CallsNoGateway(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[annotationNoGateway] == "true"
}
