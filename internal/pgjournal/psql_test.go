//go:build unix

package pgjournal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// forgedLinesRefused says whether the database refuses an operator's
// line that settles another operator's attempt (issue 30, item 4). While
// false, the cases marked forged run in report mode: accepted is logged
// as the known defect, and refused fails, asking for this line to be
// flipped to true (then they fail when accepted, as every other case).
const forgedLinesRefused = true

// psqlBinary is the psql client of the PostgreSQL that pgtest runs.
func psqlBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	if len(found) > 0 {
		slices.Sort(found)
		return found[len(found)-1]
	}
	if os.Getenv(pgtest.RequireEnv) == "1" {
		t.Fatal("psql not found (install postgresql-client)")
	}
	t.Skip("psql not found (install postgresql-client)")
	return ""
}

// TestOperatorRulesUnderPsql holds the shared journal's own rules
// (privileges, triggers, row-level security, constraints) against an
// operator who skips paycli and types SQL into psql with the rights
// `journal init --grant` gives. ayse has an attempt of unknown outcome;
// mehmet tries to change history, switch the rules off, or settle her
// attempt for her. Each refusal must leave every line as it was.
func TestOperatorRulesUnderPsql(t *testing.T) {
	psql := psqlBinary(t)
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	// ayse's refund, sent and never answered: its intent only.
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	victim := intent("att-ayse", "INV-PSQL", "RF-AYSE")
	if err := ayse.Append(ctx, victim); err != nil {
		t.Fatal(err)
	}
	// A line of ayse's attempt as mehmet would type it (the columns a
	// client fills; the database stamps the rest).
	forged := func(typ, outcome string) string {
		return `INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, outcome, at, intent_at, entry)
VALUES ('att-ayse', '` + typ + `', 'refund', 'gw-1', 'INV-PSQL', '` + outcome + `', now(), now(),
 '{"type":"` + typ + `","kind":"refund","gateway":"gw-1","attempt":"att-ayse","time":"2026-11-24T09:31:00Z","profile":"live",
   "base_url":"https://gw.example/ccpayment","invoice":"INV-PSQL","amount":"50.00","currency":"TRY","card":"","outcome":"` + outcome + `"}')`
	}
	cases := []struct {
		name, role, sql string
		// forged: a line that settles another's attempt (forgedLinesRefused).
		forged bool
	}{
		{"update a line", "mehmet", "UPDATE paycli.journal_lines SET outcome = 'declined'", false},
		{"delete a line", "mehmet", "DELETE FROM paycli.journal_lines", false},
		{"truncate", "mehmet", "TRUNCATE paycli.journal_lines", false},
		{"drop the append-only trigger", "mehmet", "DROP TRIGGER journal_lines_append_only ON paycli.journal_lines", false},
		{"disable the triggers", "mehmet", "ALTER TABLE paycli.journal_lines DISABLE TRIGGER ALL", false},
		{"replica role, then update", "mehmet", "SET session_replication_role = replica; UPDATE paycli.journal_lines SET outcome = 'declined'", false},
		{"upsert over an intent", "mehmet", forged("intent", "") + " ON CONFLICT (attempt, type, at) DO UPDATE SET outcome = 'declined'", false},
		{"drop the table", "mehmet", "DROP TABLE paycli.journal_lines", false},
		{"grant himself update, then update", "mehmet", "GRANT UPDATE ON paycli.journal_lines TO mehmet; UPDATE paycli.journal_lines SET outcome = 'declined'", false},
		{"forged declined outcome", "mehmet", forged("outcome", "declined"), true},
		{"forged succeeded outcome", "mehmet", forged("outcome", "succeeded"), true},
		{"forged not_found reconcile without evidence", "mehmet", forged("reconcile", "not_found"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := journalRows(t, admin)
			out, err := runPsql(psql, srv.URL(c.role, db), c.sql)
			after := journalRows(t, admin)
			refused := err != nil
			changed := !slices.Equal(before, after)
			switch {
			case c.forged && !forgedLinesRefused && !refused:
				t.Logf("known defect (issue 30, item 4): as %s, %q was accepted: %s", c.role, c.name, strings.Join(newRows(before, after), "; "))
			case c.forged && !forgedLinesRefused:
				t.Errorf("as %s, %q is refused now (%s): flip forgedLinesRefused to true in psql_test.go", c.role, c.name, out)
			case !refused:
				t.Errorf("as %s, psql ran %q: %s", c.role, c.sql, out)
			case changed:
				t.Errorf("as %s, %q was refused (%s) but the journal changed: %v", c.role, c.name, out, newRows(before, after))
			case !strings.Contains(out, "ERROR"):
				t.Errorf("as %s, %q failed without the database's refusal: %s", c.role, c.name, out)
			}
		})
	}
	// Not vacuous: ayse may still write her own attempt's outcome in psql,
	// and a line mehmet sends as ayse's is recorded as his.
	if out, err := runPsql(psql, srv.URL("ayse", db), forged("outcome", journal.Declined)); err != nil {
		t.Errorf("ayse's own outcome in psql was refused: %s", out)
	}
	if out, err := runPsql(psql, srv.URL("mehmet", db), `INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, at, intent_at, entry, operator)
VALUES ('att-mehmet', 'intent', 'refund', 'gw-1', 'INV-OTHER', now(), now(),
 '{"type":"intent","kind":"refund","gateway":"gw-1","attempt":"att-mehmet","invoice":"INV-OTHER","time":"2026-11-24T09:30:00Z"}', 'ayse')`); err == nil {
		var op string
		if err := admin.QueryRow(ctx, "SELECT operator FROM paycli.journal_lines WHERE attempt = 'att-mehmet'").Scan(&op); err != nil || op != "mehmet" {
			t.Errorf("mehmet's line sent as ayse's is recorded as %q's (%v)", op, err)
		}
	} else if !strings.Contains(out, "ERROR") {
		t.Errorf("mehmet's line sent as ayse's: %s", out)
	}
}

