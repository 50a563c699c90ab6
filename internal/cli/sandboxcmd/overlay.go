package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// EnvSandbox turns sandbox mode on, like the --sandbox flag.
const EnvSandbox = "PAYCLI_SANDBOX"

// Profile is the profile name a configuration carries in sandbox mode, so
// that anything kept per profile (such as cached tokens) stays apart from
// the real gateway's.
const Profile = "sandbox"

// inProcessLockTimeout bounds how long a --sandbox command waits for
// another one using the in-process emulator over the same state folder.
const inProcessLockTimeout = 10 * time.Second

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
	v, ok := lookupEnv(EnvSandbox)
	if !ok || strings.TrimSpace(v) == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, cmdutil.UsageErrorf("invalid %s %q: use 1 or 0", EnvSandbox, v)
	}
	return on, nil
}

// Overlay returns cfg pointed at the sandbox: its base URL and credentials,
// and the profile name "sandbox". The sandbox is the running `paycli sandbox
// serve` of the default state folder if its address file answers;
// otherwise an emulator is started in this process, on an ephemeral
// loopback port over the same state folder, and stopped by f.Close when
// the command ends. Concurrent invocations wait for each other on the state
// folder's file lock, up to a limit.
func Overlay(ctx context.Context, f *cmdutil.Factory, cfg *config.Config) (*config.Config, error) {
	dir, err := DefaultStateDir(f.LookupEnv)
	if err != nil {
		return nil, err
	}
	baseURL := sandbox.ReadAddress(dir)
	if baseURL == "" || !sandbox.Probe(ctx, baseURL) {
		baseURL, err = startInProcess(f, dir)
		if err != nil {
			return nil, err
		}
	}
	out := *cfg
	out.Profile = Profile
	out.BaseURL = baseURL
	// The sandbox is its state folder, whatever port serves it: tokens
	// cached by one run stay good for the next (they are signed with a
	// fixed key).
	out.GatewayID = "sandbox:" + dir
	out.AppID = sandbox.AppID
	out.AppSecret = sandbox.AppSecret
	out.MerchantKey = sandbox.MerchantKey
	return &out, nil
}

func startInProcess(f *cmdutil.Factory, dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the in-process sandbox: %w", err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{
		StateDir:    dir,
		LockTimeout: inProcessLockTimeout,
		Gateway:     sandbox.Options{Now: f.Now},
	})
	if errors.Is(err, sandbox.ErrLocked) {
		return "", cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(dir),
			"Another paycli command is using the sandbox; run 'paycli sandbox serve' so that commands can share it.")
	}
	if err != nil {
		return "", err
	}
	f.AddCloser(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		return srv.Shutdown(ctx)
	})
	return srv.BaseURL, nil
}
