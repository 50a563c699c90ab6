package app

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// runnable lists every command a user can run (not the groups, help
// topics and hidden ones), by its path's words.
func runnable(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		// A group (config, hash, …) only shows its help.
		group := c.HasSubCommands() && c.Name() != "journal" && c.Name() != "webhooks"
		if c.Runnable() && !c.Hidden && c.HasParent() && c.Name() != "help" && !group {
			out[strings.Join(strings.Fields(c.CommandPath())[1:], " ")] = c
		}
	}
	walk(NewCommandTree())
	return out
}

// listedExits is the codes a command's help lists under "Exit codes".
func listedExits(help string) []int {
	_, list, ok := strings.Cut(help, "Exit codes (see 'paycli help exit-codes'):\n")
	if !ok {
		return nil
	}
	var codes []int
	for line := range strings.Lines(list) {
		fields := strings.Fields(line)
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "       ") || len(fields) == 0 {
			if len(fields) == 0 || !strings.HasPrefix(line, " ") {
				break
			}
			continue
		}
		if n, err := strconv.Atoi(fields[0]); err == nil {
			codes = append(codes, n)
		}
	}
	return codes
}

// TestEveryCommandListsItsExitCodes: every command's help ends with the
// exit codes it may end with, written from the one table: every command
// lists 0, 1, 2 and 130; one that asks the gateway 3, 4 and 8; one that
// moves money 5, 6 and 7 too, and 10 when it asks first; and 141 unless
// it moves money.
func TestEveryCommandListsItsExitCodes(t *testing.T) {
	gateway := []string{"commissions", "installments", "status", "token", "config init", "journal reconcile", "sandbox pay"}
	money := []string{"walletpay", "refund", "preauth capture", "preauth cancel", "complete", "api"}
	// desk: desk actions through the money pipeline that move no money (no
	// decline); like a payment, their exit code is what was done.
	desk := []string{"cards delete"}
	for path, c := range runnable(t) {
		_, stdout, stderr := run(t, context.Background(), append(strings.Fields(path), "--help")...)
		codes := listedExits(stdout)
		if codes == nil {
			t.Errorf("%s --help lists no exit codes:\n%s%s", path, stdout, stderr)
			continue
		}
		want := []int{0, 1, 2, 130}
		if slices.Contains(gateway, path) || slices.Contains(money, path) || slices.Contains(desk, path) {
			want = append(want, 3, 4, 8)
		}
		if slices.Contains(desk, path) {
			want = append(want, 6, 7)
		}
		if slices.Contains(money, path) {
			want = append(want, 5, 6, 7)
		}
		// Every command that asks before it sends lists the cancel (10).
		if (slices.Contains(money, path) || slices.Contains(desk, path) || path == "link create") && path != "api" {
			want = append(want, 10)
		}
		// A payment link goes through the money pipeline but is never
		// declined: nothing is charged when it is made.
		if path == "link create" {
			want = append(want, 3, 4, 6, 7, 8)
		}
		if !slices.Contains(money, path) && !slices.Contains(desk, path) && path != "link create" || path == "api" {
			want = append(want, 141)
		}
		for _, code := range want {
			if !slices.Contains(codes, code) {
				t.Errorf("%s --help lists exit codes %v: %d is missing", path, codes, code)
			}
		}
		if !slices.IsSorted(codes) {
			t.Errorf("%s --help lists exit codes out of order: %v", path, codes)
		}
		_ = c
	}
	// A command's own words stand in for the table's where it has them.
	_, stdout, _ := run(t, context.Background(), "status", "--help")
	if !strings.Contains(stdout, "\n  7    still pending\n") || !strings.Contains(stdout, "\n  141  stdout closed before the output was written\n") {
		t.Errorf("status --help:\n%s", stdout)
	}
}

// TestHelpFitsEightyColumns: every command's help reads on an 80-column
// terminal: its paragraphs and its flags (wrapped) fit; only an example
// command line may be longer.
func TestHelpFitsEightyColumns(t *testing.T) {
	for path := range runnable(t) {
		_, stdout, _ := run(t, context.Background(), append(strings.Fields(path), "--help")...)
		inExamples := false
		for line := range strings.Lines(stdout) {
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "Examples:":
				inExamples = true
			case line != "" && !strings.HasPrefix(line, " "):
				inExamples = false
			}
			if inExamples {
				continue
			}
			if w := utf8.RuneCountInString(line); w > 80 {
				t.Errorf("%s --help has a line of %d columns:\n%s", path, w, line)
			}
		}
	}
}
