package journalcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

// settleFixture is a file journal holding an unknown refund (rf-unknown,
// INV-1), one that succeeded (rf-made, INV-2) and a queued one (rf-queued,
// INV-3).
func settleFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, c := range []struct{ attempt, invoice, class string }{
		{"rf-unknown", "INV-1", journal.Unknown}, {"rf-made", "INV-2", journal.Succeeded}, {"rf-queued", "INV-3", journal.Queued},
	} {
		in := journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: "acct", Attempt: c.attempt, Time: t0,
			Profile: "live", BaseURL: "https://gw.example/ccpayment", Invoice: c.invoice, Amount: "5.00", Currency: "TRY", Ref: "RF-" + c.attempt}
		out := in
		out.Type, out.Outcome = journal.TypeOutcome, c.class
		for _, e := range []journal.Entry{in, out} {
			if err := j.Append(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

// runSettle runs `paycli journal settle ARGS…` on the journal store opens,
// at t0, by ayse at desk-1; tty says whether it may ask.
func runSettle(t *testing.T, store func() (journal.Store, error), tty bool, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	ios.SetStdinTTY(tty)
	ios.SetStdoutTTY(tty)
	in.WriteString(stdin)
	f := &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Now: func() time.Time { return t0 }, Journal: store}
	cmd := NewCmdSettle(f, func(ctx context.Context, opts *SettleOptions) error {
		opts.Format = func() (render.Format, error) { return render.Table, nil }
		opts.Who = func() (string, string) { return "ayse", "desk-1" }
		return settleRun(ctx, opts)
	})
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func attemptOf(t *testing.T, path, id string) journal.Attempt {
	t.Helper()
	attempts, _, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		if a.Intent.Attempt == id {
			return a
		}
	}
	t.Fatalf("no attempt %s", id)
	return journal.Attempt{}
}

// TestSettleFileJournal: the lead settles an unknown refund not made, on
// the file journal: the line names the lead's reason, OS user and host;
// the invoice is free again; the listing and journal show say who settled
// it and why. What is not unsettled, bad flags, a no at the question, a
// dry run and an invoice in flight write nothing.
func TestSettleFileJournal(t *testing.T) {
	path := settleFixture(t)
	store := fileJournal(path)
	const reason = "gateway support ticket 4711: RF-rf-unknown never reached them"
	lines := func() int {
		entries, _, _ := journal.Entries(path)
		return len(entries)
	}
	before := lines()
	for _, c := range []struct {
		name  string
		args  []string
		tty   bool
		stdin string
		kind  cmdutil.Kind
		want  string
	}{
		{"an attempt that succeeded", []string{"rf-made", "--as", "not-made", "--reason", "x", "--yes"}, false, "", cmdutil.KindUsage, "attempt rf-made is not unsettled: its outcome is succeeded"},
		{"no such attempt", []string{"rf-none", "--as", "made", "--reason", "x", "--yes"}, false, "", cmdutil.KindUsage, "no attempt rf-none"},
		{"no reason", []string{"rf-unknown", "--as", "made", "--reason", "  ", "--yes"}, false, "", cmdutil.KindUsage, "missing --reason"},
		{"a bad --as", []string{"rf-unknown", "--as", "maybe", "--reason", "x", "--yes"}, false, "", cmdutil.KindUsage, `invalid --as "maybe"`},
		{"no terminal, no --yes", []string{"rf-unknown", "--as", "made", "--reason", "x"}, false, "", cmdutil.KindUsage, "no terminal to ask on"},
		{"answered no", []string{"rf-unknown", "--as", "made", "--reason", "x"}, true, "n\n", cmdutil.KindCancelled, ""},
		{"a dry run", []string{"rf-unknown", "--as", "made", "--reason", "x", "--dry-run"}, false, "", 0, ""},
	} {
		_, _, err := runSettle(t, store, c.tty, c.stdin, c.args...)
		if k, _ := cmdutil.KindOf(err); k != c.kind || (c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("%s: %v (kind %v), want kind %v saying %q", c.name, err, k, c.kind, c.want)
		}
		if n := lines(); n != before {
			t.Fatalf("%s: wrote %d lines", c.name, n-before)
		}
	}
	// The invoice held by another command: nothing is written.
	unlock, err := journal.OpenFile(path, time.Now).Lock(context.Background(), "acct", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runSettle(t, store, false, "", "rf-unknown", "--as", "not-made", "--reason", reason, "--yes"); err == nil || lines() != before {
		t.Errorf("with the invoice in flight: %v, %d lines written", err, lines()-before)
	} else if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate {
		t.Errorf("with the invoice in flight: kind %v, want exit 6", k)
	}
	unlock()

	_, errOut, err := runSettle(t, store, true, "y\n", "rf-unknown", "--as", "not-made", "--reason", reason)
	if err != nil || !strings.Contains(errOut, "Settled refund RF-rf-unknown of invoice INV-1 (rf-unknown, now unknown) as not made, by ayse@desk-1") {
		t.Fatalf("settle: %v\n%s", err, errOut)
	}
	a := attemptOf(t, path, "rf-unknown")
	r := a.Reconciled
	if a.Class() != journal.NotFound || !a.SettledByLead() || r.Via != journal.ViaSettle || r.Reason != reason || r.OSUser != "ayse" || r.Host != "desk-1" || r.Evidence != nil {
		t.Errorf("the settle line: class %s, %+v", a.Class(), r)
	}
	attempts, _, _ := journal.Read(path)
	if open := journal.Blocking(attempts, journal.Scope{Gateway: "acct", Kind: "refund"}, "INV-1"); len(open) != 0 {
		t.Errorf("INV-1 still blocked by %v", open)
	}
	// Settled, it is not settled again.
	if _, _, err := runSettle(t, store, false, "", "rf-unknown", "--as", "made", "--reason", "x", "--yes"); err == nil || !strings.Contains(err.Error(), "not unsettled") {
		t.Errorf("settled twice: %v", err)
	}
	// A queued refund is the lead's to settle too.
	if _, _, err := runSettle(t, store, false, "", "rf-queued", "--as", "made", "--reason", "the gateway's team approved it (mail of 25 Nov)", "--yes"); err != nil {
		t.Errorf("a queued refund: %v", err)
	}
	if a := attemptOf(t, path, "rf-queued"); a.Class() != journal.Succeeded || !a.SettledByLead() {
		t.Errorf("the queued refund settled made: %s", a.Class())
	}

	out, _, err := runCmd(t, path, render.Table, listCmd)
	if err != nil || !strings.Contains(out, "not_found (settled by lead)") || !strings.Contains(out, "settled by the desk lead: gateway support ticket 4711") {
		t.Errorf("journal listing: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, path, render.Table, showCmd, "rf-unknown")
	for _, want := range []string{"not_found — settled by the desk lead: " + reason, "via journal settle", "by  ", "ayse@desk-1"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("journal show lacks %q: %v\n%s", want, err, out)
		}
	}
}

// TestSettleSharedJournal: on the shared journal the database takes the
// settle line from a desk lead (journal init --lead), stamped with the
// lead's role; an operator's is refused (exit 9) with the remedy.
func TestSettleSharedJournal(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db := srv.Database(t, "desk_admin")
	for _, r := range []string{"ayse", "zeynep"} {
		srv.Role(t, r)
	}
	ctx := context.Background()
	if _, err := pgjournal.Init(ctx, srv.URL("desk_admin", db), []string{"ayse"}, []string{"zeynep"}); err != nil {
		t.Fatal(err)
	}
	open := func(role string) func() (journal.Store, error) {
		return func() (journal.Store, error) {
			return pgjournal.Open(ctx, pgjournal.Options{URL: srv.URL(role, db), SpoolDir: t.TempDir(), Now: func() time.Time { return t0 }, PID: 1, OSUser: role, Host: "desk"})
		}
	}
	s, err := open("ayse")()
	if err != nil {
		t.Fatal(err)
	}
	in := journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: "acct", Attempt: "rf-1", Time: t0,
		Profile: "live", BaseURL: "https://gw.example/ccpayment", Invoice: "INV-1", Amount: "5.00", Currency: "TRY", Ref: "RF-1"}
	out := in
	out.Type, out.Outcome = journal.TypeOutcome, journal.Unknown
	for _, e := range []journal.Entry{in, out} {
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Close()

	_, _, err = runSettle(t, open("ayse"), false, "", "rf-1", "--as", "made", "--reason", "the bank statement shows it", "--yes")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindJournalRefused || !strings.Contains(err.Error(), "not a desk lead") ||
		!strings.Contains(cmdutil.HintOf(err), "paycli journal init --url URL --lead ROLE") {
		t.Errorf("an operator's settlement: %v (kind %v, hint %q), want exit 9 naming the remedy", err, k, cmdutil.HintOf(err))
	}
	if _, _, err := runSettle(t, open("zeynep"), false, "", "rf-1", "--as", "made", "--reason", "the bank statement shows it", "--yes"); err != nil {
		t.Fatalf("the lead's settlement: %v", err)
	}
	s, err = open("ayse")()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded || !got[0].SettledByLead() || got[0].SettledBy != "zeynep" ||
		got[0].Reconciled.Reason != "the bank statement shows it" {
		t.Errorf("after the lead's settlement: %+v, %v", got, err)
	}
}

// TestSettleLocksIdentity: an attempt whose line carries an earlier
// paycli's account name is locked on the account's identity, the lock the
// money commands take: while one holds it, nothing is written (review 41).
func TestSettleLocksIdentity(t *testing.T) {
	path := settleFixture(t)
	unlock, err := journal.OpenFile(path, time.Now).Lock(context.Background(), "identity", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ios, _, _, _ := iostreams.Test()
	opts := &SettleOptions{Deps: cmdutil.Deps{IO: ios, Now: func() time.Time { return t0 }, Format: func() (render.Format, error) { return render.Table, nil }},
		Journal: func() (journal.Store, error) { return journal.OpenFile(path, time.Now), nil }, Kinds: kindtest.Paycli(),
		Who: func() (string, string) { return "ayse", "desk-1" }, Attempt: "rf-unknown", As: settleMade, Reason: "the bank says so", Yes: true,
		Account: func() (Account, error) {
			return Account{Identity: "identity", Scope: journal.Scope{Gateway: "identity"}.WithAlias("acct")}, nil
		}}
	if err := settleRun(context.Background(), opts); err == nil {
		t.Fatal("settled while the account's identity holds the invoice's lock")
	} else if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate {
		t.Errorf("kind %v (%v), want exit 6", k, err)
	}
}
