package app

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// TestDataCommandsTakeJQ lists the commands that print data and checks that
// each takes --jq (from cmdutil.JSONFlags), and that no other command does.
// A new command that prints data belongs in this list.
func TestDataCommandsTakeJQ(t *testing.T) {
	want := []string{
		"paycli api",
		"paycli audit",
		"paycli cards delete", "paycli cards list", "paycli cards save", "paycli cards update",
		"paycli commissions",
		"paycli complete",
		"paycli config get",
		"paycli config list",
		"paycli config path",
		"paycli config profiles",
		"paycli hash generate",
		"paycli hash layouts",
		"paycli hash validate",
		"paycli installments",
		"paycli journal",
		"paycli journal import", "paycli journal init", "paycli journal reconcile", "paycli journal settle", "paycli journal show", "paycli journal summary",
		"paycli link create",
		"paycli preauth cancel",
		"paycli preauth capture",
		"paycli refund",
		"paycli sandbox credentials",
		"paycli sandbox logs",
		"paycli sandbox pay",
		"paycli sandbox wallet-token",
		"paycli sandbox webhooks",
		"paycli sandbox webhooks resend",
		"paycli status",
		"paycli token",
		"paycli transactions",
		"paycli version",
		"paycli walletpay",
		"paycli webhook listen",
		"paycli webhook verify",
	}
	var got []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("jq") != nil {
			got = append(got, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCommandTree())
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("commands with --jq:\n%q\nwant:\n%q", got, want)
	}
}

// TestCommandsWithoutJQOnlyAct: every command that runs either takes --jq
// (TestDataCommandsTakeJQ) or is listed here as one that acts and prints
// no data on stdout (or, for completion, a script for the shell), so that
// a new command has to be put on one side or the other.
func TestCommandsWithoutJQOnlyAct(t *testing.T) {
	actOnly := []string{
		"paycli completion",
		"paycli config delete",
		"paycli config init",
		"paycli config migrate-secrets",
		"paycli config rename",
		"paycli config set",
		"paycli config unset",
		"paycli config use",
		"paycli sandbox load",
		"paycli sandbox ready",
		"paycli sandbox reset",
		"paycli sandbox serve",
	}
	var got []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && len(c.Commands()) == 0 && c.Flags().Lookup("jq") == nil {
			got = append(got, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCommandTree())
	slices.Sort(got)
	if !slices.Equal(got, actOnly) {
		t.Errorf("runnable commands without --jq:\n%q\nwant (the ones that only act):\n%q", got, actOnly)
	}
}
