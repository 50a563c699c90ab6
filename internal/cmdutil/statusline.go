package cmdutil

import (
	"slices"
	"strings"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"

	"github.com/spf13/cobra"
)

// StatusCommandLine is the `paycli status` command line for invoice, with
// flags after it (InvoiceCommandLine): money-moving commands print it when
// an outcome is unknown. An invoice id that reads as a card number is
// written ID, and the line ends by saying that ID is the invoice id the
// command or batch line was given, which the reader has. (Money-moving
// commands suggest `paycli journal reconcile` instead where it settles the
// attempt: it needs no invoice id.)
func StatusCommandLine(invoice string, flags []string) string {
	line, note := InvoiceCommandLine([]string{"status"}, invoice, InvoiceAsGiven, flags)
	return line + note
}

// InvoiceAsGiven names the invoice id of a suggested command line
// (InvoiceCommandLine) when it is the one the command or batch line was
// given.
const InvoiceAsGiven = "the invoice id as given"

// InvoiceCommandLine is the command line `paycli WORDS --invoice INVOICE
// FLAGS` — FLAGS being the global flags that chose the gateway
// (Factory.GatewayFlags) and any of the command's own — each word quoted
// for a POSIX shell when it needs quoting (CommandLine), so that it can be
// pasted as is.
//
// An invoice id that reads as a card number (redact.HasCard) is never
// printed whole, and its masked form would name another invoice: line then
// has ID in its place, and note says what ID is — whose names it
// (InvoiceAsGiven, or "the invoice id of refund RF1") — for the caller to
// write after the line or lines that use it: ", ID being the invoice id as
// given (it reads as a card number, so it is not printed)". Otherwise note
// is empty.
func InvoiceCommandLine(words []string, invoice, whose string, flags []string) (line, note string) {
	arg := invoice
	if redact.HasCard(invoice) {
		arg, note = "ID", ", ID being "+whose+" (it reads as a card number, so it is not printed)"
	}
	return CommandLine(slices.Concat([]string{"paycli"}, words, []string{"--invoice", arg}, flags)...), note
}

// ReconcileCommandLine is the `paycli journal reconcile` command line with
// flags after it (--profile, --sandbox), quoted like StatusCommandLine's:
// the one command that asks the gateway about every attempt of unknown
// outcome on that profile and gateway, and records the answers.
func ReconcileCommandLine(flags []string) string {
	return CommandLine(slices.Concat([]string{"paycli", "journal", "reconcile"}, flags)...)
}

// RefundRetryCommandLine is the `paycli refund --retry REF --yes` command
// line with flags (--profile, --sandbox) before --yes: it re-sends the
// refund whose refund_transaction_id is ref, which the gateway makes at
// most once, and so settles a refund whose outcome is unknown, whichever
// command sent it (paycli refund, or paycli api on the refund path).
func RefundRetryCommandLine(ref string, flags []string) string {
	return CommandLine(slices.Concat([]string{"paycli", "refund", "--retry", ref}, flags, []string{"--yes"})...)
}

// CommandLine joins words into a command line, each quoted for a POSIX
// shell when it needs quoting (ShellQuote): every command line paycli
// suggests is built here, so that it can be pasted as is.
func CommandLine(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = ShellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// ShellQuote returns s quoted for a POSIX shell, or as is when it holds
// only characters no shell treats specially.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/@%+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// GatewayFlags returns the global flags of cmd that chose the gateway, as a
// suggested command must repeat them: --profile NAME when given, and
// --sandbox in sandbox mode (the flag or PAYCLI_SANDBOX, as f.SandboxMode
// decides).
func (f *Factory) GatewayFlags(cmd *cobra.Command) ([]string, error) {
	var out []string
	if fl := cmd.Flag("profile"); fl != nil && fl.Changed {
		out = append(out, "--profile", fl.Value.String())
	}
	if f.SandboxMode == nil {
		return out, nil
	}
	on, err := f.SandboxMode(cmd)
	if err != nil {
		return nil, err
	}
	if on {
		out = append(out, "--sandbox")
	}
	return out, nil
}

// SettleCommandLine is the desk lead's `paycli journal settle ATTEMPT --as
// AS --reason TEXT` command line with flags (--profile) after it; TEXT is
// left for the lead to write.
func SettleCommandLine(attempt, as string, flags []string) string {
	return CommandLine(slices.Concat([]string{"paycli", "journal", "settle", attempt, "--as", as}, flags)...) + " --reason TEXT"
}

// MissingNeeds says what settles attempt a, of kind k, when check status
// does not find it (journal.Learned.Missing: never final, the gateway may
// still make it): for a kind re-sent by its Ref (a refund), a re-send,
// which the gateway makes at most once (journal.Kind.Resend); for every
// kind, the desk lead's `journal settle` once the gateway confirms it was
// never made.
func MissingNeeds(a journal.Attempt, k journal.Kind, flags []string) string {
	lead := "the desk lead settles it once the gateway confirms it was never made: " + SettleCommandLine(a.Intent.Attempt, "not-made", flags)
	if resend := k.ResendCommand(a, flags); resend != "" {
		return "re-send it (safe: " + k.ResendSafe + "): " + resend + "; or " + lead
	}
	return "check with the gateway; " + lead
}
