package sandboxcmd

import (
	"maps"
	"slices"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// completeWallet offers the wallet types a sandbox wallet token can carry.
func completeWallet(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{
		sandbox.WalletDeviceVendor + "\tdevice-vendor wallet",
		sandbox.WalletOther + "\tother wallet",
	}, cobra.ShellCompDirectiveNoFileComp
}

// completeScheduleCurrency offers the currencies of the sandbox's commission
// schedule: a wallet token in any other currency is refused by the sandbox
// (status_code 12), so the ISO 4217 list would mostly offer dead ends.
func completeScheduleCurrency(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	s, err := sandbox.DefaultSchedule()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return slices.Sorted(maps.Keys(s.Currencies)), cobra.ShellCompDirectiveNoFileComp
}

// completeCard offers one card number per card program of the sandbox's
// schedule (its BIN picks the program and so the commission), described by
// the program's name.
func completeCard(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	s, err := sandbox.DefaultSchedule()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var cards []string
	for _, bin := range slices.Sorted(maps.Keys(s.BINs)) {
		cards = append(cards, testCardNumber(bin)+"\t"+s.BINs[bin])
	}
	return cards, cobra.ShellCompDirectiveNoFileComp
}

// testCardNumber is a 16-digit number starting with bin, zeros after it and
// a Luhn check digit, so sandbox.ValidateCardNumber accepts it.
func testCardNumber(bin string) string {
	payload := bin
	for len(payload) < 15 {
		payload += "0"
	}
	return payload + string(cardno.CheckDigit(payload))
}

// noValueCompletion stops the shell from offering files for a flag whose
// value is free text.
func noValueCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// completeFolder offers folders only, for --state.
func completeFolder(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// completeTestCard offers the sandbox's published test cards, described by
// what the simulated provider does with each.
func completeTestCard(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	cards := make([]string, 0, len(sandbox.TestCards))
	for _, c := range sandbox.TestCards {
		what := c.Outcome
		switch c.Outcome {
		case "decline":
			what = "declines: " + c.Reason
		case "3d":
			what = "requires 3D"
		case "approve":
			what = "approves"
		}
		cards = append(cards, c.Number+"\t"+what)
	}
	return cards, cobra.ShellCompDirectiveNoFileComp
}
