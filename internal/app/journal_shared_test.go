package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cli/journalcmd"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// listingDesk is a shared journal on a real PostgreSQL server, with the operator
// roles ayse and mehmet, and a home for paycli whose profile uses it.
type listingDesk struct {
	srv  *pgtest.Server
	db   string
	home string
	env  map[string]string
	// width, when set, makes stdout a terminal that wide.
	width int
}

// newListingDesk is a listing desk on the package's shared server (a
// database of its own); newListingDeskOn takes a server the test may stop.
func newListingDesk(t *testing.T) *listingDesk {
	t.Helper()
	return newListingDeskOn(t, deskPostgres.Start(t))
}

func newListingDeskOn(t *testing.T, srv *pgtest.Server) *listingDesk {
	t.Helper()
	// A copy of a journal made once per server, with an identity of its
	// own (Init mints one per journal; a copy would keep the template's).
	db := srv.DatabaseFrom(t, "desk_admin", "listing desk", func(t testing.TB, template string) {
		srv.Role(t, "ayse")
		srv.Role(t, "mehmet")
		if _, err := pgjournal.Init(context.Background(), srv.URL("desk_admin", template), []string{"ayse", "mehmet"}, nil); err != nil {
			t.Fatal(err)
		}
	})
	srv.Exec(t, db, "UPDATE paycli.journal_identity SET id = gen_random_uuid()")
	home := t.TempDir()
	d := &listingDesk{srv: srv, db: db, home: home, env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"PAYCLI_JOURNAL": srv.URL("ayse", db)}}
	return d
}

// run runs paycli with the desk's environment (PAYCLI_JOURNAL: ayse's).
func (d *listingDesk) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	if d.width > 0 {
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(d.width)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := Run(ctx, args, ios, func(k string) (string, bool) { v, ok := d.env[k]; return v, ok })
	return code, out.String(), errOut.String()
}

// stateDir is paycli's state folder in the desk's home.
func (d *listingDesk) stateDir() string { return filepath.Join(d.home, "state", "paycli") }

