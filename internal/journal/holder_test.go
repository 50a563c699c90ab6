package journal_test

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestLockNamesItsHolder: a command refused because another holds the
// invoice is told who: the command, pid, host and OS user, since when.
func TestLockNamesItsHolder(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skipf("no current user to compare with: %v", err)
	}
	t0 := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), journal.FileName)
	f := journal.OpenFile(path, func() time.Time { return t0 })
	unlock, err := f.Lock(context.Background(), "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	host, _ := os.Hostname()
	_, err = journal.OpenFile(path, time.Now).Lock(context.Background(), "gw-1", "INV-1", "capture")
	var inFlight *journal.InFlightError
	if !errors.As(err, &inFlight) {
		t.Fatalf("a second lock: %v, want in flight", err)
	}
	if h := inFlight.Holder; h.Command != "refund" || h.PID != os.Getpid() || h.Host != host || h.User != u.Username || !h.Since.Equal(t0) {
		t.Errorf("holder %+v, want refund, pid %d, %s, %s, since %s", h, os.Getpid(), host, u.Username, t0)
	}
}
