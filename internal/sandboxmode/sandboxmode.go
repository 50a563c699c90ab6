// Package sandboxmode is the global --sandbox mode: any gateway command,
// pointed at the local emulator of internal/sandbox with its credentials.
// It lives one floor below the commands so that the factory can apply it
// without importing a command package, and so that commands which only
// need to know whether the mode is on (through the Factory) do not link
// the emulator.
package sandboxmode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// EnvSandbox turns sandbox mode on, like the --sandbox flag.
const EnvSandbox = "PAYCLI_SANDBOX"

// EnvSandboxURL points --sandbox commands at a running sandbox, like the
// global --sandbox-url flag; EnvSandboxState names the state folder, like
// --sandbox-state.
const (
	EnvSandboxURL   = "PAYCLI_SANDBOX_URL"
	EnvSandboxState = "PAYCLI_SANDBOX_STATE"
)

// Profile is the profile name a configuration carries in sandbox mode, so
// that anything kept per profile (such as cached tokens) stays apart from
// the real gateway's.
const Profile = "sandbox"

// inProcessLockTimeout bounds how long a --sandbox command waits for
// another one using the in-process emulator over the same state folder.
const inProcessLockTimeout = 10 * time.Second

// ShutdownGrace bounds how long a sandbox server waits for in-flight
// requests when it stops.
const ShutdownGrace = 10 * time.Second

// Enabled reports whether cmd runs in sandbox mode: --sandbox given, or
// PAYCLI_SANDBOX set to a true value. The `paycli sandbox` commands manage
// the sandbox themselves and never run in sandbox mode.
func Enabled(cmd *cobra.Command, lookupEnv func(string) (string, bool)) (bool, error) {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "sandbox" && c.HasParent() && !c.Parent().HasParent() {
			return false, nil
		}
	}
	if cmd != nil {
		if fl := cmd.Flag("sandbox"); fl != nil && fl.Changed {
			return strconv.ParseBool(fl.Value.String())
		}
	}
	if lookupEnv == nil {
		return false, nil
	}
	v, ok := lookupEnv(EnvSandbox)
	if !ok || strings.TrimSpace(v) == "" {
		return false, nil
	}
	on, err := cmdutil.ParseBool(v)
	if err != nil {
		return false, cmdutil.UsageErrorf("invalid %s: %v", EnvSandbox, err)
	}
	return on, nil
}

// Target returns the sandbox a command names: the base URL of
// --sandbox-url (else PAYCLI_SANDBOX_URL), normalized to end in the
// gateway's base path, and the state folder of --sandbox-state (else
// PAYCLI_SANDBOX_STATE); each is empty when not named. A flag beats its
// variable.
func Target(cmd *cobra.Command, lookupEnv func(string) (string, bool)) (baseURL, stateDir string, err error) {
	pick := func(flag, env string) (string, string) {
		if cmd != nil {
			if fl := cmd.Flag(flag); fl != nil && fl.Changed {
				return fl.Value.String(), "--" + flag
			}
		}
		if lookupEnv != nil {
			if v, ok := lookupEnv(env); ok {
				return strings.TrimSpace(v), env
			}
		}
		return "", ""
	}
	raw, from := pick("sandbox-url", EnvSandboxURL)
	if raw != "" {
		if baseURL, err = sandbox.NormalizeURL(raw); err != nil {
			return "", "", cmdutil.UsageErrorf("invalid %s: %v; want the sandbox's base URL, e.g. http://127.0.0.1:8787%s", from, err, sandbox.Base)
		}
	}
	stateDir, _ = pick("sandbox-state", EnvSandboxState)
	return baseURL, stateDir, nil
}

// DefaultStateDir is the sandbox's state folder: <state dir>/paycli/sandbox
// (config.StateDir: $XDG_STATE_HOME, else $HOME/.local/state, read through
// the injected environment so tests are hermetic).
func DefaultStateDir(lookupEnv func(string) (string, bool)) (string, error) {
	dir, err := config.StateDir(config.LoadOptions{LookupEnv: lookupEnv})
	if err != nil {
		return "", fmt.Errorf("%w; or pass --state", err)
	}
	return filepath.Join(dir, "sandbox"), nil
}

// Identity is the gateway identity of the sandbox over the state folder
// dir, which the journal lines of sandbox-mode commands carry: the sandbox
// is its state folder, whatever port serves it. It starts with
// journal.SandboxPrefix, so that a line says by itself that it is the
// sandbox's (journal.IsSandboxIdentity): a live summary never counts it,
// and a shared journal refuses it.
func Identity(dir string) string {
	return journal.SandboxPrefix + journal.Identity(gatewayID(dir), sandbox.AppID)
}

