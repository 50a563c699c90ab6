package pgjournal

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// TestListSaysWhoAndWhere: List keeps the invoice's or the window's
// attempts, each with the role that wrote its intent and the OS user and
// host it was written from, though another role wrote its outcome.
func TestListSaysWhoAndWhere(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	a1 := intent("att-1", "INV-1", "RF-1")
	a2 := intent("att-2", "INV-2", "")
	a2.Time = t0.Add(2 * time.Hour)
	for _, w := range []struct {
		s *Store
		e journal.Entry
	}{{ayse, a1}, {ayse, outcome(a1, journal.Unknown, 0)}, {mehmet, settled(a1, journal.Succeeded)}, {mehmet, a2}} {
		if err := w.s.Append(ctx, w.e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ayse.List(ctx, "INV-1", time.Time{}, time.Time{})
	if err != nil || len(got) != 1 {
		t.Fatalf("List(INV-1) = %+v, %v", got, err)
	}
	if a := got[0]; a.Operator != "ayse" || a.OSUser != "ayse-os" || a.Host != "desk-1" || a.Class() != journal.Succeeded || a.SettledBy != "mehmet" {
		t.Errorf("INV-1: operator %q, os user %q, host %q, %s settled by %q; want ayse, ayse-os, desk-1, succeeded by mehmet", a.Operator, a.OSUser, a.Host, a.Class(), a.SettledBy)
	}
	got, err = ayse.List(ctx, "", t0.Add(time.Hour), time.Time{})
	if err != nil || len(got) != 1 || got[0].Intent.Attempt != "att-2" || got[0].Operator != "mehmet" || got[0].Host != "desk-2" {
		t.Fatalf("List(since t0+1h) = %+v, %v; want att-2 by mehmet at desk-2", got, err)
	}
	got, err = ayse.List(ctx, "INV-1", t0.Add(time.Hour), time.Time{})
	if err != nil || len(got) != 0 {
		t.Fatalf("List(INV-1, since t0+1h) = %+v, %v; want none", got, err)
	}
}

// TestSpoolWaitsWhileTheDatabaseRefusesWrites: an outcome spooled while
// the database was down, which it then will not take (read-only), stays
// in the spool: Open works, says why (SpoolError), Spooled returns it and
// the database's story is still unknown; once writes are taken again the
// next Open writes it.
func TestSpoolWaitsWhileTheDatabaseRefusesWrites(t *testing.T) {
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
	if err := s.Append(ctx, outcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("outcome with the database down: %v, want spooled", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	srv.Exec(t, "postgres", "ALTER DATABASE "+db+" SET default_transaction_read_only = on")
	s2, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("Open with a read-only database: %v", err)
	}
	defer s2.Close()
	var unavailable *UnavailableError
	if err := s2.SpoolError(); !errors.As(err, &unavailable) {
		t.Errorf("SpoolError() = %v, want why the spool waits", err)
	}
	// Another process's outcome, refused meanwhile, starts a new spool
	// beside the one Open set aside.
	if err := s.Append(ctx, outcome(intent("att-2", "INV-2", ""), journal.Declined, 41)); err != nil {
		t.Fatalf("outcome with the database read-only: %v, want spooled", err)
	}
	spooled, where, err := s2.Spooled()
	if err != nil || len(spooled) != 2 || spooled[0].Attempt != "att-1" || spooled[0].Outcome != journal.Succeeded || spooled[1].Attempt != "att-2" || where != spool {
		t.Fatalf("Spooled() = %+v, %q, %v; want att-1's outcome, then att-2's, in %s", spooled, where, err, spool)
	}
	got, err := s2.List(ctx, "INV-1", time.Time{}, time.Time{})
	if err != nil || len(got) != 1 || got[0].Recorded() {
		t.Fatalf("List(INV-1) while spooled = %+v, %v; want its intent alone", got, err)
	}
	srv.Exec(t, "postgres", "ALTER DATABASE "+db+" SET default_transaction_read_only = off")
	s3, err := Open(ctx, opts)
	if err != nil || s3.SpoolError() != nil {
		t.Fatalf("Open once writes are taken: %v, spool: %v", err, s3.SpoolError())
	}
	defer s3.Close()
	if spooled, _, _ := s3.Spooled(); len(spooled) != 0 {
		t.Errorf("Spooled() after the flush = %+v, want none", spooled)
	}
	if got, err := s3.Attempts(ctx, "INV-1"); err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded {
		t.Fatalf("after the spool was written: %+v, %v", got, err)
	}
}

// TestListIsInTimeOrderAfterImport: an import writes older attempts after
// newer ones; List still returns them by when each started, not by when
// the database took its lines.
func TestListIsInTimeOrderAfterImport(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	newer := intent("att-new", "INV-NEW", "")
	newer.Time = t0.Add(2 * time.Hour)
	if err := ayse.Append(ctx, newer); err != nil {
		t.Fatal(err)
	}
	older := intent("att-old", "INV-OLD", "")
	oldest := intent("att-oldest", "INV-OLDEST", "")
	oldest.Time = t0.Add(-time.Hour)
	if _, err := ayse.Import(ctx, []journal.Entry{older, outcome(older, journal.Succeeded, 100), oldest}); err != nil {
		t.Fatal(err)
	}
	got, err := ayse.List(ctx, "", time.Time{}, time.Time{})
	if err != nil || len(got) != 3 {
		t.Fatalf("List = %+v, %v", got, err)
	}
	var order []string
	for _, a := range got {
		order = append(order, a.Intent.Attempt)
	}
	if want := []string{"att-oldest", "att-old", "att-new"}; !slices.Equal(order, want) {
		t.Errorf("List order %v, want %v (by intent time)", order, want)
	}
}
