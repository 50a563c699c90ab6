package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ExactArgs is cobra.ExactArgs with a message naming what is missing.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return UsageErrorf("missing %s", what)
		case len(args) > n:
			return UsageErrorf("too many arguments: %q (expected %s)", strings.Join(args[n:], " "), what)
		}
		return nil
	}
}

// MaximumArgs accepts at most n arguments.
func MaximumArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return UsageErrorf("too many arguments: %q (expected at most %s)", strings.Join(args[n:], " "), what)
		}
		return nil
	}
}

// NoArgs refuses positional arguments.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected argument %q: %s takes no arguments", args[0], cmd.CommandPath())
	}
	return nil
}

// RequireFlags refuses a run without some of the named flags, naming
// every one missing at once; instead, when not empty, says what may be
// given in their place (" (or use --batch FILE)").
func RequireFlags(cmd *cobra.Command, instead string, names ...string) error {
	var missing []string
	for _, name := range names {
		if !cmd.Flags().Changed(name) {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return UsageErrorf("missing %s%s", strings.Join(missing, ", "), instead)
	}
	return nil
}

// OneOf checks a flag value against a fixed list.
func OneOf(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return UsageErrorf("invalid --%s %q: use %s", flag, value, strings.Join(allowed, ", "))
}

// UnknownSubcommand is the Args of a command group: it rejects `paycli hash
// generat` the way the root rejects an unknown command, as a usage error
// with a suggestion.
func UnknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return UsageHint(err, fmt.Sprintf("Did you mean '%s'? Run '%s --help' for the list of commands.", s[0], cmd.CommandPath()))
	}
	return UsageErrorf("%v", err)
}

// InvoiceArg is the Args of a command whose main input is an invoice: its
// one argument is taken as --invoice (`paycli status INV-1001`, as gh
// takes a number), so that everything after parsing — required flags,
// batch checks, suggested commands — sees --invoice set. Giving both, or
// more than one argument, is a usage error.
func InvoiceArg(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case len(args) > 1:
		return UsageErrorf("too many arguments: %q (expected one invoice id)", strings.Join(args[1:], " "))
	}
	fl := cmd.Flags().Lookup("invoice")
	if fl == nil {
		return NoArgs(cmd, args)
	}
	if fl.Changed {
		return UsageErrorf("the invoice is given twice (%q and --invoice): give it once", args[0])
	}
	if err := cmd.Flags().Set("invoice", args[0]); err != nil {
		return UsageErrorf("invalid invoice %q: %v", args[0], err)
	}
	return nil
}

// ParseBool is the one rule for a yes/no value paycli reads from the
// environment (PAYCLI_SANDBOX): 1, true, yes, on, y or t for yes; 0,
// false, no, off, n or f for no; in any case, blanks around ignored.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on", "y", "t":
		return true, nil
	case "0", "false", "no", "off", "n", "f":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a yes or no: use 1, true, yes or on; 0, false, no or off", s)
}
