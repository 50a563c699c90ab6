package journalcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

func runAt(t *testing.T, path string, format render.Format, invoice string) (string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return format, nil }, Now: func() time.Time { return t0 }}, MoneyKinds: kindtest.Paycli(),
		Journal: fileJournal(path),
		Invoice: invoice, Flags: []string{"--profile", "live"}}
	if err := journalRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

// TestJournalShowsReconciliation: a reconciled attempt shows what was
// learned, the footer names only the invoices still unknown, and times
// are local with their offset.
func TestJournalShowsReconciliation(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("TRT", 3*3600)
	defer func() { time.Local = saved }()
	path := writeJournal(t)
	j, _ := journal.Open(path)
	for _, id := range []string{"a3", "a4"} {
		_ = j.Append(journal.Entry{Type: journal.TypeIntent, Attempt: id, Time: t0, Profile: "live",
			BaseURL: "https://gw/ccpayment", Invoice: "LOST-" + id, Amount: "1.00", Currency: "TRY"})
	}
	_ = j.Close()
	scope := journal.NewScope("walletpay", "live", "https://gw/ccpayment", "app")
	code := 100
	recordLearned(t, path, scope, "CRASH-1", journal.Learned{Outcome: journal.Succeeded, StatusCode: &code,
		OrderNo: "VP7", TransactionStatus: "Completed"}, journal.ViaStatus, t0.Add(time.Minute))
	out, errOut := runAt(t, path, render.Table, "")
	if !strings.Contains(out, "12:00:00    live     walletpay  CRASH-1  150.00 TRY  435508******4358  succeeded (reconciled)") ||
		!strings.Contains(out, "VP7") {
		t.Errorf("table:\n%s", out)
	}
	want := "2 invoices have an unknown outcome: LOST-a3, LOST-a4.\nAsk the gateway and record what it says with: paycli journal reconcile --profile live\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	out, _ = runAt(t, path, render.JSON, "CRASH-1")
	for _, want := range []string{`"time": "2026-11-22T12:00:00+03:00"`, `"outcome": "succeeded"`, `"outcome_recorded": false`,
		`"order_no": "VP7"`, `"via": "status"`, `"transaction_status": "Completed"`, `"kind": "walletpay"`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}

// TestJournalWarnsOfTornLines: a torn line is reported with its offset,
// and the record written after it is listed.
func TestJournalWarnsOfTornLines(t *testing.T) {
	path := writeJournal(t)
	info, _ := os.Stat(path)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"type":"outcome","attempt":"dead`)
	_ = f.Close()
	j, _ := journal.Open(path)
	_ = j.Append(journal.Entry{Type: journal.TypeIntent, Attempt: "a9", Time: t0, Profile: "live", Invoice: "AFTER-1", Amount: "1.00", Currency: "TRY"})
	_ = j.Close()
	for _, invoice := range []string{"", "AFTER-1"} {
		out, errOut := runAt(t, path, render.Table, invoice)
		if !strings.Contains(out, "AFTER-1") {
			t.Errorf("--invoice %q: the record after the torn line is missing:\n%s", invoice, out)
		}
		want := "warning: 1 line of " + path + " could not be read and was left out (torn or foreign; byte offsets " +
			strconv.FormatInt(info.Size(), 10) + ")\n"
		if !strings.HasPrefix(errOut, want) {
			t.Errorf("--invoice %q: stderr %q, want prefix %q", invoice, errOut, want)
		}
	}
}

// TestJournalFooterReconcilesEachProfile: plain `paycli journal` lists
// every profile's attempts, so the `journal reconcile` it suggests takes
// the flags of the unknown attempts' own profile — --sandbox for a
// --sandbox command's (its sandbox identity, or a legacy line at a
// loopback address), --profile NAME for a profile's, even the default
// one — with one line per profile when there are several; run in sandbox
// mode, a profile's line turns the mode off.
func TestJournalFooterReconcilesEachProfile(t *testing.T) {
	const sandboxID = "sbx-identity"
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	intent := func(id, profile, gateway, baseURL string) journal.Entry {
		return journal.Entry{Type: journal.TypeIntent, Attempt: id, Time: t0, Profile: profile, Gateway: gateway, BaseURL: baseURL,
			Invoice: "INV-" + id, Amount: "1.00", Currency: "TRY"}
	}
	sbx := intent("s1", "sandbox", sandboxID, "http://127.0.0.1:4010/ccpayment")
	legacySbx := intent("s2", "sandbox", "", "http://127.0.0.1:4999/ccpayment")
	live := intent("l1", "live", "live-identity", "https://gw/ccpayment")
	def := intent("d1", "default", "default-identity", "https://test.gw/ccpayment")
	realSandbox := intent("r1", "sandbox", "test-identity", "https://test.gw/ccpayment") // a profile named "sandbox"
	for _, e := range []journal.Entry{sbx, legacySbx, live, def, realSandbox} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	footer := func(given []string, invoice string) string {
		t.Helper()
		ios, _, _, errOut := iostreams.Test()
		opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.Table, nil }, Now: func() time.Time { return t0 }}, MoneyKinds: kindtest.Paycli(),
			Journal: fileJournal(path),
			Invoice: invoice, Flags: given, SandboxIdentity: func() (string, error) { return sandboxID, nil }}
		if err := journalRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return errOut.String()
	}
	want := "5 invoices have an unknown outcome: INV-s1, INV-s2, INV-l1, INV-d1, INV-r1.\n" +
		"They were made on 4 profiles; ask the gateway and record what it says with one command for each:\n" +
		"  paycli journal reconcile --sandbox\n" +
		"  paycli journal reconcile --profile live\n" +
		"  paycli journal reconcile --profile default\n" +
		"  paycli journal reconcile --profile sandbox\n"
	if got := footer(nil, ""); got != want {
		t.Errorf("footer:\n%s\nwant:\n%s", got, want)
	}
	for invoice, want := range map[string]string{
		"INV-s1": "paycli journal reconcile --sandbox\n",
		"INV-s2": "paycli journal reconcile --sandbox\n",
		"INV-d1": "paycli journal reconcile --profile default\n",
	} {
		if got := footer(nil, invoice); !strings.HasSuffix(got, "\nAsk the gateway and record what it says with: "+want) {
			t.Errorf("--invoice %s: footer %q, want it to end with %q", invoice, got, want)
		}
	}
	if got := footer([]string{"--sandbox"}, "INV-l1"); !strings.HasSuffix(got, "with: paycli journal reconcile --profile live --sandbox=false\n") {
		t.Errorf("in sandbox mode: %q", got)
	}
	if got := footer([]string{"--profile", "live", "--sandbox"}, "INV-s1"); !strings.HasSuffix(got, "with: paycli journal reconcile --sandbox\n") {
		t.Errorf("a sandbox line in sandbox mode: %q", got)
	}
}