// runPsql runs sql in psql at url, stopping at the first error, and
// returns what psql printed.
func runPsql(psql, url, sql string) (string, error) {
	cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PSQLRC=/dev/null")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// journalRows is every line of the journal as text, read as the owner.
func journalRows(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT t::text FROM paycli.journal_lines t ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newRows are the rows of after that before does not have.
func newRows(before, after []string) []string {
	var out []string
	for _, r := range after {
		if !slices.Contains(before, r) {
			out = append(out, r)
		}
	}
	return out
}

// TestLineColumnsAreItsEntry (issue 39, item 5): with psql, mehmet
// inserts a line of ayşe's attempt whose columns say "reconcile, outcome
// unknown" (no rule applies to such a line) and whose entry, which
// paycli reads, says "outcome: declined". The database takes the columns
// from the entry, or refuses an entry paycli would read otherwise: the
// line is refused (an outcome of another role's attempt), and ayşe's
// attempt stays unknown for the readers and blocks the invoice for the
// rules alike.
func TestLineColumnsAreItsEntry(t *testing.T) {
	psql := psqlBinary(t)
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	if err := ayse.Append(ctx, intent("att-ayse", "INV-COLS", "RF-AYSE")); err != nil {
		t.Fatal(err)
	}
	line := func(entry string) string {
		return `INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, outcome, at, intent_at, entry)
VALUES ('att-ayse', 'reconcile', 'refund', 'gw-1', 'INV-COLS', 'unknown', now(), now(), '` + entry + `')`
	}
	declined := `"attempt":"att-ayse","time":"2026-11-24T09:31:00Z","profile":"live","base_url":"https://gw.example/ccpayment",
 "invoice":"INV-COLS","amount":"50.00","currency":"TRY","card":"","ref":"RF-AYSE"`
	for _, c := range []struct{ name, entry string }{
		{"entry says declined", `{"type":"outcome","kind":"refund","gateway":"gw-1","outcome":"declined",` + declined + `}`},
		{"declined under a name in capitals", `{"type":"reconcile","kind":"refund","gateway":"gw-1","outcome":"unknown","Outcome":"declined",` + declined + `}`},
		{"declined on another invoice", `{"type":"outcome","kind":"refund","gateway":"gw-1","outcome":"declined",` +
			strings.Replace(declined, "INV-COLS", "INV-ELSE", 1) + `}`},
		{"a field paycli cannot read", `{"type":"reconcile","kind":"refund","gateway":"gw-1","outcome":"unknown","status_code":"100",` + declined + `}`},
		{"an entry that is no object", `["outcome","declined"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := journalRows(t, admin)
			out, err := runPsql(psql, srv.URL("mehmet", db), line(c.entry))
			if err == nil || !strings.Contains(out, "ERROR") {
				t.Errorf("psql as mehmet took the line: %s %s", out, strings.Join(newRows(before, journalRows(t, admin)), "; "))
			}
		})
	}
	got, err := ayse.Attempts(ctx, "INV-COLS")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Unknown {
		t.Errorf("ayşe's attempt as paycli reads it: %+v, %v; want unknown", got, err)
	}
	var open int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM paycli.unsettled_attempts('gw-1', 'INV-COLS')").Scan(&open); err != nil || open != 1 {
		t.Errorf("unsettled attempts on INV-COLS as the database counts them: %d, %v; want 1", open, err)
	}
}
