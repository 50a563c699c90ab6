package journal

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/gateway"
)

// memStore is a third journal, neither the file nor the shared one: the
// reconciliation must need nothing but the Store contract (and Clock,
// when the store has a clock of its own).
type memStore struct {
	lines  []Entry
	holder *Holder // the invoice's lock, held by another command
	locked bool
	skew   time.Duration // its clock, ahead of this machine's
}

func (m *memStore) Append(_ context.Context, e Entry) error { m.lines = append(m.lines, e); return nil }

func (m *memStore) Attempts(_ context.Context, invoices ...string) ([]Attempt, error) {
	var asm Assembler
	for _, e := range m.lines {
		if len(invoices) == 0 || e.Invoice == invoices[0] {
			asm.Add(e)
		}
	}
	return asm.Attempts(), nil
}

func (m *memStore) Find(context.Context, string) ([]Attempt, error) { return nil, nil }

func (m *memStore) Lock(context.Context, string, string, string) (func(), error) {
	if m.holder != nil {
		return nil, &InFlightError{Holder: *m.holder}
	}
	m.locked = true
	return func() { m.locked = false }, nil
}

func (m *memStore) Close() error { return nil }

// clockStore is a memStore whose guards go by its own clock.
type clockStore struct{ *memStore }

func (c clockStore) DatabaseTime(t time.Time) time.Time { return t.Add(c.skew) }

