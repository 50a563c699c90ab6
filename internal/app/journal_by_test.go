package app

import (
	"strings"
	"testing"
)

// TestJournalByARoleWithNoAttempts (issue 34): --operator naming a role that
// made no attempt in the shared journal is bad input (exit 2) naming the
// roles that did, not an empty listing that reads as an idle operator; a
// role that did, with filters that match nothing, lists nothing and says
// so (exit 0).
func TestJournalByARoleWithNoAttempts(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	d.seed(t)
	code, stdout, stderr := d.run(t, "journal", "--operator", "ayse", "--operator", "nobody", "--kind", "walletpay")
	if code != ExitUsage || stdout != "" ||
		!strings.Contains(stderr, "error: invalid --operator: no attempt in the journal was made by nobody\n") ||
		!strings.Contains(stderr, "Roles with attempts in the journal: ayse, mehmet.") {
		t.Errorf("journal --operator nobody: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = d.run(t, "journal", "--operator", "mehmet", "--kind", "walletpay")
	if code != ExitOK || stdout != "" || !strings.Contains(stderr, "of kind walletpay, made by mehmet.") {
		t.Errorf("journal --operator mehmet --kind walletpay (none): exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}
