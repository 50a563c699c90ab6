package pgjournal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// TestOutcomeNotSpooledIsAnError: an outcome the database did not take
// (here the write was cut off) is kept in the spool and Append says
// nothing; one the spool cannot keep either (its folder is a file) is an
// error that names both failures, never reported as kept.
func TestOutcomeNotSpooledIsAnError(t *testing.T) {
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	in := intent("att-1", "INV-1", "RF-1")
	cutOff, cancel := context.WithCancel(ctx)
	cancel()

	dir := t.TempDir()
	kept := filepath.Join(dir, "spool.jsonl")
	s := openStore(t, srv, db, "ayse", Options{Spool: kept, PID: 7})
	if err := s.Append(cutOff, outcome(in, journal.Succeeded, 100)); err != nil {
		t.Fatalf("outcome cut off with a spool to keep it: %v, want kept", err)
	}
	if spooled, _, err := s.Spooled(); err != nil || len(spooled) != 1 || spooled[0].Attempt != "att-1" {
		t.Errorf("Spooled() = %+v, %v; want att-1's outcome", spooled, err)
	}

	notADir := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	lost := filepath.Join(notADir, "spool.jsonl")
	s2 := openStore(t, srv, db, "ayse", Options{Spool: lost, PID: 8})
	err := s2.Append(cutOff, outcome(intent("att-2", "INV-2", "RF-2"), journal.Succeeded, 100))
	if !errors.Is(err, journal.ErrUnavailable) || !strings.Contains(err.Error(), "keeping it in "+lost+" failed too") {
		t.Errorf("outcome neither written nor spooled: %v, want an outage that says the spool failed too", err)
	}
}
