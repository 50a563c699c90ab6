package pgjournal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestRefusedOutcomeSetAside: an outcome the database refuses (here
// another operator's forged settlement) would be refused again, so Append
// sets it aside beside the spool and says where; a refused intent is only
// refused (nothing was sent, there is nothing to keep).
func TestRefusedOutcomeSetAside(t *testing.T) {
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	mehmet := openStore(t, srv, db, "mehmet", Options{Spool: spool, PID: 202})
	rf := intent("att-1", "INV-1", "RF-1")
	for _, e := range []journal.Entry{rf, outcome(rf, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	forged := outcome(rf, journal.Declined, 41)
	forged.Time = rf.Time.Add(time.Minute)
	var refused *RefusedError
	err := mehmet.Append(ctx, forged)
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "the line is kept in "+spool+".refused") {
		t.Fatalf("a refused outcome: %v, want refused and kept aside", err)
	}
	kept, err := os.ReadFile(spool + ".refused")
	if err != nil || strings.Count(string(kept), "\n") != 1 || !strings.Contains(string(kept), `"att-1"`) || !strings.Contains(string(kept), journal.Declined) {
		t.Errorf("set aside: %q, %v; want att-1's declined outcome", kept, err)
	}
	if err := os.Remove(spool + ".refused"); err != nil {
		t.Fatal(err)
	}

	sbx := intent("s-1", "SBX-1", "")
	sbx.Gateway = "sandbox-0123abcd"
	err = mehmet.Append(ctx, sbx)
	if !errors.As(err, &refused) || strings.Contains(err.Error(), "kept in") {
		t.Errorf("a refused intent: %v, want refused, not kept", err)
	}
	if _, err := os.Stat(spool + ".refused"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused intent was set aside: %v", err)
	}
}
