package journalindex

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/journalgen"
)

// writePlan writes plan's journal into a new file, and returns its path
// and Account's attempts per day.
func writePlan(t testing.TB, plan journalgen.Plan) (string, []int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	perDay, err := plan.WriteFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return path, perDay
}

// offsetsRead is a journal that records where each read began.
type offsetsRead struct {
	f    *os.File
	mu   sync.Mutex
	offs map[int64]bool
}

func (r *offsetsRead) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	r.offs[off] = true
	r.mu.Unlock()
	return r.f.ReadAt(p, off)
}

// dayLines are the offsets of the lines of account's attempts whose
// intents fall in [from, to), read from the whole journal.
func dayLines(t *testing.T, path string, account journal.Scope, from, to time.Time) map[int64]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	intentAt := map[string]time.Time{}
	out := map[int64]bool{}
	sc := journal.NewLineScanner(f, 0)
	for {
		l, err := sc.Next()
		if err != nil {
			return out
		}
		e, _ := journal.ParseLine(l)
		id := e.Attempt + "\x00" + e.Invoice
		if e.Type == journal.TypeIntent {
			intentAt[id] = e.Time
		}
		if at := intentAt[id]; account.Named(e) && !at.Before(from) && at.Before(to) {
			out[l.Off] = true
		}
	}
}

func readAccount(t *testing.T, read func(yield func(journal.Attempt) error) error) []journal.Attempt {
	t.Helper()
	var got []journal.Attempt
	if err := read(func(a journal.Attempt) error { got = append(got, a); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestAccountDayReadsOnlyItsLines: a day's attempts of an account, read
// through the index, read exactly the lines of that day's attempts of
// that account (the reconciliations written the next morning included),
// no line of another day or account; they are whole, in time order, and
// what the whole journal says of them (journal.ReadAll).
func TestAccountDayReadsOnlyItsLines(t *testing.T) {
	plan := journalgen.Plan{Start: t0, Days: 4, Lines: 12_000, Busy: 1, BusyAttempts: 2_000, Account: "gw-a", Other: "gw-b"}
	path, perDay := writePlan(t, plan)
	account := journal.Scope{Gateway: "gw-a", Alias: "gw-alias"}
	from, to := plan.Day(1), plan.Day(2)
	ix, err := openIndexed(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &offsetsRead{f: ix.f, offs: map[int64]bool{}}
	got := readAccount(t, func(y func(journal.Attempt) error) error { return accountAttempts(ix, r, account, from, to, y) })
	ix.close()
	if len(got) != perDay[1] {
		t.Fatalf("%d attempts, want the day's %d", len(got), perDay[1])
	}
	if want := dayLines(t, path, account, from, to); !mapsEqual(r.offs, want) {
		t.Errorf("read %d lines, want the day's %d of the account", len(r.offs), len(want))
	}
	all, _, err := journal.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []journal.Attempt
	for _, a := range journal.InWindow(all, from, to) {
		if account.Named(a.Intent) {
			want = append(want, a)
		}
	}
	reconciled := 0
	for i, a := range got {
		if i > 0 && a.Intent.Time.Before(got[i-1].Intent.Time) {
			t.Fatalf("attempt %d out of time order", i)
		}
		w := want[i]
		if a.Intent.Attempt != w.Intent.Attempt || a.Class() != w.Class() || (a.Reconciled == nil) != (w.Reconciled == nil) {
			t.Fatalf("attempt %d: %+v, want %+v", i, a, w)
		}
		if a.Reconciled != nil {
			reconciled++
		}
	}
	if reconciled == 0 {
		t.Error("no attempt reconciled the next morning was read whole")
	}
	// The whole journal, read when the index cannot be, says the same.
	scanned := readAccount(t, func(y func(journal.Attempt) error) error { return scanAccount(path, account, from, to, y) })
	if !slices.EqualFunc(scanned, got, sameAttempt) {
		t.Errorf("read whole: %d attempts, through the index %d", len(scanned), len(got))
	}
}

func sameAttempt(a, b journal.Attempt) bool {
	return a.Intent.Attempt == b.Intent.Attempt && a.Class() == b.Class() && (a.Reconciled == nil) == (b.Reconciled == nil)
}

func mapsEqual(a, b map[int64]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestAccountDayAfterLaterLines: lines appended after the index was
// brought up to date (a reconciliation of an attempt whose outcome was
// unknown, days later) are indexed by the next read under their
// attempt's intent; an index that no longer matches the journal is
// rebuilt.
func TestAccountDayAfterLaterLines(t *testing.T) {
	in := intent("a1", "INV-1")
	in.Gateway = "gw-a"
	other := intent("a2", "INV-2")
	other.Gateway, other.Time = "gw-a", t0.Add(48*time.Hour)
	path := writeEntries(t, in, other)
	account := journal.Scope{Gateway: "gw-a"}
	day := func() []journal.Attempt {
		return readAccount(t, func(y func(journal.Attempt) error) error {
			return AccountAttempts(path, account, t0.Add(-time.Hour), t0.Add(time.Hour), y)
		})
	}
	if got := day(); len(got) != 1 || got[0].Class() != journal.Unknown {
		t.Fatalf("%+v", got)
	}
	rec := in
	rec.Type, rec.Outcome, rec.Via, rec.Time = journal.TypeReconcile, journal.Succeeded, journal.ViaReconcile, t0.Add(72*time.Hour)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(rec); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	if got := day(); len(got) != 1 || got[0].Class() != journal.Succeeded {
		t.Fatalf("after the reconciliation: %+v", got)
	}
	// The journal replaced by another: the index is rebuilt from it.
	moved := intent("b1", "INV-9")
	moved.Gateway = "gw-a"
	if err := os.Rename(writeEntries(t, moved), path); err != nil {
		t.Fatal(err)
	}
	if got := day(); len(got) != 1 || got[0].Intent.Attempt != "b1" {
		t.Fatalf("after the journal changed: %+v", got)
	}
}
