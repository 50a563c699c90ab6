package journalcmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/render"
)

// TestReconcileGoesByTheDatabasesClock (issue 30, defect 3): on a shared
// journal, an operator whose clock is ten minutes fast reconciles a
// walletpay another operator has just sent (the gateway has nothing yet):
// it is still in flight on the database's clock, and is not settled
// not_found.
func TestReconcileGoesByTheDatabasesClock(t *testing.T) {
	t.Parallel()
	opts, _ := reconcileFixture(t, render.JSON)
	srv := pg.Start(t)
	db := srv.Database(t, "desk_admin")
	srv.Role(t, "ayse")
	srv.Role(t, "mehmet")
	ctx := context.Background()
	if _, err := pgjournal.Init(ctx, srv.URL("desk_admin", db), []string{"ayse", "mehmet"}, nil); err != nil {
		t.Fatal(err)
	}
	open := func(role string, now func() time.Time) *pgjournal.Store {
		s, err := pgjournal.Open(ctx, pgjournal.Options{URL: srv.URL(role, db), SpoolDir: t.TempDir(), Now: now, PID: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	// The database's clock, read once: every time below is on it.
	right := open("ayse", func() time.Time { return t0 })
	dbNow := right.DatabaseTime(t0)
	cfg := mustCfg(t, opts)
	identity := journal.Identity(cfg.BaseURL, cfg.AppID)
	in := journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: identity, Attempt: "sent-now", Time: dbNow,
		Deadline: dbNow.Add(30 * time.Second), Profile: cfg.Profile, BaseURL: cfg.BaseURL, Invoice: "NEVER-1", Amount: "10.00", Currency: "TRY"}
	if err := right.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	fast := func() time.Time { return dbNow.Add(10 * time.Minute) }
	opts.Now = fast
	opts.Journal = func() (journal.Store, error) { return open("mehmet", fast), nil }
	_ = reconcileRun(ctx, opts)
	out := opts.IO.Out.(interface{ String() string }).String()
	if !strings.Contains(out, "may still be in flight") || strings.Contains(out, journal.NotFound) {
		t.Errorf("reconcile on a clock ten minutes fast:\n%s", out)
	}
	attempts, err := right.Attempts(ctx, "NEVER-1")
	if err != nil || len(attempts) != 1 || attempts[0].Class() != journal.Unknown {
		t.Errorf("NEVER-1 in the journal: %+v, %v", attempts, err)
	}
}
