package pgjournal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestSpoolKeyedByRole (issue 39, item 8): ayşe and mehmet share one
// machine account, so one state folder. Her refund's outcome (made) is
// spooled while the database is down; mehmet's next run, as role mehmet,
// must leave it (the database takes an outcome only from its intent's
// role, and would refuse it for good), and her next run writes it: the
// desk sees her refund made, settled by her.
func TestSpoolKeyedByRole(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	dir := t.TempDir()
	open := func(role string, pid int) *Store {
		t.Helper()
		s, err := Open(ctx, Options{URL: srv.URL(role, db), SpoolDir: dir, Now: func() time.Time { return t0 }, PID: pid})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ayse := open("ayse", 1)
	in := intent("att-ayse", "INV-1", "RF-1")
	if err := ayse.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	down, cancel := context.WithCancel(ctx)
	cancel()
	if err := ayse.Append(down, outcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("her outcome with the database down: %v, want it spooled", err)
	}
	warned := ""
	mehmet, err := Open(ctx, Options{URL: srv.URL("mehmet", db), SpoolDir: dir, Now: func() time.Time { return t0 }, PID: 2,
		Warn: func(s string) { warned += s }})
	if err != nil {
		t.Fatal(err)
	}
	defer mehmet.Close()
	if err := mehmet.SpoolError(); err != nil || strings.Contains(warned, "refused") {
		t.Errorf("mehmet's run over her spooled line: %v, warned %q", err, warned)
	}
	if refused, _ := os.ReadDir(dir); len(refused) != 1 {
		t.Errorf("the state folder after mehmet's run holds %d files, want her spool alone", len(refused))
	}
	open("ayse", 3)
	got, err := mehmet.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.Succeeded || got[0].SettledBy != "ayse" {
		t.Errorf("her refund after her next run: %+v, %v; want made, settled by ayse", got, err)
	}
}

// TestSharedSpoolLeftToEachRole: a spool an older paycli wrote for every
// role of the database holds outcomes of ayşe's and of mehmet's attempts;
// mehmet's run writes his and leaves hers in it, hers writes hers.
func TestSharedSpoolLeftToEachRole(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	dir := t.TempDir()
	open := func(role string, pid int) *Store {
		t.Helper()
		s, err := Open(ctx, Options{URL: srv.URL(role, db), SpoolDir: dir, Now: func() time.Time { return t0 }, PID: pid})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ayse, mehmet := open("ayse", 1), open("mehmet", 2)
	hers, his := intent("att-ayse", "INV-1", "RF-1"), intent("att-mehmet", "INV-2", "RF-2")
	if err := ayse.Append(ctx, hers); err != nil {
		t.Fatal(err)
	}
	if err := mehmet.Append(ctx, his); err != nil {
		t.Fatal(err)
	}
	conn, err := ayse.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, shared, _, err := spoolFor(ctx, conn.Conn(), dir)
	conn.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := appendLines(shared, []journal.Entry{outcome(hers, journal.Succeeded, 100), outcome(his, journal.Declined, 51)}); err != nil {
		t.Fatal(err)
	}
	classes := func() (string, string) {
		got, err := ayse.Attempts(ctx, "INV-1", "INV-2")
		if err != nil || len(got) != 2 {
			t.Fatalf("attempts: %+v, %v", got, err)
		}
		return got[0].Class(), got[1].Class()
	}
	open("mehmet", 3)
	if a, m := classes(); a != journal.Unknown || m != journal.Declined {
		t.Errorf("after mehmet's run: hers %s, his %s; want hers left unknown, his declined", a, m)
	}
	open("ayse", 4)
	if a, _ := classes(); a != journal.Succeeded {
		t.Errorf("after her run: hers %s, want made", a)
	}
	if refused, _ := filepath.Glob(filepath.Join(dir, "*.refused")); len(refused) > 0 {
		t.Errorf("lines were set aside as refused: %v", refused)
	}
}