// store opens the shared journal as role, writing from host, with the
// spool of the desk's home.
func (d *listingDesk) store(t *testing.T, role, host string) *pgjournal.Store {
	t.Helper()
	s, err := pgjournal.Open(context.Background(), pgjournal.Options{URL: d.srv.URL(role, d.db), SpoolDir: d.stateDir(),
		Now: time.Now, OSUser: role + "-os", Host: host, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// day is the desk's day in the examples, in the zone --since reads.
var day = time.Date(2026, 11, 24, 9, 0, 0, 0, time.Local)

func deskEntry(typ, kind, attempt, invoice, amount string, at time.Time) journal.Entry {
	return journal.Entry{Type: typ, Kind: kind, Gateway: "gw-live", Attempt: attempt, Time: at, Profile: "live",
		BaseURL: "https://gw.example/ccpayment", Invoice: invoice, Amount: amount, Currency: "TRY", Card: "435508******4358"}
}

func deskOutcome(in journal.Entry, class string, code int) journal.Entry {
	o := in
	o.Type, o.Outcome, o.StatusCode, o.Time = journal.TypeOutcome, class, &code, in.Time.Add(time.Second)
	return o
}

// seed writes the desk's day: ayse's two refunds (one succeeded, one
// declined) and a walletpay, mehmet's refund (succeeded) and a refund
// whose outcome is unknown; and one of ayse's the day before.
func (d *listingDesk) seed(t *testing.T) {
	t.Helper()
	ayse, mehmet := d.store(t, "ayse", "desk-1"), d.store(t, "mehmet", "desk-2")
	ctx := context.Background()
	r1 := deskEntry(journal.TypeIntent, "refund", "a-1", "INV-1", "100.50", day)
	r2 := deskEntry(journal.TypeIntent, "refund", "a-2", "INV-2", "20.25", day.Add(time.Hour))
	w3 := deskEntry(journal.TypeIntent, "walletpay", "a-3", "INV-3", "300.00", day.Add(2*time.Hour))
	m1 := deskEntry(journal.TypeIntent, "refund", "m-1", "INV-4", "40.00", day.Add(3*time.Hour))
	m2 := deskEntry(journal.TypeIntent, "refund", "m-2", "INV-5", "5.00", day.Add(4*time.Hour))
	old := deskEntry(journal.TypeIntent, "refund", "a-0", "INV-0", "999.00", day.Add(-20*time.Hour))
	for _, w := range []struct {
		s *pgjournal.Store
		e journal.Entry
	}{
		{ayse, old}, {ayse, deskOutcome(old, journal.Succeeded, 100)},
		{ayse, r1}, {ayse, deskOutcome(r1, journal.Succeeded, 100)},
		{ayse, r2}, {ayse, deskOutcome(r2, journal.Declined, 41)},
		{ayse, w3}, {ayse, deskOutcome(w3, journal.Succeeded, 100)},
		{mehmet, m1}, {mehmet, deskOutcome(m1, journal.Succeeded, 100)},
		{mehmet, m2},
	} {
		if err := w.s.Append(ctx, w.e); err != nil {
			t.Fatal(err)
		}
	}
}

// invoicesOf is the invoices of a JSON listing, and its records.
func invoicesOf(t *testing.T, stdout string) ([]string, []journalcmd.Record) {
	t.Helper()
	var records []journalcmd.Record
	if err := json.Unmarshal([]byte(stdout), &records); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var invoices []string
	for _, r := range records {
		invoices = append(invoices, r.Invoice)
	}
	return invoices, records
}

// TestSharedJournalListing: `paycli journal` on a profile whose journal
// is shared reads it, names each attempt's operator (BY, operator,
// os_user, host), keeps one operator's with --by, and keeps --invoice and
// the window's filters.
func TestSharedJournalListing(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	d.seed(t)
	day := "--since=2026-11-24"
	code, stdout, stderr := d.run(t, "journal", day, "--until=2026-11-24")
	if code != ExitOK {
		t.Fatalf("journal: exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(strings.Join(strings.Fields(lines[0]), " "), "TIME BY PROFILE KIND INVOICE") {
		t.Fatalf("journal: want a header with BY and 5 rows:\n%s", stdout)
	}
	// Newest first; a time is one word (a clock time, or a date).
	for i, by := range []string{"mehmet", "mehmet", "ayse", "ayse", "ayse"} {
		if f := strings.Fields(lines[i+1]); len(f) < 2 || f[1] != by {
			t.Errorf("row %d: BY is not %s:\n%s", i+1, by, lines[i+1])
		}
	}
	if !strings.Contains(stderr, "1 invoice has an unknown outcome: INV-5.") || !strings.Contains(stderr, "paycli journal reconcile --profile live") {
		t.Errorf("journal: the footer does not name INV-5 and its reconcile:\n%s", stderr)
	}

	// On an 80-column terminal the table fits, one line per attempt, and
	// keeps BY.
	d.width = 80
	_, stdout, _ = d.run(t, "journal", day, "--until=2026-11-24")
	d.width = 0
	if n := strings.Count(stdout, "\n"); n != 6 {
		t.Errorf("journal on 80 columns: %d lines for 5 attempts:\n%s", n, stdout)
	}
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("journal on 80 columns: a line of %d:\n%s", len([]rune(l)), stdout)
		}
	}
	if !strings.Contains(stdout, "BY") || !strings.Contains(stdout, "mehmet") {
		t.Errorf("journal on 80 columns lost BY:\n%s", stdout)
	}

	// --by is the old name of --operator, and still works.
	for _, flag := range []string{"--operator", "--by"} {
		code, stdout, stderr = d.run(t, "journal", day, "--until=2026-11-24", flag, "mehmet", "-o", "json")
		if invoices, _ := invoicesOf(t, stdout); code != ExitOK || !slices.Equal(invoices, []string{"INV-5", "INV-4"}) {
			t.Fatalf("journal %s mehmet: exit %d, invoices %v\n%s", flag, code, invoices, stderr)
		}
	}
	if !strings.Contains(stderr, "use --operator") {
		t.Errorf("journal --by does not point at --operator:\n%s", stderr)
	}
	code, stdout, stderr = d.run(t, "journal", day, "--until=2026-11-24", "--operator", "mehmet", "-o", "json")
	invoices, records := invoicesOf(t, stdout)
	if code != ExitOK || !slices.Equal(invoices, []string{"INV-5", "INV-4"}) {
		t.Fatalf("journal --operator mehmet: exit %d, invoices %v\n%s", code, invoices, stderr)
	}
	r := records[1]
	if r.Operator == nil || *r.Operator != "mehmet" || r.OSUser == nil || *r.OSUser != "mehmet-os" || r.Host == nil || *r.Host != "desk-2" ||
		r.Spooled != nil || r.Outcome != journal.Succeeded {
		t.Errorf("INV-4's record: %s", stdout)
	}
	for _, key := range []string{`"operator": "mehmet"`, `"os_user": "mehmet-os"`, `"host": "desk-2"`, `"spooled_outcome": null`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("journal -o json: no %s in\n%s", key, stdout)
		}
	}

	_, stdout, _ = d.run(t, "journal", "--operator", "ayse,mehmet", "--outcome", "succeeded", "-o", "json")
	if invoices, _ := invoicesOf(t, stdout); !slices.Equal(invoices, []string{"INV-4", "INV-3", "INV-1", "INV-0"}) {
		t.Errorf("journal --operator ayse,mehmet --outcome succeeded: %v", invoices)
	}
	_, stdout, _ = d.run(t, "journal", "--operator", "ayse", "--operator", "mehmet", "--kind", "walletpay", "-o", "json")
	if invoices, _ := invoicesOf(t, stdout); !slices.Equal(invoices, []string{"INV-3"}) {
		t.Errorf("journal --operator ayse --operator mehmet --kind walletpay: %v", invoices)
	}
	_, stdout, _ = d.run(t, "journal", "--invoice", "INV-2", "-o", "json")
	if invoices, records := invoicesOf(t, stdout); !slices.Equal(invoices, []string{"INV-2"}) || records[0].Outcome != journal.Declined || *records[0].Operator != "ayse" {
		t.Errorf("journal --invoice INV-2: %s", stdout)
	}
	_, stdout, _ = d.run(t, "journal", "--since", "2026-11-23", "--until", "2026-11-23", "-o", "json")
	if invoices, _ := invoicesOf(t, stdout); !slices.Equal(invoices, []string{"INV-0"}) {
		t.Errorf("journal on 2026-11-23: %v", invoices)
	}
	code, stdout, _ = d.run(t, "journal", "--invoice", "INV-1", "-o", "csv")
	if code != ExitOK || !strings.Contains(strings.Split(stdout, "\n")[0], ",operator,os_user,host,spooled_outcome,") ||
		!strings.Contains(strings.Split(stdout, "\n")[1], ",ayse,ayse-os,desk-1,") {
		t.Errorf("journal -o csv:\n%s", stdout)
	}
}

// TestByNeedsASharedJournal: --operator (and its old name --by) on a
// profile whose journal is the file is refused (exit 2, saying why), and
// the file's JSON has null operators.
func TestByNeedsASharedJournal(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	path := filepath.Join(home, "state", "paycli", journal.FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	in := deskEntry(journal.TypeIntent, "refund", "a-1", "INV-1", "10.00", day)
	if err := j.Append(in); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	run := func(args ...string) (int, string, string) {
		ios, _, out, errOut := iostreams.Test()
		code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		return code, out.String(), errOut.String()
	}
	for _, flag := range []string{"--operator", "--by"} {
		code, stdout, stderr := run("journal", flag, "ayse")
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--operator needs a shared journal") || !strings.Contains(stderr, "paycli config set journal") {
			t.Errorf("journal %s on a file journal: exit %d\n%s%s", flag, code, stdout, stderr)
		}
	}
	code, stdout, _ := run("journal", "-o", "json")
	for _, key := range []string{`"operator": null`, `"os_user": null`, `"host": null`} {
		if code != ExitOK || !strings.Contains(stdout, key) {
			t.Errorf("journal -o json on a file journal: exit %d, no %s in\n%s", code, key, stdout)
		}
	}
	code, stdout, _ = run("journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24", "-o", "json")
	if code != ExitOK || !strings.Contains(stdout, `"operator": null`) || !strings.Contains(stdout, `"outcome": "unknown"`) {
		t.Errorf("journal summary on a file journal: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run("journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24")
	if f := strings.Fields(strings.Split(stdout, "\n")[1]); code != ExitOK || len(f) < 3 || f[0] != journalcmd.NoOperator {
		t.Errorf("journal summary's table on a file journal: BY is not %s:\n%s", journalcmd.NoOperator, stdout)
	}
	code, _, stderr := run("journal", "import")
	if code != ExitUsage || !strings.Contains(stderr, "this profile has no shared journal to import into") {
		t.Errorf("journal import without a shared journal: exit %d\n%s", code, stderr)
	}
}

// TestSharedJournalSummary: the day's totals by operator, kind and
// outcome, checked exactly; the day before is left out.
func TestSharedJournalSummary(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	d.seed(t)
	code, stdout, stderr := d.run(t, "journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24", "-o", "json")
	if code != ExitOK {
		t.Fatalf("summary: exit %d\n%s", code, stderr)
	}
	var got []journalcmd.SummaryRecord
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	type row struct {
		by, kind, outcome string
		attempts          int
		amounts           string
	}
	want := []row{
		{"ayse", "refund", "declined", 1, "20.25 TRY"},
		{"ayse", "refund", "succeeded", 1, "100.50 TRY"},
		{"ayse", "walletpay", "succeeded", 1, "300.00 TRY"},
		{"mehmet", "refund", "succeeded", 1, "40.00 TRY"},
		{"mehmet", "refund", "unknown", 1, "5.00 TRY"},
	}
	var rows []row
	for _, r := range got {
		var amounts []string
		for _, a := range r.Amounts {
			amounts = append(amounts, a.Amount+" "+a.Currency)
		}
		rows = append(rows, row{*r.Operator, r.Kind, r.Outcome, r.Attempts, strings.Join(amounts, ", ")})
	}
	if !slices.Equal(rows, want) {
		t.Errorf("summary:\n got %v\nwant %v", rows, want)
	}
	code, stdout, stderr = d.run(t, "journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24")
	if code != ExitOK || !strings.Contains(stdout, "mehmet  refund     unknown") || !strings.Contains(stderr, "5 attempts by 2 operators, from 2026-11-24") {
		t.Errorf("summary's table: exit %d\n%s%s", code, stdout, stderr)
	}
	d.width = 80
	_, stdout, _ = d.run(t, "journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24")
	d.width = 0
	for _, l := range strings.Split(stdout, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("summary's table is wider than 80 columns:\n%s", stdout)
		}
	}
	code, stdout, _ = d.run(t, "journal", "summary", "--since", "2026-11-24", "--until", "2026-11-24", "-o", "csv")
	if code != ExitOK || !strings.Contains(stdout, "operator,kind,outcome,attempts,currency,amount,unreadable_amounts,account\nayse,refund,declined,1,TRY,20.25,0,\n") {
		t.Errorf("summary -o csv:\n%s", stdout)
	}
	if code, _, stderr := d.run(t, "journal", "summary"); code != ExitUsage || !strings.Contains(stderr, "missing --since") {
		t.Errorf("summary without --since: exit %d\n%s", code, stderr)
	}
}

// TestSharedJournalImport: this machine's file journal is copied into the
// shared one once, however often imported; a damaged line is reported and
// left out, the rest imported; the sandbox's attempts stay here.
func TestSharedJournalImport(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	path := filepath.Join(d.stateDir(), journal.FileName)
	if err := os.MkdirAll(d.stateDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	in1 := deskEntry(journal.TypeIntent, "refund", "f-1", "FILE-1", "10.00", day)
	in2 := deskEntry(journal.TypeIntent, "walletpay", "f-2", "FILE-2", "20.00", day.Add(time.Hour))
	sandboxed := deskEntry(journal.TypeIntent, "walletpay", "s-1", "SBX-1", "1.00", day)
	// An older paycli's sandbox line: its gateway identity an unprefixed
	// hash, made under the sandbox's profile at a loopback address.
	sandboxed.Gateway, sandboxed.Profile, sandboxed.BaseURL = "0123456789abcdef", "sandbox", "http://127.0.0.1:8080/ccpayment"
	for _, e := range []journal.Entry{in1, deskOutcome(in1, journal.Succeeded, 100), in2, sandboxed} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	// A line torn by a failed write, between whole ones.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"outcome","attempt":"f-2","inv` + "\n")
	_ = f.Close()

	code, stdout, stderr := d.run(t, "journal", "import", "-o", "json")
	var res journalcmd.ImportResult
	if code != ExitOK || json.Unmarshal([]byte(stdout), &res) != nil || res.Imported != 3 || res.Skipped != 0 || res.Sandbox != 1 || res.Damaged != 1 {
		t.Fatalf("first import: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "1 line of "+path+" could not be read") {
		t.Errorf("first import does not report the damaged line:\n%s", stderr)
	}
	code, stdout, stderr = d.run(t, "journal", "import")
	if code != ExitOK || !strings.Contains(stdout, "Imported 0 lines from "+path+" into the shared journal at postgres://xxxxx@") || !strings.Contains(stdout, "; 3 skipped (already there).") {
		t.Fatalf("second import: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stdout, _ = d.run(t, "journal", "-o", "json")
	invoices, records := invoicesOf(t, stdout)
	if !slices.Equal(invoices, []string{"FILE-2", "FILE-1"}) || records[1].Outcome != journal.Succeeded || *records[1].Operator != "ayse" {
		t.Errorf("the shared journal after the import: %s", stdout)
	}
	if code, _, stderr := d.run(t, "journal", "import", "--from", filepath.Join(d.home, "nothing.jsonl")); code != ExitUsage || !strings.Contains(stderr, "invalid --from: no file") {
		t.Errorf("import --from a missing file: exit %d\n%s", code, stderr)
	}
}

// TestSharedJournalSpoolAndDown: an outcome spooled while the database
// was down is listed as pending while the database will not take it
// (read-only), with a note saying where it waits; the database down, the
// listing is exit 8 with the URL's password masked; once writes are taken
// the outcome is written and listed.
func TestSharedJournalSpoolAndDown(t *testing.T) {
	t.Parallel()
	d := newListingDeskOn(t, pgtest.Start(t)) // stopped: a server of its own
	d.env["PAYCLI_JOURNAL"] = strings.Replace(d.srv.URL("ayse", d.db), "ayse@", "ayse:s3cret-pw@", 1)
	s := d.store(t, "ayse", "desk-1")
	ctx := context.Background()
	in := deskEntry(journal.TypeIntent, "refund", "a-1", "INV-1", "100.50", day)
	if err := s.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := d.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, deskOutcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("outcome with the database down: %v, want spooled", err)
	}

	code, stdout, stderr := d.run(t, "journal")
	if code != ExitUnavailable || stdout != "" || strings.Contains(stderr, "s3cret-pw") ||
		!strings.HasPrefix(stderr, "error: the shared journal at postgres://xxxxx@127.0.0.1:") || !strings.Contains(stderr, "Check that the database runs") {
		t.Errorf("journal with the database down: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"journal", "summary", "--since", "2026-11-24"}, {"journal", "import"}} {
		if code, _, stderr := d.run(t, args...); code != ExitUnavailable || strings.Contains(stderr, "s3cret-pw") {
			t.Errorf("%v with the database down: exit %d\n%s", args, code, stderr)
		}
	}

	if err := d.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	d.srv.Exec(t, "postgres", "ALTER DATABASE "+d.db+" SET default_transaction_read_only = on")
	code, stdout, stderr = d.run(t, "journal")
	if code != ExitOK || !strings.Contains(stdout, "pending (spooled)") || !strings.Contains(stdout, "the outcome is succeeded") {
		t.Errorf("journal with the outcome spooled: exit %d\n%s%s", code, stdout, stderr)
	}
	spool := filepath.Join(d.stateDir(), "journal-spool-db-") // named by the database's identity
	if !strings.Contains(stderr, "1 outcome waits in "+spool) || !strings.Contains(stderr, " for the shared journal") || strings.Contains(stderr, "unknown outcome") {
		t.Errorf("journal with the outcome spooled: the note is not\n%s", stderr)
	}
	_, stdout, _ = d.run(t, "journal", "-o", "json")
	if _, records := invoicesOf(t, stdout); len(records) != 1 || records[0].Spooled == nil || *records[0].Spooled != journal.Succeeded || records[0].Outcome != journal.Unknown {
		t.Errorf("journal -o json with the outcome spooled:\n%s", stdout)
	}

	d.srv.Exec(t, "postgres", "ALTER DATABASE "+d.db+" SET default_transaction_read_only = off")
	code, stdout, stderr = d.run(t, "journal", "-o", "json")
	if _, records := invoicesOf(t, stdout); code != ExitOK || len(records) != 1 || records[0].Spooled != nil || records[0].Outcome != journal.Succeeded || withoutClockWarning(stderr) != "" {
		t.Errorf("journal once the spool is written: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestSharedJournalSchemaNotUsable: a database without the journal's
// schema (journal init not run, or the role not granted) or with a newer
// one is the configuration's to fix (exit 2), naming the database and who
// fixes it; nothing is sent.
func TestSharedJournalSchemaNotUsable(t *testing.T) {
	t.Parallel()
	d := newListingDesk(t)
	bare := d.srv.Database(t, "desk_admin")
	d.env["PAYCLI_BASE_URL"] = "http://127.0.0.1:1/ccpayment"
	d.env["PAYCLI_APP_ID"], d.env["PAYCLI_APP_SECRET"], d.env["PAYCLI_MERCHANT_KEY"] = "app", "secret", "key"
	commands := [][]string{{"journal"}, {"journal", "summary", "--since", "today"}, {"journal", "import"},
		{"refund", "--invoice", "INV-1", "--amount", "1.00", "--yes"}}
	for _, tc := range []struct{ url, want, hint string }{
		{d.srv.URL("ayse", bare), "holds no paycli journal", "paycli journal init"},
		{d.srv.URL("ayse", d.db), "newer than this paycli knows", "Upgrade paycli"},
	} {
		if tc.want == "newer than this paycli knows" {
			d.srv.Exec(t, d.db, "INSERT INTO paycli.schema_migrations (version, name) VALUES (99, 'future')")
		}
		d.env["PAYCLI_JOURNAL"] = tc.url
		for _, args := range commands {
			code, _, stderr := d.run(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, "the shared journal at postgres://xxxxx@127.0.0.1:") ||
				!strings.Contains(stderr, tc.want) || !strings.Contains(stderr, tc.hint) {
				t.Errorf("%v on %s: exit %d, want 2 saying %q and %q\n%s", args, tc.url, code, tc.want, tc.hint, stderr)
			}
		}
	}
}

// withoutClockWarning is a command's stderr less the warning that this
// machine's clock is far from the database's: the test's clock may be
// moved (.ci/timeshift.sh) while the database's server is not.
func withoutClockWarning(stderr string) string {
	var kept []string
	for line := range strings.SplitSeq(stderr, "\n") {
		if !strings.HasPrefix(line, "warning: this machine's clock is ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