// TestReconciler is the one reconciliation status and journal reconcile
// run, on a store of a test's own.
func TestReconciler(t *testing.T) {
	id := Identity(liveURL, "app")
	unknown := intent("a1", "INV-1")
	unknown.Kind, unknown.Gateway, unknown.Profile, unknown.BaseURL = "walletpay", id, "live", liveURL
	unknown.Deadline = t0.Add(30 * time.Second)
	kinds := Kinds{{Name: "walletpay", Read: readTaken}}
	newReconciler := func(s Store) Reconciler {
		return Reconciler{Store: s, Identity: id, Kinds: kinds, Scopes: ReconcileScopes(kinds, "live", liveURL, id, "", false), Command: "status", Via: ViaStatus,
			Now: func() time.Time { return t0.Add(time.Hour) }}
	}
	completed := &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "INV-1", TransactionStatus: "Completed", OrderID: "VP1"}
	asks := 0
	answer := func(res *gateway.CheckStatusResult, err error, asked time.Time) CheckStatus {
		return func(context.Context) Answer {
			asks++
			return Answer{Res: res, Err: err, Asked: asked}
		}
	}
	ctx := context.Background()

	t.Run("settles and records with evidence", func(t *testing.T) {
		m := &memStore{lines: []Entry{unknown}}
		done, err := newReconciler(m).Reconcile(ctx, "INV-1", answer(completed, nil, t0.Add(time.Hour)))
		if err != nil || len(done.Settlements) != 1 || !done.Settlements[0].Recorded || done.Settlements[0].Learned.Outcome != Succeeded {
			t.Fatalf("%+v, %v", done, err)
		}
		if len(m.lines) != 2 || m.lines[1].Type != TypeReconcile || m.lines[1].Via != ViaStatus || m.lines[1].Evidence == nil || m.locked {
			t.Errorf("lines %+v, locked %v: want one reconcile line with its evidence, the lock released", m.lines, m.locked)
		}
	})
	t.Run("an invoice in flight is left alone", func(t *testing.T) {
		m := &memStore{lines: []Entry{unknown}, holder: &Holder{Command: "refund", PID: 7, Since: t0}}
		asks = 0
		done, err := newReconciler(m).Reconcile(ctx, "INV-1", answer(completed, nil, t0))
		if err != nil || done.InFlight == nil || asks != 0 || len(m.lines) != 1 {
			t.Errorf("%+v, %v, %d asks: want in flight, nothing asked or written", done, err, asks)
		}
	})
	t.Run("nothing unresolved: no lock, no question", func(t *testing.T) {
		settled := outcome("a1", "INV-1", Succeeded, 100)
		settled.Gateway, settled.Kind = id, "walletpay"
		m := &memStore{lines: []Entry{unknown, settled}, holder: &Holder{Command: "refund", PID: 7, Since: t0}}
		asks = 0
		done, err := newReconciler(m).Reconcile(ctx, "INV-1", answer(completed, nil, t0))
		if err != nil || done.InFlight != nil || asks != 0 || done.Latest == nil || done.Latest.Class() != Succeeded {
			t.Errorf("%+v, %v, %d asks", done, err, asks)
		}
	})
	t.Run("what Keep leaves out is not recorded", func(t *testing.T) {
		m := &memStore{lines: []Entry{unknown}}
		r := newReconciler(m)
		r.Keep = func(l Learned) bool { return l.Outcome != Pending }
		pending := &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "INV-1", TransactionStatus: "Pending"}
		done, err := r.Reconcile(ctx, "INV-1", answer(pending, nil, t0.Add(time.Hour)))
		if err != nil || len(done.Settlements) != 1 || done.Settlements[0].Recorded || len(m.lines) != 1 {
			t.Errorf("%+v, %v, lines %d", done, err, len(m.lines))
		}
	})
	// Issue 30, defect 3: the deadline is the journal's clock; an answer
	// that does not name the attempt is read on it too. This machine's
	// clock says the request is long over; the journal's, ten minutes
	// behind, that it may still be in flight.
	t.Run("the journal's clock decides whether a request may be in flight", func(t *testing.T) {
		m := &memStore{lines: []Entry{unknown}, skew: -10 * time.Minute}
		asked := unknown.Deadline.Add(InFlightMargin).Add(time.Minute)
		done, err := newReconciler(clockStore{m}).Reconcile(ctx, "INV-1", answer(completed, nil, asked))
		if err != nil || len(done.Settlements) != 1 || done.Settlements[0].Learned.After.IsZero() || len(m.lines) != 1 {
			t.Errorf("%+v, %v: want it still in flight on the journal's clock, nothing recorded", done, err)
		}
		done, err = newReconciler(m).Reconcile(ctx, "INV-1", answer(completed, nil, asked))
		if err != nil || len(done.Settlements) != 1 || done.Settlements[0].Learned.Outcome != Succeeded || !strings.Contains(m.lines[len(m.lines)-1].Type, TypeReconcile) {
			t.Errorf("%+v, %v: without a clock of its own, this machine's decides", done, err)
		}
	})
	// Issue 39, defect 3: check status finding nothing, however long after
	// the request's deadline, records nothing: the attempt stays unknown
	// and its invoice blocked (the gateway may still make it).
	t.Run("not found records nothing, whatever the time", func(t *testing.T) {
		m := &memStore{lines: []Entry{unknown}}
		notFound := &gateway.APIError{Endpoint: "checkstatus", StatusCode: 31, HasStatusCode: true, Description: "no transaction"}
		for _, asked := range []time.Time{unknown.Deadline.Add(InFlightMargin), unknown.Deadline.Add(48 * time.Hour)} {
			done, err := newReconciler(m).Reconcile(ctx, "INV-1", answer(nil, notFound, asked))
			if err != nil || len(done.Settlements) != 1 || !done.Settlements[0].Learned.Missing || done.Settlements[0].Recorded || len(m.lines) != 1 {
				t.Errorf("asked at %v: %+v, %v, lines %d: want it missing, nothing recorded", asked, done, err, len(m.lines))
			}
		}
		attempts, _ := m.Attempts(ctx, "INV-1")
		if got := Blocking(attempts, NewScope("walletpay", "live", liveURL, "app"), "INV-1"); len(got) != 1 {
			t.Errorf("blocking after the reads: %d, want the attempt", len(got))
		}
	})
}
