package pgjournal

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
	"github.com/paycli/paycli/internal/testkit/ports"
)

func TestAppendAttemptsFind(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	s := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	in := intent("att-1", "INV-1", "RF-1")
	for _, e := range []journal.Entry{in, outcome(in, journal.Succeeded, 100), intent("att-2", "INV-2", "")} {
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// The same line again (an import, a spool written twice) is one line.
	if err := s.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded || got[0].Intent.Ref != "RF-1" {
		t.Fatalf("Attempts(INV-1) = %+v, %v", got, err)
	}
	all, err := s.Attempts(ctx)
	if err != nil || len(all) != 2 || all[1].Recorded() {
		t.Fatalf("Attempts() = %+v, %v", all, err)
	}
	for _, name := range []string{"RF-1", "att-1"} {
		if found, err := s.Find(ctx, name); err != nil || len(found) != 1 || found[0].Intent.Attempt != "att-1" || !found[0].Recorded() {
			t.Errorf("Find(%s) = %+v, %v", name, found, err)
		}
	}
	if found, _ := s.Find(ctx, "nope"); len(found) != 0 {
		t.Errorf("Find(nope) = %+v", found)
	}
}

// TestLockIsHeldAcrossOperators: one operator's lock refuses another's at
// once, saying who, where and since when; it is released by unlock, and by
// the death of the holder's session.
func TestLockIsHeldAcrossOperators(t *testing.T) {
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
	_, err = mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	var inFlight *journal.InFlightError
	if !errors.As(err, &inFlight) {
		t.Fatalf("second operator's lock: %v, want in flight", err)
	}
	if h := inFlight.Holder; h.Command != "refund" || h.PID != 101 || h.User != "ayse" || h.Host != "desk-1" || h.Since.Sub(ayse.DatabaseTime(t0)).Abs() > time.Hour {
		t.Errorf("holder %+v", h)
	}
	// Another invoice, or the same invoice on another account, is free.
	for _, k := range [][2]string{{"gw-1", "INV-2"}, {"gw-2", "INV-1"}} {
		u, err := mehmet.Lock(ctx, k[0], k[1], "refund")
		if err != nil {
			t.Errorf("lock %v: %v", k, err)
			continue
		}
		u()
	}
	// Within one process the second taker is refused too.
	if _, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund"); !errors.As(err, &inFlight) {
		t.Errorf("same process, same invoice: %v", err)
	}
	unlock()
	u2, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	// The holder's session dies (its process was killed): the server
	// releases the lock.
	srv.Exec(t, db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'mehmet' AND datname = current_database()")
	deadline := time.Now().Add(10 * time.Second)
	for {
		u3, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
		if err == nil {
			u3()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lock still held after its session died: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	u2() // the session is gone: nothing to release, and no panic
}

// TestDatabaseDown: an intent is refused while the database is down (no
// journal, no payment); an outcome is kept in the spool and written by
// the next Open.
func TestDatabaseDown(t *testing.T) {
	t.Parallel()
	srv := pgtest.Start(t) // stopped and restarted: a server of its own
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	opts := Options{URL: srv.URL("ayse", db), Spool: spool, Now: func() time.Time { return t0 }, PID: 7}
	s, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := intent("att-1", "INV-1", "RF-1")
	if err := s.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	var unavailable *UnavailableError
	if err := s.Append(ctx, intent("att-2", "INV-2", "")); !errors.As(err, &unavailable) {
		t.Errorf("intent with the database down: %v, want unavailable", err)
	}
	if err := s.Append(ctx, outcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("outcome with the database down: %v, want spooled", err)
	}
	if _, err := os.Stat(spool); err != nil {
		t.Fatalf("spool: %v", err)
	}
	if _, err := Open(ctx, opts); !errors.As(err, &unavailable) {
		t.Errorf("Open with the database down: %v", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded {
		t.Fatalf("after the spool was written: %+v, %v", got, err)
	}
	if left, _ := filepath.Glob(spool + "*"); len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
}

// TestImportIsIdempotent: a file journal's lines, reconciliations that a
// later one replaced included, are written once however often imported;
// the operator is the role that imported them.
func TestImportIsIdempotent(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	s := openAs(t, srv, db, "mehmet", "desk-2", 202)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	in := intent("att-1", "INV-1", "RF-1")
	unknown := outcome(in, journal.Unknown, 0)
	unknown.StatusCode = nil
	rec1 := in
	rec1.Type, rec1.Outcome, rec1.Time = journal.TypeReconcile, journal.Pending, t0.Add(time.Minute)
	rec2 := rec1
	rec2.Outcome, rec2.Time = journal.Succeeded, t0.Add(time.Hour)
	rec2.Evidence = &journal.Evidence{StatusCode: 100, TransactionStatus: "Completed"}
	for _, e := range []journal.Entry{in, unknown, rec1, rec2, intent("att-2", "INV-2", "")} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	entries, _, err := journal.Entries(path)
	if err != nil || len(entries) != 5 {
		t.Fatalf("Entries: %d, %v", len(entries), err)
	}
	if n, err := s.Import(ctx, entries); err != nil || n.Written != 5 || len(n.Refused) != 0 {
		t.Fatalf("first import wrote %+v, %v", n, err)
	}
	if n, err := s.Import(ctx, entries); err != nil || n.Written != 0 || len(n.Refused) != 0 {
		t.Fatalf("second import wrote %+v, %v", n, err)
	}
	got, err := s.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded || got[0].Operator != "mehmet" {
		t.Fatalf("after import: %+v, %v", got, err)
	}
}

// TestWindow: the attempts whose intent falls in the window, whole.
func TestWindow(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	s := openAs(t, srv, db, "ayse", "desk-1", 101)
	for i, at := range []time.Time{t0.Add(-48 * time.Hour), t0.Add(-time.Hour), t0} {
		in := intent(fmt.Sprintf("att-%d", i), fmt.Sprintf("INV-%d", i), "")
		in.Time = at
		if err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
		// An outcome written after the window closes still belongs.
		if err := s.Append(ctx, outcome(in, journal.Declined, 41)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Window(ctx, t0.Add(-2*time.Hour), t0)
	if err != nil || len(got) != 1 || got[0].Intent.Attempt != "att-1" || got[0].Class() != journal.Declined || got[0].Operator != "ayse" {
		t.Fatalf("Window = %+v, %v", got, err)
	}
	if all, err := s.Window(ctx, time.Time{}, time.Time{}); err != nil || len(all) != 3 {
		t.Fatalf("unbounded window: %d, %v", len(all), err)
	}
}

// TestIntentNeedsTheLockStillHeld: an invoice's lock whose session died
// (the server restarted, the connection was cut) is no longer held, and
// another operator may take it; the first operator's intent is then
// refused, so its request is never sent beside the other's.
func TestIntentNeedsTheLockStillHeld(t *testing.T) {
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
	defer unlock()
	// While held, ayse's intent is written (on her lock's session).
	if err := ayse.Append(ctx, intent("att-1", "INV-1", "RF-1")); err != nil {
		t.Fatal(err)
	}
	// Her lock's session dies; her other connections live on.
	srv.Exec(t, db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'ayse' AND datname = current_database() AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')")
	deadline := time.Now().Add(10 * time.Second)
	var mu func()
	for {
		if mu, err = mehmet.Lock(ctx, "gw-1", "INV-1", "refund"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead session's lock is still held: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer mu()
	err = ayse.Append(ctx, intent("att-2", "INV-1", "RF-2"))
	if !errors.Is(err, journal.ErrUnavailable) {
		t.Fatalf("an intent after the lock was lost: %v, want refused as unavailable", err)
	}
	got, _ := mehmet.Attempts(ctx, "INV-1")
	if len(got) != 1 || got[0].Intent.Attempt != "att-1" {
		t.Errorf("attempts %+v, want only att-1", got)
	}
	// An intent on an invoice she does not hold goes through the pool.
	if err := ayse.Append(ctx, intent("att-3", "INV-3", "")); err != nil {
		t.Errorf("an intent without a lock held: %v", err)
	}
}

// TestLockLooksAgainForTheHolder: a lock refused before its holder has
// written who it is names the holder once it has; a lock released by the
// time its holder is looked for is taken rather than refused.
func TestLockLooksAgainForTheHolder(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	key := lockKey("gw-1", "INV-1")
	ayse := connect(t, srv.URL("ayse", db))
	if _, err := ayse.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		t.Fatal(err)
	}
	described := make(chan error, 1)
	time.AfterFunc(60*time.Millisecond, func() {
		_, err := ayse.Exec(context.Background(), "SELECT paycli.hold_invoice_lock($1, 'gw-1', 'INV-1', 'refund', 101, '', '')", key)
		described <- err
	})
	_, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	var inFlight *journal.InFlightError
	if !errors.As(err, &inFlight) || inFlight.Holder.PID != 101 || inFlight.Holder.User != "ayse" {
		t.Errorf("lock taken before its holder wrote its row: %v, want ayşe's refund named", err)
	}
	if err := <-described; err != nil {
		t.Fatal(err)
	}
	if _, err := ayse.Exec(ctx, "SELECT paycli.release_invoice_lock($1)", key); err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	time.AfterFunc(60*time.Millisecond, func() {
		_, err := ayse.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", key)
		released <- err
	})
	unlock, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Errorf("lock released while its holder was looked for: %v, want taken", err)
	} else {
		unlock()
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
}

// cutAfterStartup is a loopback proxy to the server at target that lets a
// session start and cuts the connection at its first query, as a database
// crashing at that moment does.
func cutAfterStartup(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer client.Close()
				server, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer server.Close()
				// The startup message: its length (4 bytes, itself
				// included), then the rest.
				var size [4]byte
				if _, err := io.ReadFull(client, size[:]); err != nil {
					return
				}
				startup := make([]byte, binary.BigEndian.Uint32(size[:])-4)
				if _, err := io.ReadFull(client, startup); err != nil {
					return
				}
				if _, err := server.Write(append(size[:], startup...)); err != nil {
					return
				}
				go func() { _, _ = io.Copy(client, server); client.Close() }()
				var first [1]byte
				_, _ = client.Read(first[:]) // the first query: cut
			}()
		}
	}()
	return ln.Addr().String()
}

// TestOpenCutOffIsUnavailable: a database lost while Open checks the
// schema is unavailable (exit 8, nothing sent), not an unexpected error.
func TestOpenCutOffIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	url := strings.Replace(srv.URL("ayse", db), fmt.Sprintf("127.0.0.1:%d", srv.Port()), cutAfterStartup(t, fmt.Sprintf("127.0.0.1:%d", srv.Port())), 1)
	_, err := Open(context.Background(), Options{URL: url, Now: func() time.Time { return t0 }})
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) {
		t.Errorf("Open cut off at its first query: %v, want unavailable", err)
	}
}

// TestSpoolTakenAsideWhileWritten: another process's Open flushes the
// spool (takes it aside, writes it to the database, removes it) between
// this process opening the spool and writing its line: the line is
// written again, to the new spool, not lost with the old one.
func TestSpoolTakenAsideWhileWritten(t *testing.T) {
	// Not parallel: it sets the package's spoolOpened hook.
	srv := pgtest.Start(t) // stopped: a server of its own
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	opts := Options{URL: srv.URL("ayse", db), Spool: spool, Now: func() time.Time { return t0 }, PID: 7}
	s, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := intent("att-1", "INV-1", "RF-1")
	if err := s.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	flushes := 0
	spoolOpened = func() {
		if flushes++; flushes == 1 {
			// What flushSpool does, the database having nothing to take
			// yet: the spool renamed aside, read, removed.
			aside := spool + ".flushing-8"
			if err := os.Rename(spool, aside); err != nil {
				t.Error(err)
			}
			if err := os.Remove(aside); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { spoolOpened = func() {} }()
	if err := s.Append(ctx, outcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("outcome with the database down: %v", err)
	}
	spooled, _, err := journal.Entries(spool)
	if err != nil || len(spooled) != 1 || spooled[0].Outcome != journal.Succeeded {
		t.Errorf("the spool after a flush took it aside mid-write: %+v, %v; want the outcome", spooled, err)
	}
}

// TestLostLockStaysLostWhenAnotherIsTaken: in one process (batch
// --parallel), a lock lost with its session stays lost when another
// invoice's lock opens a new session: the first invoice's intent is
// refused, not written through the pool beside another operator's.
func TestLostLockStaysLostWhenAnotherIsTaken(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	unlock1, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock1()
	srv.Exec(t, db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'ayse' AND datname = current_database() AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')")
	// Another worker of hers finds the session dead, and the next opens a new one.
	for try := 0; ; try++ {
		unlock2, err := ayse.Lock(ctx, "gw-1", "INV-2", "refund")
		if err == nil {
			defer unlock2()
			break
		}
		if try == 200 {
			t.Fatalf("no new lock session: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Mehmet takes INV-1 meanwhile.
	mu, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("mehmet cannot take the lost lock: %v", err)
	}
	if err := mehmet.Append(ctx, intent("att-m", "INV-1", "RF-M")); err != nil {
		t.Fatal(err)
	}
	err = ayse.Append(ctx, intent("att-a", "INV-1", "RF-A"))
	if !errors.Is(err, journal.ErrUnavailable) {
		t.Fatalf("her intent on the invoice whose lock she lost: %v, want refused as unavailable", err)
	}
	mu()
	// Nor may another of her workers take INV-1 while the first still
	// thinks it holds it: its intent would then go out on the new lock.
	var inFlight *journal.InFlightError
	if _, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund"); !errors.As(err, &inFlight) {
		t.Errorf("a second worker's lock on INV-1 while the first's lost lock is not released: %v, want in flight", err)
	}
	unlock1()
	unlock3, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("INV-1 once the lost lock is released: %v", err)
	}
	unlock3()
}

// TestUnavailableSaysWhyOnOneLine: pgx reports a connection tried more
// than once (sslmode prefer's TLS then plain, a name with two addresses)
// on several lines; paycli prints an error's first line, which must still
// say why.
func TestUnavailableSaysWhyOnOneLine(t *testing.T) {
	t.Parallel()
	port := ports.Reserve(t)                                           // nothing listens there, and no one else's meanwhile
	url := fmt.Sprintf("postgres://ayse:pw@127.0.0.1:%d/paycli", port) // sslmode prefer: tried twice
	_, err := Open(context.Background(), Options{URL: url, PID: 1})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if first, _, _ := strings.Cut(err.Error(), "\n"); !strings.Contains(first, "refused") {
		t.Errorf("first line %q does not say why (%q)", first, err)
	}
	if _, err := Init(context.Background(), url, nil, nil); err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Init: %q, want why on one line", err)
	}
}

func TestSpoolPathIsPerDatabase(t *testing.T) {
	t.Parallel()
	a := SpoolPath("/s", "postgres://ayse@db.example:5432/paycli")
	if !strings.HasPrefix(a, "/s/journal-spool-") || !strings.HasSuffix(a, ".jsonl") {
		t.Errorf("SpoolPath = %s", a)
	}
	for _, same := range []string{"postgres://mehmet:pw@db.example/paycli?sslmode=verify-full", "postgresql://db.example:5432/paycli?password=x"} {
		if got := SpoolPath("/s", same); got != a {
			t.Errorf("SpoolPath(%s) = %s, want %s (the same database)", same, got, a)
		}
	}
	for _, other := range []string{"postgres://ayse@db.example:5432/paycli_test", "postgres://ayse@db2.example:5432/paycli", "postgres://ayse@db.example:5433/paycli"} {
		if got := SpoolPath("/s", other); got == a {
			t.Errorf("SpoolPath(%s) = %s, the same as another database's", other, got)
		}
	}
}

// TestHungDatabaseBoundsEachWrite: a database that takes a line's write
// and never answers (here: the table locked by the owner) refuses an
// intent and spools an outcome once the write's time limit has passed,
// however long the caller's context would have waited.
func TestHungDatabaseBoundsEachWrite(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	s := openStore(t, srv, db, "ayse", Options{Spool: spool, PID: 9, WriteTimeout: 300 * time.Millisecond})
	in := intent("att-1", "INV-1", "RF-1")
	if err := s.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	owner, err := pgx.Connect(ctx, srv.URL(pgtest.Superuser, db))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	tx, err := owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "LOCK TABLE paycli.journal_lines IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { done <- s.Append(ctx, intent("att-2", "INV-2", "RF-2")) }()
	go func() { done <- s.Append(ctx, outcome(in, journal.Succeeded, 100)) }()
	var errs []error
	for range 2 {
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-time.After(20 * time.Second):
			t.Fatal("a write to a hung database still waits")
		}
	}
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
			if !errors.Is(err, journal.ErrUnavailable) {
				t.Errorf("the intent's refusal: %v, want unavailable", err)
			}
		}
	}
	if failed != 1 {
		t.Errorf("errors %v: want the intent refused and the outcome spooled", errs)
	}
	if data, err := os.ReadFile(spool); err != nil || !strings.Contains(string(data), `"att-1"`) {
		t.Errorf("spool %q (%v), want the outcome of att-1", data, err)
	}
}

// TestOpenInvoices: the invoices reconcile reads are those with an
// attempt no outcome settled (no outcome line, or one saying unknown), in
// journal order; a settled attempt's invoice is not among them.
func TestOpenInvoices(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	s := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	if got, err := s.OpenInvoices(ctx); err != nil || len(got) != 0 {
		t.Fatalf("an empty journal: %v, %v", got, err)
	}
	done, unknown, open, again := intent("a1", "INV-DONE", ""), intent("a2", "INV-UNKNOWN", ""), intent("a3", "INV-OPEN", ""), intent("a4", "INV-OPEN", "")
	// again, a later attempt on INV-OPEN, is refused while a3 is unsettled.
	queued := intent("a6", "INV-QUEUED", "RF-6")
	for _, e := range []journal.Entry{done, outcome(done, journal.Succeeded, 100), unknown, outcome(unknown, journal.Unknown, 0), open,
		queued, outcome(queued, "queued", 101)} {
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(ctx, again); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a second intent on INV-OPEN: %v, want ErrUnsettled", err)
	}
	got, err := s.OpenInvoices(ctx)
	if want := []string{"INV-UNKNOWN", "INV-OPEN", "INV-QUEUED"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("OpenInvoices = %q, %v; want %q", got, err, want)
	}
}
