// Package webhookcmd implements `paycli webhook`: receive the gateway's
// webhooks on the merchant's side (listen), check their hash_key, forward
// them to the merchant's handler, and check captured ones offline (verify).
package webhookcmd

import (
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/webhook"
	"github.com/spf13/cobra"
)

// NewCmdWebhook builds the `paycli webhook` group.
func NewCmdWebhook(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook <command>",
		Short: "Receive, check and forward the gateway's webhooks",
		Long: `Receive, check and forward the gateway's webhooks.

After a sale or a refund the gateway POSTs its result to the merchant's
webhook URL, signed with a hash_key made with the app_secret. 'listen'
receives them on this machine, shows each one with whether its hash_key is
valid, and forwards it to the merchant's handler; 'verify' checks webhooks
captured elsewhere. The app_secret comes from the configuration (the
profile, PAYCLI_APP_SECRET, or the sandbox's with --sandbox).`,
		Args: cmdutil.UnknownSubcommand,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	// Typos as well as prefixes get a suggestion, as at the root.
	cmd.SuggestionsMinimumDistance = 2
	cmd.AddCommand(
		cmdutil.NoGateway(NewCmdListen(f, nil)),
		cmdutil.NoGateway(NewCmdVerify(f, nil)),
	)
	return cmd
}

// secretSource says where the app_secret came from, for the listener's
// banner and verify's hint.
func secretSource(cfg *config.Config) string {
	switch cfg.Source("app_secret") {
	case config.SourceEnv:
		return "PAYCLI_APP_SECRET"
	case config.SourceFlag:
		return "the command line"
	case config.SourceSandbox:
		return "the sandbox"
	}
	return fmt.Sprintf("profile %q", cfg.Profile)
}

// shown is a verdict as paycli prints it, in every format: its invoice_id
// as redact.Invoice shows it (a card number typed as an invoice id is
// masked, as every command shows invoices). Only what is printed changes:
// a forwarded webhook carries the body as it arrived.
func shown(v webhook.Verdict) webhook.Verdict {
	v.InvoiceID = redact.Invoice(v.InvoiceID)
	return v
}

// verdictText is a verdict as one line of text: kind, invoice, order,
// amount, currency, status and the hash, every outside value made safe
// for a terminal.
func verdictText(v webhook.Verdict, p render.Palette) string {
	show := func(s string) string {
		if s == "" {
			return "-"
		}
		return webhook.Printable(s)
	}
	kind := string(v.Kind)
	if kind == "" {
		kind = "-"
	}
	hash := p.Green("hash=valid")
	if !v.Valid() {
		hash = p.Red("hash=INVALID") + " (" + webhook.Printable(v.Reason) + ")"
	}
	return strings.Join([]string{kind, show(v.InvoiceID), show(v.OrderID), show(v.Amount), show(v.Currency),
		"status=" + show(v.Status), hash}, " ")
}

// verdictHeader and verdictRecord lay a verdict out for CSV and TSV.
var verdictHeader = []string{"kind", "invoice_id", "order_id", "amount", "currency_code", "status", "encoding", "hash", "field", "reason"}

func verdictRecord(v webhook.Verdict) []string {
	return []string{string(v.Kind), v.InvoiceID, v.OrderID, v.Amount, v.Currency, v.Status, string(v.Encoding), v.Hash, v.Field, v.Reason}
}
