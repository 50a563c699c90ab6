//go:build unix

package moneyop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// TestJournalThroughSymlinkSharesLocks: two homes, one journal.jsonl a
// symbolic link to the other's (made before the file exists, and after):
// one invoice is one lock, so of two refunds at once one is sent and the
// other refused (exit 6), nothing sent.
func TestJournalThroughSymlinkSharesLocks(t *testing.T) {
	for _, before := range []bool{true, false} {
		homeA, homeB := t.TempDir(), t.TempDir()
		real := filepath.Join(homeA, journal.FileName)
		link := filepath.Join(homeB, journal.FileName)
		if !before {
			if err := os.WriteFile(real, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		first := journal.OpenFile(real, time.Now)
		unlock, err := first.Lock(context.Background(), testIdentity, "INV-1", "refund")
		if err != nil {
			t.Fatal(err)
		}
		opts, _ := lockedOptions(t)
		opts.JournalPath = func() (string, error) { return link, nil }
		opts.Journal = func() (journal.Store, error) { return journal.OpenFile(link, time.Now), nil }
		op := &kindOp{kind: "refund"}
		err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
		unlock()
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || len(op.sent) != 0 {
			t.Errorf("link made before the file %v: err %v (kind %v), sent %v; want exit 6, nothing sent", before, err, k, op.sent)
		}
	}
}

// TestLockFolderUnusableRefused: a journal whose lock folder cannot be
// made is refused with a clear error (exit 2), nothing sent.
func TestLockFolderUnusableRefused(t *testing.T) {
	dir := t.TempDir()
	jpath := filepath.Join(dir, journal.FileName)
	// A file where the lock folder would be.
	if err := os.WriteFile(jpath+journal.LocksSuffix, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	opts, _ := lockedOptions(t)
	opts.Journal = func() (journal.Store, error) { return journal.OpenFile(jpath, time.Now), nil }
	op := &kindOp{kind: "refund"}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !errors.As(err, new(*journal.LockFolderError)) ||
		!strings.Contains(err.Error(), "lock folder") || len(op.sent) != 0 {
		t.Errorf("err %v (kind %v), sent %v; want exit 2 naming the lock folder", err, k, op.sent)
	}
}
