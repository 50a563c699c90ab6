package status

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/render"
)

// TestStatusRecordsReconciliation: when status learns the outcome of an
// attempt the journal lists as unknown (same invoice, profile and
// gateway), it appends a reconcile line, and a resumed batch acts on it.
func TestStatusRecordsReconciliation(t *testing.T) {
	fx := newFixture(t, render.Table)
	cfg, _ := fx.opts.Config()
	path := filepath.Join(t.TempDir(), journal.FileName)
	fx.opts.Journal = fileJournal(path, fx.clock.Now)
	fx.opts.Now = fx.clock.Now
	scope := journal.ScopeFor("walletpay", cfg.Profile, cfg.BaseURL, journal.Identity(cfg.BaseURL, cfg.AppID), false)
	elsewhere := "https://elsewhere.example/ccpayment"
	other := journal.ScopeFor("walletpay", cfg.Profile, elsewhere, journal.Identity(elsewhere, cfg.AppID), false)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		id, invoice string
		scope       journal.Scope
	}{{"a1", "PEND-1", scope}, {"a2", "GONE-1", scope}, {"a3", "PEND-1", other}} {
		// Made an hour before: their requests are long over (journal.Settle).
		if err := j.Append(journal.Entry{Type: journal.TypeIntent, Kind: e.scope.Kind, Gateway: e.scope.Gateway, Attempt: e.id,
			Time: t0.Add(-time.Hour), Profile: cfg.Profile, BaseURL: e.scope.BaseURL, Invoice: e.invoice, Amount: "10.69", Currency: "TRY"}); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	resume := func(s journal.Scope, invoice string) journal.ResumeDecision {
		attempts, _, err := journal.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return journal.ByInvoice(attempts, s)[invoice].Resume()
	}

	fx.opts.Invoice = "GONE-1"
	_ = statusRun(context.Background(), fx.opts) // exit 4: no transaction
	// Issue 39: not found is never final (the gateway may still make it):
	// nothing recorded, the attempt still unknown, and status says what
	// settles it.
	if got := resume(scope, "GONE-1"); got != journal.ResumeUnknown {
		t.Errorf("GONE-1 after status said not found: %v, want still unknown", got)
	}
	if !strings.Contains(fx.errOut.String(), "Not recorded in the journal: check status does not find invoice GONE-1 (attempt a2), which does not settle it") ||
		!strings.Contains(fx.errOut.String(), "paycli journal settle a2 --as not-made") {
		t.Errorf("status's note for an attempt not found:\n%s", fx.errOut)
	}
	fx.opts.Invoice = "PEND-1"
	_ = statusRun(context.Background(), fx.opts) // exit 7: still pending
	if got := resume(scope, "PEND-1"); got != journal.ResumeUnknown {
		t.Errorf("PEND-1 while pending: %v", got)
	}
	fx.clock.Advance(2 * time.Hour)
	fx.errOut.Reset()
	if err := statusRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	if got := resume(scope, "PEND-1"); got != journal.ResumeSkip {
		t.Errorf("PEND-1 after status said Completed: %v, want skipped", got)
	}
	if got := resume(other, "PEND-1"); got != journal.ResumeUnknown {
		t.Errorf("another gateway's attempt was reconciled: %v", got)
	}
	if want := "Recorded in the journal: invoice PEND-1 succeeded (its outcome was unknown).\nPEND-1: completed, 10.69 TRY\n"; fx.errOut.String() != want {
		t.Errorf("stderr %q, want %q", fx.errOut, want)
	}
	attempts, _, _ := journalindex.Lookup(path, "PEND-1")
	if a := attempts[0]; a.OrderNo() != "VP00000000000000001" || a.Reconciled.Via != journal.ViaStatus || !a.Reconciled.Time.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("reconciliation %+v", a.Reconciled)
	}
	// Nothing unknown: the journal is not written.
	before, _ := os.Stat(path)
	_ = statusRun(context.Background(), fx.opts)
	after, _ := os.Stat(path)
	if after.Size() != before.Size() {
		t.Errorf("journal written again for a settled invoice: %d → %d bytes", before.Size(), after.Size())
	}
}

// TestStatusLeavesARequestStillInFlight (issue 23, defect 2): a status
// that finds no transaction for an invoice whose attempt may still be
// processed (made a moment ago, its time limit not run out) records
// nothing, and says when to ask again; an attempt whose invoice another
// command holds is not touched.
func TestStatusLeavesARequestStillInFlight(t *testing.T) {
	fx := newFixture(t, render.Table)
	cfg, _ := fx.opts.Config()
	path := filepath.Join(t.TempDir(), journal.FileName)
	fx.opts.Journal = fileJournal(path, fx.clock.Now)
	fx.opts.Now = fx.clock.Now
	identity := journal.AccountOf(cfg.BaseURL, cfg.AppID, cfg.MerchantKey)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range []string{"FRESH-1", "HELD-1"} {
		_ = j.Append(journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: identity, Attempt: "a-" + inv,
			Time: t0.Add(-time.Hour), Deadline: t0.Add(30 * time.Second), Profile: cfg.Profile, BaseURL: cfg.BaseURL, Invoice: inv})
	}
	_ = j.Close()
	fx.opts.Invoice = "FRESH-1"
	_ = statusRun(context.Background(), fx.opts) // exit 4: no transaction yet
	after := render.FormatTime(t0.Add(30*time.Second+journal.InFlightMargin), render.Table)
	if want := "Not recorded in the journal yet: invoice FRESH-1 may still be in flight; check again after " + after + ".\n"; fx.errOut.String() != want {
		t.Errorf("stderr %q, want %q", fx.errOut, want)
	}
	fx.clock.Advance(time.Hour)
	unlock, err := journal.OpenFile(path, fx.clock.Now).Lock(context.Background(), identity, "HELD-1", "walletpay")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	fx.errOut.Reset()
	fx.opts.Invoice = "HELD-1"
	_ = statusRun(context.Background(), fx.opts)
	if !strings.HasPrefix(fx.errOut.String(), "Not recorded in the journal: a walletpay on invoice HELD-1 is in flight in pid ") {
		t.Errorf("stderr %q", fx.errOut)
	}
	attempts, _, _ := journal.Read(path)
	for _, a := range attempts {
		if a.Reconciled != nil || a.Class() != journal.Unknown {
			t.Errorf("%s recorded %+v", a.Intent.Invoice, a.Reconciled)
		}
	}
}

// fileJournal opens the journal file at path, as the factory does.
func fileJournal(path string, now func() time.Time) func() (journal.Store, error) {
	return func() (journal.Store, error) { return journal.OpenFile(path, now), nil }
}
