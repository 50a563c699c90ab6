package pgjournal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
	"github.com/paycli/paycli/internal/testkit/userenv"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pg is the package's shared PostgreSQL server (tests that stop it start
// their own).
var pg pgtest.Shared

func TestMain(m *testing.M) {
	userenv.Clear() // the tests link internal/config (kindtest's commands)
	pgtest.MoreParallel(6)
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

func TestMigrationsAreNumbered(t *testing.T) {
	t.Parallel()
	ms, err := migrations()
	if err != nil || len(ms) == 0 || SchemaVersion() != len(ms) {
		t.Fatalf("%d migrations, %v", len(ms), err)
	}
}

// TestMigrateIsIdempotentAndSerialised: a second run applies nothing;
// four runs at once on an empty database apply each step once.
func TestMigrateIsIdempotentAndSerialised(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	j := srv.Database(t, pgtest.Superuser)
	var wg sync.WaitGroup
	results := make([][]int, 4)
	errs := make([]error, 4)
	for i := range 4 {
		conn := connect(t, srv.URL(pgtest.Superuser, j))
		wg.Go(func() { results[i], errs[i] = Migrate(context.Background(), conn) })
	}
	wg.Wait()
	total := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		total += len(results[i])
	}
	if total != SchemaVersion() {
		t.Errorf("concurrent runs applied %v, want each of %d steps once", results, SchemaVersion())
	}
	conn := connect(t, srv.URL(pgtest.Superuser, j))
	if again, err := Migrate(context.Background(), conn); err != nil || len(again) != 0 {
		t.Errorf("second run applied %v, %v", again, err)
	}
	if err := CheckSchema(context.Background(), conn); err != nil {
		t.Errorf("CheckSchema after Migrate: %v", err)
	}
}

func TestCheckSchema(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	j := srv.Database(t, pgtest.Superuser)
	conn := connect(t, srv.URL(pgtest.Superuser, j))
	if err := CheckSchema(context.Background(), conn); !errors.Is(err, ErrNoSchema) {
		t.Errorf("empty database: %v, want ErrNoSchema", err)
	}
	if _, err := Migrate(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "INSERT INTO paycli.schema_migrations (version, name) VALUES ($1, 'future')", SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	var newer *NewerSchemaError
	if err := CheckSchema(context.Background(), conn); !errors.As(err, &newer) {
		t.Errorf("newer schema: %v", err)
	}
	if _, err := Migrate(context.Background(), conn); !errors.As(err, &newer) {
		t.Errorf("Migrate on a newer schema: %v", err)
	}
}

// TestOperatorsCanOnlyAppend: as operator roles, INSERT and SELECT work;
// UPDATE, DELETE and TRUNCATE are refused by the database, and the
// operator recorded is the role that inserted, whatever it sent.
func TestOperatorsCanOnlyAppend(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ayse := connect(t, srv.URL("ayse", db))
	ctx := context.Background()
	if _, err := ayse.Exec(ctx, `INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, at, entry, operator)
VALUES ('a1', 'intent', 'refund', 'g', 'INV-1', now(),
 '{"type":"intent","kind":"refund","gateway":"g","attempt":"a1","invoice":"INV-1","time":"2026-11-24T09:30:00Z"}', 'mehmet')`); err != nil {
		t.Fatalf("operator insert: %v", err)
	}
	var op string
	if err := ayse.QueryRow(ctx, "SELECT operator FROM paycli.journal_lines WHERE attempt = 'a1'").Scan(&op); err != nil || op != "ayse" {
		t.Errorf("operator recorded %q (%v), want ayse", op, err)
	}
	for _, conn := range []*pgx.Conn{ayse, connect(t, srv.URL("mehmet", db))} {
		for _, sql := range []string{
			"UPDATE paycli.journal_lines SET outcome = 'succeeded'",
			"DELETE FROM paycli.journal_lines",
			"TRUNCATE paycli.journal_lines",
			"ALTER TABLE paycli.journal_lines DISABLE TRIGGER journal_lines_append_only",
			"DROP TABLE paycli.journal_lines",
		} {
			_, err := conn.Exec(ctx, sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Errorf("%s as %s: %v, want permission denied (42501)", sql, conn.Config().User, err)
			}
		}
	}
	// Not even the owner changes history (the triggers).
	for _, sql := range []string{"UPDATE paycli.journal_lines SET outcome = 'x'", "DELETE FROM paycli.journal_lines", "TRUNCATE paycli.journal_lines"} {
		if _, err := admin.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s as the owner: %v, want the append-only refusal", sql, err)
		}
	}
}

