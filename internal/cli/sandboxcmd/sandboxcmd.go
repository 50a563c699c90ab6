// Package sandboxcmd implements `paycli sandbox` (serve, credentials,
// wallet-token, pay, reset, webhooks). The global --sandbox mode that points
// any gateway command at the emulator is internal/sandboxmode.
package sandboxcmd

import (
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/sandboxmode"
	"github.com/spf13/cobra"
)

// DefaultAddr is where `paycli sandbox serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8787"

// NewCmdSandbox builds the `paycli sandbox` command group.
func NewCmdSandbox(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a local emulator of the gateway, and make test sales and wallet tokens",
		Long: `The sandbox is a local emulator of the gateway's merchant API: token,
commission lookup, walletPay, 2D and 3D card payments, pre-authorizations,
refunds, check status and installment lookups, with durable state and
deterministic outcomes (an amount ending in .41 is declined, one ending in .69
stays pending; published test cards approve, decline or require 3D).
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
		NewCmdPay(f, nil),
		NewCmdReset(f, nil),
		NewCmdWebhooks(f, nil),
		NewCmdLogs(f, nil),
		NewCmdLoad(f, nil),
		NewCmdReady(f, nil),
	)
	return cmd
}

// stateDir returns flagValue, or the default state folder.
func stateDir(f *cmdutil.Factory, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return sandboxmode.DefaultStateDir(f.LookupEnv)
}

// addressedSandbox is the sandbox a command that acts on one addresses:
// its state folder (--state, else the default) and the running server
// --sandbox-url or PAYCLI_SANDBOX_URL names ("" when none is named).
func addressedSandbox(f *cmdutil.Factory, cmd *cobra.Command, state string) (dir, url string, err error) {
	if dir, err = stateDir(f, state); err != nil {
		return "", "", err
	}
	if url, _, err = sandboxmode.Target(cmd, f.LookupEnv); err != nil {
		return "", "", err
	}
	return dir, url, nil
}
