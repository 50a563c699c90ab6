package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cli/journalcmd"
	"github.com/paycli/paycli/internal/journal"
)

// TestSharedJournalCraftedImportRefused (issue 30, defect 4): an operator
// with only the rights journal init grants imports a crafted file that
// settles another operator's unknown refund; the database refuses those
// lines (the rest is imported), the invoice stays blocked, and the listing
// names nobody as its settler. A sandbox line is skipped by its own fields.
func TestSharedJournalCraftedImportRefused(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	ayse := d.store(t, "ayse", "desk-1")
	ctx := context.Background()
	in := deskEntry(journal.TypeIntent, "refund", "a-1", "INV-1", "100.00", day)
	in.Ref = "RF-1"
	unknown := deskOutcome(in, journal.Unknown, 0)
	unknown.StatusCode = nil
	for _, e := range []journal.Entry{in, unknown} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	declined := deskOutcome(in, journal.Declined, 41)
	declined.Time = day.Add(time.Minute)
	notFound := in
	notFound.Type, notFound.Outcome, notFound.Time, notFound.Via = journal.TypeReconcile, journal.NotFound, day.Add(2*time.Minute), journal.ViaReconcile
	own := deskEntry(journal.TypeIntent, "walletpay", "m-1", "INV-2", "5.00", day)
	sandboxed := deskEntry(journal.TypeIntent, "refund", "s-1", "SBX-1", "1.00", day)
	sandboxed.Gateway = "sandbox-0123456789abcdef"
	crafted := filepath.Join(t.TempDir(), "crafted.jsonl")
	var lines []byte
	for _, e := range []journal.Entry{declined, notFound, own, sandboxed} {
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(crafted, lines, 0o600); err != nil {
		t.Fatal(err)
	}

	d.env["PAYCLI_JOURNAL"] = d.srv.URL("mehmet", d.db)
	code, stdout, stderr := d.run(t, "journal", "import", "--from", crafted, "-o", "json")
	var res journalcmd.ImportResult
	if code != ExitOK || json.Unmarshal([]byte(stdout), &res) != nil || res.Imported != 1 || len(res.Refused) != 2 || res.Sandbox != 1 {
		t.Fatalf("mehmet's crafted import: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "Not imported: the outcome line of attempt a-1") || !strings.Contains(stderr, "written by ayse, not by mehmet") {
		t.Errorf("the refusals are not reported:\n%s", stderr)
	}
	_, stdout, _ = d.run(t, "journal", "--invoice", "INV-1", "-o", "json")
	if _, records := invoicesOf(t, stdout); len(records) != 1 || records[0].Outcome != journal.Unknown || records[0].SettledBy != nil {
		t.Errorf("INV-1 after the crafted import:\n%s", stdout)
	}
	mehmet := d.store(t, "mehmet", "desk-2")
	second := deskEntry(journal.TypeIntent, "refund", "m-2", "INV-1", "100.00", day.Add(time.Hour))
	second.Ref = "RF-2"
	if err := mehmet.Append(ctx, second); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a second refund of INV-1: %v, want ErrUnsettled", err)
	}
}

// TestSharedJournalLoginRefused (issue 30): a role without the journal's
// grants and a wrong password are told apart from an outage: exit 9,
// naming who fixes it.
func TestSharedJournalLoginRefused(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	d.srv.Role(t, "stranger")
	d.env["PAYCLI_JOURNAL"] = d.srv.URL("stranger", d.db)
	code, _, stderr := d.run(t, "journal")
	if code != ExitJournalRefused || !strings.Contains(stderr, "does not allow your role") || !strings.Contains(stderr, "--grant ROLE") {
		t.Errorf("a role without grants: exit %d\n%s", code, stderr)
	}
	d.srv.RequirePassword(t, "pw_op", "right-pw")
	d.env["PAYCLI_JOURNAL"] = strings.Replace(d.srv.URL("pw_op", d.db), "pw_op@", "pw_op:wr0ng-pw@", 1)
	code, _, stderr = d.run(t, "journal")
	if code != ExitJournalRefused || !strings.Contains(stderr, "refused the login") || !strings.Contains(stderr, "password") || strings.Contains(stderr, "wr0ng-pw") {
		t.Errorf("a wrong password: exit %d\n%s", code, stderr)
	}
}