func TestGrantRoles(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	_, admin := deskDB(t, srv)
	var noRole *NoRoleError
	if err := Grant(context.Background(), admin, "nobody"); !errors.As(err, &noRole) {
		t.Errorf("Grant(nobody) = %v", err)
	}
	// A role name that needs quoting is granted, not run as SQL.
	srv.Exec(t, "postgres", `CREATE ROLE "night desk; DROP TABLE paycli.journal_lines" LOGIN`)
	if err := Grant(context.Background(), admin, "night desk; DROP TABLE paycli.journal_lines"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM paycli.journal_lines").Scan(&n); err != nil {
		t.Fatalf("the journal is gone: %v", err)
	}
}

// TestOperatorsCannotChangeTheSchemaVersion: the schema's version is the
// owner's to write.
func TestOperatorsCannotChangeTheSchemaVersion(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := connect(t, srv.URL("ayse", db))
	for _, sql := range []string{
		"INSERT INTO paycli.schema_migrations (version, name) VALUES (99, 'x')",
		"UPDATE paycli.schema_migrations SET version = 99",
		"DELETE FROM paycli.schema_migrations",
		"TRUNCATE paycli.schema_migrations",
	} {
		_, err := ayse.Exec(context.Background(), sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
			t.Errorf("%s as an operator: %v, want permission denied (42501)", sql, err)
		}
	}
}

// TestOperatorsCannotTouchAnothersLock: the row that says who holds an
// invoice's lock cannot be removed, changed, replaced or truncated by
// another operator while the lock is held, so that the refusal another
// operator sees names the real holder; once it is released, the next
// taker replaces it.
func TestOperatorsCannotTouchAnothersLock(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	unlock, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, srv.URL("mehmet", db))
	// He holds no right on the register but SELECT (schema step 6), and
	// the owner's functions write only the row of a lock his session holds.
	if _, err := conn.Exec(ctx, "SELECT paycli.release_invoice_lock($1)", lockKey("gw-1", "INV-1")); err != nil {
		t.Errorf("release_invoice_lock of ayşe's key as another operator: %v, want it to remove nothing", err)
	}
	for _, sql := range []string{
		"DELETE FROM paycli.invoice_locks",
		"UPDATE paycli.invoice_locks SET command = 'status', pid = 1, host = 'elsewhere'",
		`INSERT INTO paycli.invoice_locks (key, gateway, invoice, command, pid, since)
SELECT key, gateway, invoice, 'status', 1, now() FROM paycli.invoice_locks
ON CONFLICT (key) DO UPDATE SET command = 'status', pid = 1`,
		"TRUNCATE paycli.invoice_locks",
		fmt.Sprintf("SELECT paycli.hold_invoice_lock(%d, 'gw-1', 'INV-1', 'status', 1, '', 'elsewhere')", lockKey("gw-1", "INV-1")),
	} {
		if _, err := conn.Exec(ctx, sql); err == nil {
			t.Errorf("%s as another operator: no error", sql)
		}
	}
	_, err = mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	var inFlight *journal.InFlightError
	if !errors.As(err, &inFlight) || inFlight.Holder.PID != 101 || inFlight.Holder.User != "ayse" || inFlight.Holder.Command != "refund" {
		t.Errorf("mehmet's lock after his attempts on ayşe's row: %v, want ayşe's refund in pid 101", err)
	}
	unlock()
	u, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("after ayşe's unlock: %v", err)
	}
	u()
}
