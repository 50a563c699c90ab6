package sandboxcmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// WalletTokenOptions are the inputs of `paycli sandbox wallet-token`.
type WalletTokenOptions struct {
	IO      *iostreams.IOStreams
	Now     func() time.Time
	NewID   func() string
	Request sandbox.WalletRequest
}

// NewCmdWalletToken builds `paycli sandbox wallet-token`.
func NewCmdWalletToken(f *cmdutil.Factory, runF func(context.Context, *WalletTokenOptions) error) *cobra.Command {
	opts := &WalletTokenOptions{IO: f.IOStreams, Now: f.Now, NewID: sandbox.NewTokenID}
	var amount, currency string
	cmd := &cobra.Command{
		Use:   "wallet-token --amount AMOUNT --currency CODE",
		Short: "Print a wallet transient token signed with the sandbox wallet key",
		Long: `Print a wallet transient token, as a wallet button would produce it, signed
with the sandbox's published wallet key: any sandbox accepts it, the real
gateway does not. The amount's cents choose the sandbox's answer to walletPay:
.41 is declined (41), .69 stays pending (69), anything else succeeds.`,
		Example: `  paycli sandbox wallet-token --amount 150.00 --currency TRY
  paycli sandbox wallet-token --amount 99.41 --currency USD --wallet 012 --ttl 2m`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := cmdutil.ParseAmount(amount)
			if err != nil {
				return cmdutil.UsageErrorf("invalid --amount %w", err)
			}
			if d.Exponent() < -2 {
				return cmdutil.UsageErrorf("invalid --amount %q: want a positive amount with at most 2 decimals, e.g. 150.00", amount)
			}
			opts.Request.Amount = d
			opts.Request.Currency = strings.ToUpper(currency)
			if len(opts.Request.Currency) != 3 || strings.Trim(opts.Request.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				return cmdutil.UsageErrorf("invalid --currency %q: want a three-letter code such as TRY, USD or EUR", currency)
			}
			if err := sandbox.ValidateCardNumber(opts.Request.CardNumber); err != nil {
				return cmdutil.UsageErrorf("invalid --card: %v", err)
			}
			if err := cmdutil.OneOf("wallet", opts.Request.Wallet, sandbox.WalletDeviceVendor, sandbox.WalletOther); err != nil {
				return err
			}
			if opts.Request.TTL <= 0 {
				return cmdutil.UsageErrorf("invalid --ttl %s: must be positive", opts.Request.TTL)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return WalletTokenRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&amount, "amount", "", "amount the token authorizes, e.g. 150.00 (required)")
	cmd.Flags().StringVar(&currency, "currency", "", "ISO 4217 currency code, e.g. TRY (required)")
	cmd.Flags().StringVar(&opts.Request.CardNumber, "card", sandbox.DefaultWalletCard, "card number the token stands for (its BIN picks the card program)")
	cmd.Flags().StringVar(&opts.Request.Wallet, "wallet", sandbox.WalletDeviceVendor, "wallet type: 001 (device-vendor wallet) or 012 (other wallet)")
	cmd.Flags().DurationVar(&opts.Request.TTL, "ttl", 10*time.Minute, "how long the token is valid")
	_ = cmd.MarkFlagRequired("amount")
	_ = cmd.MarkFlagRequired("currency")
	_ = cmd.RegisterFlagCompletionFunc("wallet", completeWallet)
	_ = cmd.RegisterFlagCompletionFunc("currency", completeScheduleCurrency)
	_ = cmd.RegisterFlagCompletionFunc("card", completeCard)
	_ = cmd.RegisterFlagCompletionFunc("amount", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("ttl", noValueCompletion)
	return cmd
}

// WalletTokenRun prints the token, alone on a line.
func WalletTokenRun(_ context.Context, opts *WalletTokenOptions) error {
	token, err := sandbox.IssueWalletToken(opts.Request, opts.Now(), opts.NewID())
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	_, err = fmt.Fprintln(opts.IO.Out, token)
	return err
}
