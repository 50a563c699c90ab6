package cmdutil

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

func TestRequireFlagsNamesEveryMissingFlag(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	cmd.Flags().String("a", "", "")
	cmd.Flags().String("b", "", "")
	cmd.Flags().String("c", "", "")
	if err := cmd.Flags().Set("b", "1"); err != nil {
		t.Fatal(err)
	}
	err := RequireFlags(cmd, " (or use --batch FILE)", "a", "b", "c")
	if err == nil || err.Error() != "missing --a, --c (or use --batch FILE)" {
		t.Fatalf("got %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUsage {
		t.Fatalf("%v is not a usage error", err)
	}
	if err := RequireFlags(cmd, "", "b"); err != nil {
		t.Fatalf("b is set: %v", err)
	}
}
