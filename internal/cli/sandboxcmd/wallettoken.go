package sandboxcmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// WalletTokenOptions are the inputs of `paycli sandbox wallet-token`.
type WalletTokenOptions struct {
	IO      *iostreams.IOStreams
	Now     func() time.Time
	NewID   func() string
	Request sandbox.WalletRequest

	// Format is the format asked for on the command line (-o, or JSON for
	// --jq); every format but JSON prints the token alone.
	Format render.Format
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
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
.41 is declined (41), .69 stays pending (69), anything else succeeds.

The token alone is printed on stdout. With -o json or --jq on the command
line the output is the token and what it stands for ("card" shows the
first six and last four digits; "expires_at" is the instant the token stops
being valid, in UTC, RFC 3339); a configured output format (PAYCLI_OUTPUT,
the config file) does not change this command:
  {"token": "...", "amount": "150.00", "currency": "TRY",
   "card": "435508******4358", "wallet": "001", "expires_at": "..."}`,
		Example: `  paycli sandbox wallet-token --amount 150.00 --currency TRY
  paycli sandbox wallet-token --amount 99.41 --currency USD --wallet 012 --ttl 2m
  paycli sandbox wallet-token --amount 150.00 --currency TRY --jq .expires_at`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := cmdutil.ParseAmount("amount", amount)
			if err != nil {
				return err
			}
			if !d.Equal(d.Round(2)) {
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
			format, err := opts.JSON.Format(cmdutil.FlagOutputFormat(cmd))()
			if err != nil {
				return err
			}
			opts.Format = format
			return cmdutil.Run(cmd, opts, runF, walletTokenRun)
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
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// WalletToken is the JSON shape printed by `paycli sandbox wallet-token -o
// json`; its fields are a stable interface.
type WalletToken struct {
	Token     string      `json:"token"`
	Amount    string      `json:"amount"`
	Currency  string      `json:"currency"`
	Card      string      `json:"card"`
	Wallet    string      `json:"wallet"`
	ExpiresAt render.Time `json:"expires_at"`
}

// walletTokenRun prints the token, alone on a line, or its JSON form.
func walletTokenRun(ctx context.Context, opts *WalletTokenOptions) error {
	now := opts.Now()
	token, err := sandbox.IssueWalletToken(opts.Request, now, opts.NewID())
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	if opts.Format == render.JSON {
		r := opts.Request
		return opts.JSON.Write(ctx, opts.IO.Out, WalletToken{
			Token:    token,
			Amount:   r.Amount.StringFixed(2),
			Currency: r.Currency,
			Card:     redact.CardField(r.CardNumber),
			Wallet:   r.Wallet,
			// The token's exp claim is whole seconds (a JWT NumericDate).
			ExpiresAt: render.Time{Time: now.Add(r.TTL).Truncate(time.Second)},
		})
	}
	_, err = fmt.Fprintln(opts.IO.Out, token)
	return err
}