// gatewayID names the sandbox over dir for the token cache and the journal.
func gatewayID(dir string) string { return "sandbox:" + dir }

// OverlayOptions is what Overlay needs from the running command.
type OverlayOptions struct {
	LookupEnv func(string) (string, bool)
	Now       func() time.Time
	// AddCloser registers the in-process emulator's shutdown, to run when
	// the command ends.
	AddCloser func(func() error)
	// StateDir is the sandbox's state folder; empty means the default one
	// (DefaultStateDir).
	StateDir string
	// URL, when set, is the base URL of a running sandbox to use
	// (--sandbox-url): nothing is started, and a sandbox that does not
	// answer there is an error.
	URL string
}

// atURL checks that a sandbox answers at opts.URL.
func (opts OverlayOptions) atURL(ctx context.Context) error {
	if sandbox.Probe(ctx, opts.URL) {
		return nil
	}
	return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("no sandbox answers at %s", opts.URL),
		"Start one there ('paycli sandbox serve --addr HOST:PORT'), or fix --sandbox-url / "+EnvSandboxURL+".")
}

// stateDir is the state folder opts name.
func (opts OverlayOptions) stateDir() (string, error) {
	if opts.StateDir != "" {
		return opts.StateDir, nil
	}
	return DefaultStateDir(opts.LookupEnv)
}

// Overlay returns cfg pointed at the sandbox: its base URL and credentials,
// and the profile name "sandbox". The sandbox is the running `paycli sandbox
// serve` of the default state folder if its address file answers;
// otherwise an emulator is started in this process, on an ephemeral
// loopback port over the same state folder, and stopped by the closer it
// registers. Concurrent invocations wait for each other on the state
// folder's file lock, up to a limit.
func Overlay(ctx context.Context, opts OverlayOptions, cfg *config.Config) (*config.Config, error) {
	if opts.URL != "" {
		if err := opts.atURL(ctx); err != nil {
			return nil, err
		}
		return overlaid(cfg, opts.URL, opts.URL)
	}
	dir, err := opts.stateDir()
	if err != nil {
		return nil, err
	}
	baseURL := sandbox.ReadAddress(dir)
	if baseURL == "" || !sandbox.Probe(ctx, baseURL) {
		baseURL, err = startInProcess(opts, dir)
		if err != nil {
			return nil, err
		}
	}
	return overlaid(cfg, dir, baseURL)
}

// Credentials returns cfg with the sandbox's credentials and profile name,
// for a command that never calls the gateway (webhook listen and verify,
// hash, config list and get): it starts no emulator, so it never holds the
// sandbox's state folder and a 'paycli sandbox serve' can start beside it.
// Its base URL is that of the running serve of the state folder, or empty
// when none answers (a gateway command would start one for itself).
func Credentials(ctx context.Context, opts OverlayOptions, cfg *config.Config) (*config.Config, error) {
	if opts.URL != "" {
		return overlaid(cfg, opts.URL, opts.URL)
	}
	dir, err := opts.stateDir()
	if err != nil {
		return nil, err
	}
	baseURL := sandbox.ReadAddress(dir)
	if baseURL != "" && !sandbox.Probe(ctx, baseURL) {
		baseURL = ""
	}
	return overlaid(cfg, dir, baseURL)
}

// overlaid is cfg with the sandbox's values, from config.SourceSandbox;
// dir names the sandbox (its state folder, or the URL given).
func overlaid(cfg *config.Config, dir, baseURL string) (*config.Config, error) {
	out, err := cfg.Overlaid(Profile, config.SourceSandbox, map[string]string{
		"base_url": baseURL, "app_id": sandbox.AppID, "app_secret": sandbox.AppSecret, "merchant_key": sandbox.MerchantKey,
	})
	if err != nil {
		return nil, err
	}
	// The sandbox is its state folder, whatever port serves it: tokens
	// cached by one run stay good for the next (they are signed with a
	// fixed key).
	out.GatewayID = gatewayID(dir)
	return out, nil
}

func startInProcess(opts OverlayOptions, dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the in-process sandbox: %w", err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{
		StateDir:    dir,
		LockTimeout: inProcessLockTimeout,
		Gateway:     sandbox.Options{Now: opts.Now},
	})
	if errors.Is(err, sandbox.ErrLocked) {
		return "", cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(dir),
			"Another paycli command is using the sandbox; run 'paycli sandbox serve' so that commands can share it.")
	}
	if err != nil {
		return "", err
	}
	opts.AddCloser(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		return srv.Shutdown(ctx)
	})
	return srv.BaseURL, nil
}
