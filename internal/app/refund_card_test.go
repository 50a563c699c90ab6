package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// TestRefundRetryDuplicateFindsACardInvoice: after `refund --retry REF`
// ends as a duplicate (exit 6), the hint's status line names an invoice id
// that is a card number ID — every command shows it masked, and the user
// gave only REF — and says where to find it whole: the grep it prints
// finds the refund's lines in the journal, which hold it, and the status
// line with that invoice in place of ID works.
func TestRefundRetryDuplicateFindsACardInvoice(t *testing.T) {
	const card = "4111111111111111"
	rs := newRefundSandbox(t, "reset=after")
	rs.pay(t, card, "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", card, "--amount", "50.00", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7\n%s", code, stderr)
	}
	attempts := rs.journal(t)
	ref := attempts[len(attempts)-1].Intent.Ref
	code, _, stderr := rs.run(t, "refund", "--retry", ref, "--yes")
	if code != ExitDuplicate {
		t.Fatalf("--retry: exit %d, want 6\n%s", code, stderr)
	}
	path := filepath.Join(rs.home, "state", "paycli", journal.FileName)
	want := "See what became of it, and record it: paycli status --invoice ID, ID being the invoice id of refund " + ref +
		" (it reads as a card number, so it is not printed); the journal holds it whole: grep -F " + ref + " " + cmdutil.ShellQuote(path) + "\n"
	if strings.Contains(stderr, card) || !strings.HasSuffix(stderr, want) {
		t.Fatalf("stderr:\n%s\nwant it to end with\n%s", stderr, want)
	}

	// What the grep finds: the refund's lines, with the invoice whole.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, ref) {
			found = append(found, line)
		}
	}
	if len(found) == 0 || !strings.Contains(found[0], `"invoice":"`+card+`"`) {
		t.Fatalf("the journal's lines of %s: %q", ref, found)
	}
	if code, stdout, stderr := rs.run(t, "status", "--invoice", card); code != ExitOK || strings.Contains(stdout+stderr, card) {
		t.Errorf("status with the invoice found: exit %d\n%s%s", code, stdout, stderr)
	}
}
