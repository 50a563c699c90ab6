package journalcmd

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
	"github.com/spf13/cobra"
)

// bareStore is a third journal, neither the file nor the shared one: the
// Store contract and nothing more (no path, no index, no totals of its
// own). Issue 32, item 3: the commands ask a journal what it can do, never
// which it is; a store they did not know fell into "internal error".
type bareStore struct{ inner journal.Store }

func (b bareStore) Append(ctx context.Context, e journal.Entry) error { return b.inner.Append(ctx, e) }
func (b bareStore) Attempts(ctx context.Context, invoices ...string) ([]journal.Attempt, error) {
	return b.inner.Attempts(ctx, invoices...)
}
func (b bareStore) Find(ctx context.Context, name string) ([]journal.Attempt, error) {
	return b.inner.Find(ctx, name)
}
func (b bareStore) Lock(ctx context.Context, gateway, invoice, command string) (func(), error) {
	return b.inner.Lock(ctx, gateway, invoice, command)
}
func (b bareStore) Close() error { return b.inner.Close() }

// TestThirdStore: `paycli journal` (every attempt, an invoice's, a
// window's) and `journal summary` read a store of a test's own as they
// read the file it holds.
func TestThirdStore(t *testing.T) {
	path := writeJournal(t)
	table := func() (render.Format, error) { return render.Table, nil }
	listing := func(f *cmdutil.Factory) *cobra.Command {
		return NewCmdJournal(f, func(ctx context.Context, opts *Options) error {
			opts.Format = table
			return journalRun(ctx, opts)
		})
	}
	summary := func(f *cmdutil.Factory) *cobra.Command {
		return NewCmdSummary(f, func(ctx context.Context, opts *SummaryOptions) error {
			opts.Format = table
			return summaryRun(ctx, opts)
		})
	}
	factory := func(open func() (journal.Store, error)) (*cmdutil.Factory, *iostreams.IOStreams) {
		ios, _, _, _ := iostreams.Test()
		return &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Now: func() time.Time { return t0 }, JournalPath: func() (string, error) { return path, nil }, Journal: open}, ios
	}
	runOn := func(open func() (journal.Store, error), cmd func(*cmdutil.Factory) *cobra.Command, args ...string) string {
		f, ios := factory(open)
		c := cmd(f)
		c.SetArgs(args)
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return ios.Out.(interface{ String() string }).String() + ios.ErrOut.(interface{ String() string }).String()
	}
	bare := func() (journal.Store, error) { return bareStore{journal.OpenFile(path, time.Now)}, nil }
	for _, c := range []struct {
		name string
		cmd  func(*cmdutil.Factory) *cobra.Command
		args []string
		says string
	}{
		{"listing", listing, nil, "CRASH-1"},
		{"an invoice", listing, []string{"--invoice", "OLD-1"}, "OLD-1"},
		{"a window", listing, []string{"--since", "24h"}, "DECL-1"},
		{"summary", summary, []string{"--since", "72h"}, "succeeded"},
	} {
		want := runOn(fileJournal(path), c.cmd, c.args...)
		if got := runOn(bare, c.cmd, c.args...); got != want || !strings.Contains(got, c.says) {
			t.Errorf("%s: a store of a test's own\n%s\nthe file\n%s", c.name, got, want)
		}
	}
	// Importing needs a journal that imports; a bare one says so (usage).
	f, _ := factory(bare)
	cmd := NewCmdImport(f, func(ctx context.Context, opts *ImportOptions) error {
		opts.Format = table
		return importRun(ctx, opts)
	})
	cmd.SetArgs(nil)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no shared journal to import into") {
		t.Errorf("import into a bare store: %v", err)
	}
}
