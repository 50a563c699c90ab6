package cmdutil

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/money"
)

// GatewayCurrencies are the currencies a ccpayment gateway takes, most
// used first: those of its commission schedules (the sandbox's too). Any
// ISO 4217 code is still accepted; these are offered first.
func GatewayCurrencies() []string { return []string{"TRY", "USD", "EUR"} }

// CompleteCurrency is a flag completion offering currency codes, each
// described by its name: with nothing typed, the gateway's currencies
// (GatewayCurrencies) alone, not the 165 of ISO 4217; with a beginning
// typed, in any letter case ("tr" offers TRY), the gateway's that start
// with it first, then the other ISO 4217 codes, in that order.
func CompleteCurrency(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix := strings.ToUpper(toComplete)
	gateway := GatewayCurrencies()
	var first, rest []string
	for _, c := range money.Currencies() {
		switch {
		case !strings.HasPrefix(c.Code, prefix):
		case slices.Contains(gateway, c.Code):
			first = append(first, c.Code+"\t"+c.Name)
		case prefix != "":
			rest = append(rest, c.Code+"\t"+c.Name)
		}
	}
	slices.SortStableFunc(first, func(a, b string) int {
		return slices.Index(gateway, a[:3]) - slices.Index(gateway, b[:3])
	})
	return append(first, rest...), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// CompleteFile is a flag completion for a file argument: the shell's own
// file name completion.
func CompleteFile(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// CompleteValueOrAtFile is a flag completion for a value given inline, as
// @FILE or as - for stdin (walletpay --token). The shells cannot complete
// file names after a prefix, so once "@" is typed it lists the matching
// files and folders itself, each written with the "@"; a folder ends in "/"
// and no space is added, so the next <Tab> goes into it. Before that it
// offers "@" and "-" as reminders of the two forms.
func CompleteValueOrAtFile(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	if toComplete == "" {
		return []string{"@\tread it from a file", "-\tread it from stdin"}, directive
	}
	typed, ok := strings.CutPrefix(toComplete, "@")
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return atFiles(typed), directive
}

// atFiles lists, with an "@" before each, the entries of typed's folder
// whose names start with typed's last element; hidden ones only when that
// element starts with ".".
func atFiles(typed string) []string {
	dir, base := filepath.Split(typed)
	readDir := dir
	if readDir == "" {
		readDir = "."
	}
	entries, err := os.ReadDir(readDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		candidate := "@" + dir + name
		if e.IsDir() {
			candidate += string(filepath.Separator)
		}
		out = append(out, candidate)
	}
	return out
}

// CompleteProfiles completes a profile name: the profiles of the config
// file where finds (none when there is no readable file).
func CompleteProfiles(where config.LoadOptions) ([]string, cobra.ShellCompDirective) {
	path, err := config.Path(where)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	file, err := config.ReadFile(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return file.ProfileNames(), cobra.ShellCompDirectiveNoFileComp
}
