package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestUnknownSubcommand: a mistyped subcommand of a group is a usage error
// naming it, with the nearest subcommand suggested when there is one.
func TestUnknownSubcommand(t *testing.T) {
	group := &cobra.Command{Use: "hash", Args: UnknownSubcommand}
	run := func(*cobra.Command, []string) {}
	group.AddCommand(&cobra.Command{Use: "generate", Run: run}, &cobra.Command{Use: "validate", Run: run})
	root := &cobra.Command{Use: "paycli"}
	root.AddCommand(group)

	if err := UnknownSubcommand(group, nil); err != nil {
		t.Fatalf("no argument: %v", err)
	}
	err := UnknownSubcommand(group, []string{"generat"})
	if k, _ := KindOf(err); k != KindUsage || !strings.Contains(err.Error(), `unknown command "generat" for "paycli hash"`) {
		t.Fatalf("generat: %v (kind %v)", err, k)
	}
	var hinted *Error
	if !errors.As(err, &hinted) || !strings.Contains(hinted.Hint, "Did you mean 'generate'?") {
		t.Errorf("generat: no suggestion in %#v", err)
	}
	if err := UnknownSubcommand(group, []string{"zzzzzz"}); err == nil || strings.Contains(err.Error(), "Did you mean") {
		t.Errorf("zzzzzz: %v", err)
	}
}
