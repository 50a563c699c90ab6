//go:build unix

package journalcmd

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

// TestJournalRefusesFIFO: a named pipe where the journal should be is an
// error at once.
func TestJournalRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	ios, _, _, _ := iostreams.Test()
	opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return render.Table, nil }, Now: time.Now}, MoneyKinds: kindtest.Paycli(),
		Journal: fileJournal(path)}
	done := make(chan error, 1)
	go func() { done <- journalRun(context.Background(), opts) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("paycli journal hangs on a FIFO")
	}
}
