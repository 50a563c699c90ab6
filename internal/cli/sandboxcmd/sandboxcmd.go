// Package sandboxcmd implements `paycli sandbox` (serve, credentials,
// wallet-token, reset) and the global --sandbox mode that points any
// gateway command at the local emulator of internal/sandbox.
package sandboxcmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/spf13/cobra"
)

// DefaultAddr is where `paycli sandbox serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8787"

// NewCmdSandbox builds the `paycli sandbox` command group.
func NewCmdSandbox(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a local emulator of the gateway, and make test wallet tokens",
		Long: `The sandbox is a local emulator of the gateway: token, commission lookup,
walletPay and check status, with durable state and deterministic outcomes
(an amount ending in .41 is declined, one ending in .69 stays pending).
It moves no money and needs no account.

Any gateway command runs against it with the global --sandbox flag (or
PAYCLI_SANDBOX=1): the running 'paycli sandbox serve' if there is one,
otherwise an emulator started inside paycli for the one command.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		NewCmdServe(f, nil),
		NewCmdCredentials(f, nil),
		NewCmdWalletToken(f, nil),
		NewCmdReset(f, nil),
		NewCmdBench(f, nil),
	)
	return cmd
}

// DefaultStateDir is the sandbox's state folder: <state dir>/paycli/sandbox,
// where the state dir is $XDG_STATE_HOME, else $HOME/.local/state, read
// through the injected environment so tests are hermetic; on systems
// without HOME it is the user config folder.
func DefaultStateDir(lookupEnv func(string) (string, bool)) (string, error) {
	if v, ok := lookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(v) {
		return filepath.Join(v, "paycli", "sandbox"), nil
	}
	if home, ok := lookupEnv("HOME"); ok && home != "" {
		return filepath.Join(home, ".local", "state", "paycli", "sandbox"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a folder for the sandbox state: %w; pass --state", err)
	}
	return filepath.Join(dir, "paycli", "sandbox"), nil
}

// stateDir returns flagValue, or the default state folder.
func stateDir(f *cmdutil.Factory, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return DefaultStateDir(f.LookupEnv)
}
