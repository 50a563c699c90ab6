package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// StatusCommandLine is the `paycli status` command line for invoice, with
// flags after it, each quoted for a POSIX shell when it needs quoting, so
// that it can be pasted as is. Money-moving commands print it when an
// outcome is unknown.
func StatusCommandLine(invoice string, flags []string) string {
	parts := []string{"paycli", "status", "--invoice", ShellQuote(invoice)}
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
