package pgjournal

// The desk's fixtures, which every test of the package shares: a desk
// database (deskDB), stores opened on it as an operator, the clocks of a
// writer ten minutes slow and of one on time, and journal lines.

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

var t0 = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

// deskDB is a database of its own on srv, owned by a desk admin, with the
// journal's schema and two operator roles granted by Grant: a copy of a
// database migrated once per server, with a journal identity of its own
// (Migrate mints one per journal; a copy would keep the template's).
func deskDB(t *testing.T, srv *pgtest.Server) (db string, admin *pgx.Conn) {
	t.Helper()
	db = srv.DatabaseFrom(t, "desk_admin", "desk", func(t testing.TB, template string) {
		srv.Role(t, "ayse")
		srv.Role(t, "mehmet")
		conn, err := pgx.Connect(context.Background(), srv.URL("desk_admin", template))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := Migrate(context.Background(), conn); err != nil {
			t.Fatal(err)
		}
		for _, r := range []string{"ayse", "mehmet"} {
			if err := Grant(context.Background(), conn, r); err != nil {
				t.Fatal(err)
			}
		}
	})
	srv.Exec(t, db, "UPDATE paycli.journal_identity SET id = gen_random_uuid()")
	return db, connect(t, srv.URL("desk_admin", db))
}

// openStore opens the desk's journal db on srv as role with o, whose URL
// it sets; a spool of the test's own and the clock t0 unless o gives
// them. The store is closed at the test's end.
func openStore(t *testing.T, srv *pgtest.Server, db, role string, o Options) *Store {
	t.Helper()
	o.URL = srv.URL(role, db)
	if o.Spool == "" && o.SpoolDir == "" {
		o.Spool = filepath.Join(t.TempDir(), "spool.jsonl")
	}
	if o.Now == nil {
		o.Now = func() time.Time { return t0 }
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// skewedClocks are the clock of a writer ten minutes slow and of one on
// time, read from the database's (admin's connection).
func skewedClocks(t *testing.T, admin *pgx.Conn) (slow, right func() time.Time) {
	t.Helper()
	var dbNow time.Time
	if err := admin.QueryRow(context.Background(), "SELECT clock_timestamp()").Scan(&dbNow); err != nil {
		t.Fatal(err)
	}
	return func() time.Time { return dbNow.Add(-10 * time.Minute) }, func() time.Time { return dbNow }
}

// openAs opens the desk's journal db as role, an operator on host with
// process pid.
func openAs(t *testing.T, srv *pgtest.Server, db, role, host string, pid int) *Store {
	t.Helper()
	return openStore(t, srv, db, role, Options{OSUser: role + "-os", Host: host, PID: pid, Application: "paycli/test"})
}

func intent(attempt, invoice, ref string) journal.Entry {
	return journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: "gw-1", Attempt: attempt, Time: t0,
		Profile: "live", BaseURL: "https://gw.example/ccpayment", Invoice: invoice, Amount: "50.00", Currency: "TRY", Ref: ref}
}

func outcome(in journal.Entry, class string, code int) journal.Entry {
	o := in
	o.Type, o.Outcome, o.StatusCode, o.Time = journal.TypeOutcome, class, &code, in.Time.Add(time.Second)
	return o
}

// settled is a reconcile line settling in's attempt as class, with the
// gateway's answer as evidence.
func settled(in journal.Entry, class string) journal.Entry {
	e := in
	e.Type, e.Outcome, e.Time, e.Deadline = journal.TypeReconcile, class, in.Time.Add(time.Hour), time.Time{}
	e.Via, e.Evidence = journal.ViaReconcile, &journal.Evidence{StatusCode: 100, TransactionStatus: "Completed"}
	return e
}

// of is in as another kind.
func of(in journal.Entry, kind string) journal.Entry {
	in.Kind = kind
	if kind != "refund" {
		in.Ref = ""
	}
	return in
}
