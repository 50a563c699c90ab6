package pgjournal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paycli/paycli/internal/journal"
)

// TestOperatorCannotLockTheDeskOut (issue 39, item 6): an operator cannot
// LOCK TABLE the register of invoice locks, nor the lines, in a mode that
// holds back paycli's own writes; holding the most he may (ACCESS SHARE
// on the register, ROW EXCLUSIVE on the lines) in an open transaction,
// another operator still takes an invoice's lock, writes her intent and
// releases it.
func TestOperatorCannotLockTheDeskOut(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := connect(t, srv.URL("mehmet", db))
	for _, table := range []string{"paycli.invoice_locks", "paycli.journal_lines"} {
		for _, mode := range []string{"SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"} {
			tx, err := mehmet.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tx.Exec(ctx, fmt.Sprintf("LOCK TABLE %s IN %s MODE NOWAIT", table, mode))
			_ = tx.Rollback(ctx)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Errorf("LOCK TABLE %s IN %s MODE as an operator: %v, want permission denied (42501)", table, mode, err)
			}
		}
	}
	tx, err := mehmet.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // the test's end
	for _, sql := range []string{
		"LOCK TABLE paycli.invoice_locks IN ACCESS SHARE MODE",
		"LOCK TABLE paycli.journal_lines IN ROW EXCLUSIVE MODE",
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s as an operator: %v", sql, err)
		}
	}
	bounded, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	unlock, err := ayse.Lock(bounded, "gw-1", "INV-LOCKED", "refund")
	if err != nil {
		t.Fatalf("her lock while mehmet holds what he may: %v", err)
	}
	if err := ayse.Append(bounded, intent("att-1", "INV-LOCKED", "RF-1")); err != nil {
		t.Errorf("her intent while mehmet holds what he may: %v", err)
	}
	unlock()
}

// TestLockTakenByHandNamesItsHolder (issue 39, item 6): a role that takes
// an invoice's advisory lock by hand (pg_advisory_lock in psql), with no
// row in the register, is named to whoever is refused: its role and
// server process; and its client address and the start of its session
// when the journal's owner may read other roles' sessions.
func TestLockTakenByHandNamesItsHolder(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	// A role with no right on the journal at all.
	srv.Role(t, "intruder")
	srv.Exec(t, db, "GRANT CONNECT ON DATABASE "+pgx.Identifier{db}.Sanitize()+" TO intruder")
	by := connect(t, srv.URL("intruder", db)+"&application_name=psql")
	var pid int
	if err := by.QueryRow(ctx, "SELECT pg_backend_pid() FROM (SELECT pg_advisory_lock($1)) l", lockKey("gw-1", "INV-1")).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	refused := func() journal.Holder {
		t.Helper()
		_, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
		var inFlight *journal.InFlightError
		if !errors.As(err, &inFlight) {
			t.Fatalf("her lock on an invoice taken by hand: %v, want in flight", err)
		}
		if h := inFlight.Holder; h.User != "intruder" || h.PID != pid || h.Command != "database session (psql)" {
			t.Errorf("holder %+v, want the intruder's psql session in pid %d", h, pid)
		}
		if say := inFlight.Say("INV-1"); !strings.Contains(say, fmt.Sprintf("a database session (psql) on invoice INV-1 is in flight in pid %d", pid)) ||
			!strings.Contains(say, "intruder") {
			t.Errorf("she is told %q, want the session named", say)
		}
		return inFlight.Holder
	}
	refused()
	// The owner made able to read other roles' sessions: where and since when too.
	srv.Exec(t, db, "GRANT pg_read_all_stats TO desk_admin")
	var start time.Time
	if err := admin.QueryRow(ctx, "SELECT backend_start FROM pg_stat_activity WHERE pid = $1", pid).Scan(&start); err != nil {
		t.Fatal(err)
	}
	if h := refused(); h.Host != "127.0.0.1" || !h.Since.Equal(start) {
		t.Errorf("holder %+v, want host 127.0.0.1 since %s", h, start)
	}
}

// TestGrantAndStepSixAgree: a role granted before schema step 6 (with
// UPDATE and DELETE on the register, as Grant gave them) has, once step 6
// is applied, the very rights Grant gives a role from then on: none that
// locks a table beyond what paycli needs, and the register's functions.
func TestGrantAndStepSixAgree(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db := srv.Database(t, "desk_admin")
	srv.Role(t, "ayse")
	srv.Role(t, "mehmet")
	ctx := context.Background()
	owner := connect(t, srv.URL("desk_admin", db))
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, _, err := migrateOne(ctx, owner, ms[:5]); err != nil {
			t.Fatal(err)
		}
	}
	// Grant as it was until step 6.
	if _, err := owner.Exec(ctx, `GRANT USAGE ON SCHEMA paycli TO ayse;
GRANT SELECT, INSERT ON paycli.journal_lines TO ayse;
GRANT SELECT ON paycli.schema_migrations TO ayse;
GRANT SELECT, INSERT, UPDATE, DELETE ON paycli.invoice_locks TO ayse`); err != nil {
		t.Fatal(err)
	}
	if applied, err := Migrate(ctx, owner); err != nil || len(applied) != len(ms)-5 {
		t.Fatalf("steps after 5: %v, %v", applied, err)
	}
	if err := Grant(ctx, owner, "mehmet"); err != nil {
		t.Fatal(err)
	}
	rights := func(role string) string {
		var out string
		err := owner.QueryRow(ctx, `SELECT string_agg(o || ' ' || p || ' ' || CASE WHEN k = 'f' THEN has_function_privilege($1, o, p)::text
    ELSE has_table_privilege($1, o, p)::text END, ', ' ORDER BY o, p)
FROM (SELECT t AS o, p, 't' AS k FROM unnest(ARRAY['paycli.journal_lines', 'paycli.invoice_locks', 'paycli.schema_migrations']) t,
          unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) p
      UNION ALL
      SELECT f, 'EXECUTE', 'f' FROM unnest(ARRAY['paycli.hold_invoice_lock(bigint, text, text, text, int, text, text)',
          'paycli.release_invoice_lock(bigint)', 'paycli.invoice_lock_holder(bigint)']) f) x`, role).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	before, now := rights("ayse"), rights("mehmet")
	if before != now {
		t.Errorf("rights granted before step 6, after it:\n%s\nrights Grant gives:\n%s", before, now)
	}
	for _, forbidden := range []string{"paycli.invoice_locks UPDATE true", "paycli.invoice_locks DELETE true", "paycli.invoice_locks INSERT true",
		"paycli.journal_lines UPDATE true", "paycli.invoice_lock_holder(bigint) EXECUTE false"} {
		if strings.Contains(now, forbidden) {
			t.Errorf("an operator's rights hold %q: %s", forbidden, now)
		}
	}
}
