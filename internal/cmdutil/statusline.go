package cmdutil

import (
	"strings"

	"github.com/paycli/paycli/internal/redact"

	"github.com/spf13/cobra"
)

// StatusCommandLine is the `paycli status` command line for invoice, with
// flags after it, each quoted for a POSIX shell when it needs quoting, so
// that it can be pasted as is. Money-moving commands print it when an
// outcome is unknown.
//
// An invoice id that reads as a card number (redact.HasCard) is never
// printed whole, and its masked form would ask about another invoice; the
// line then has ID in its place and says what ID is: the invoice id the
// command or batch line was given, which the reader has. (Money-moving
// commands suggest `paycli journal reconcile` instead where it settles the
// attempt: it needs no invoice id.)
func StatusCommandLine(invoice string, flags []string) string {
	arg, note := ShellQuote(invoice), ""
	if redact.HasCard(invoice) {
		arg, note = "ID", ", ID being the invoice id as given (it reads as a card number, so it is not printed)"
	}
	return commandLine([]string{"paycli", "status", "--invoice", arg}, flags) + note
}

// ReconcileCommandLine is the `paycli journal reconcile` command line with
// flags after it (--profile, --sandbox), quoted like StatusCommandLine's:
// the one command that asks the gateway about every attempt of unknown
// outcome on that profile and gateway, and records the answers.
func ReconcileCommandLine(flags []string) string {
	return commandLine([]string{"paycli", "journal", "reconcile"}, flags)
}

// commandLine is words followed by flags, each flag quoted for a shell.
func commandLine(words, flags []string) string {
	parts := words
	for _, f := range flags {
		parts = append(parts, ShellQuote(f))
	}
	return strings.Join(parts, " ")
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