// TestJournalFooterPointsAtStatusForWhatReconcileLeaves: an unknown
// attempt of every kind paycli knows, api calls included (issue 23,
// defect 9: an api payment is read as a sale), is settled by `journal
// reconcile`, which the footer names once; one of an operation this
// paycli does not know (a line another version wrote) is not, so the
// footer points at `paycli status` for its invoice (ID for one that reads
// as a card number).
func TestJournalFooterPointsAtStatusForWhatReconcileLeaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []struct{ kind, invoice string }{
		{"walletpay", "INV-W"}, {"preauth-capture", "INV-C"}, {"api", "INV-P"},
		{"payout", "INV-X"}, {"payout", "4111111111111111"},
	} {
		if err := j.Append(journal.Entry{Type: journal.TypeIntent, Kind: e.kind, Attempt: fmt.Sprint("a", i), Time: t0, Profile: "live",
			Gateway: "live-identity", BaseURL: "https://gw/ccpayment", Invoice: e.invoice, Amount: "1.00", Currency: "TRY"}); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	ios, _, _, errOut := iostreams.Test()
	opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.Table, nil }, Now: func() time.Time { return t0 }}, MoneyKinds: kindtest.Paycli(),
		Journal: fileJournal(path)}
	if err := journalRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "5 invoices have an unknown outcome: INV-W, INV-C, INV-P, INV-X, 411111******1111.\n" +
		"Ask the gateway and record what it says with: paycli journal reconcile --profile live\n" +
		"reconcile does not settle an operation this paycli does not know (written by another version); see where each stands with:\n" +
		"  paycli status --invoice INV-X --profile live\n" +
		"  paycli status --invoice ID --profile live, ID being its invoice id, kept whole in " + path + " (it reads as a card number, so it is not printed)\n"
	if got := errOut.String(); got != want {
		t.Errorf("footer:\n%s\nwant:\n%s", got, want)
	}
}

// recordLearned appends a reconcile line recording l for each unresolved
// attempt of scope for invoice, as status and reconcile do.
func recordLearned(t *testing.T, path string, scope journal.Scope, invoice string, l journal.Learned, via string, now time.Time) {
	t.Helper()
	attempts, _, err := journal.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	store := journal.OpenFile(path, func() time.Time { return now })
	defer store.Close()
	for _, a := range journal.Unresolved(attempts, scope, invoice) {
		if err := store.Append(context.Background(), journal.Reconciliation(a, l, via, now)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestJournalFooterSendsACardDeletionAgain: a saved card's deletion of
// unknown outcome is not pointed at `paycli status` (check status knows
// nothing of cards) but at sending it again, which settles it.
func TestJournalFooterSendsACardDeletionAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journal.Entry{Type: journal.TypeIntent, Kind: "card-delete", Attempt: "a1", Time: t0, Profile: "live",
		Gateway: "live-identity", BaseURL: "https://gw/ccpayment", Invoice: "card:5070:tok", Ref: "tok", Reason: "KVKK"}); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	ios, _, out, _ := iostreams.Test()
	opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.Table, nil }, Now: func() time.Time { return t0 }},
		Journal:    fileJournal(path),
		MoneyKinds: journal.Kinds{{Name: "card-delete", SentAgain: true}}}
	if err := journalRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "card-delete  card:5070:tok") || !strings.Contains(out.String(), "unknown") {
		t.Errorf("table:\n%s", out)
	}
	ios, _, out, errOut := iostreams.Test()
	opts.IO, opts.Format = ios, func() (render.Format, error) { return render.JSON, nil }
	if err := journalRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "1 invoice has an unknown outcome: card:5070:tok.\n" +
		"A saved card's deletion of unknown outcome is settled by sending it again: the same 'paycli cards delete' (docs/cards.md).\n"
	if got := errOut.String(); got != want {
		t.Errorf("footer:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(out.String(), `"reason": "KVKK"`) || !strings.Contains(out.String(), `"kind": "card-delete"`) {
		t.Errorf("stdout:\n%s", out)
	}
}
