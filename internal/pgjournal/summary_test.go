package pgjournal

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestSummaryAddsUpAsSummarize: the database's totals are, row for row,
// what journal.Summarize makes of the window's attempts read whole: first
// intents, last outcomes, reconciliations that learned an outcome or did
// not, an outcome without its intent, amounts in several currencies (one
// paycli does not know) and amounts that do not read, lines outside the
// window left out.
func TestSummaryAddsUpAsSummarize(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	n := 0
	add := func(s *Store, kind, amount, currency string, at time.Time, lines ...func(journal.Entry) journal.Entry) {
		t.Helper()
		n++
		in := intent(fmt.Sprintf("att-%d", n), fmt.Sprintf("INV-%d", n), "")
		in.Kind, in.Amount, in.Currency, in.Time = kind, amount, currency, at
		entries := []journal.Entry{in}
		for _, l := range lines {
			entries = append(entries, l(in))
		}
		if res, err := s.Import(ctx, entries); err != nil || len(res.Refused) > 0 {
			t.Fatal(res, err)
		}
	}
	line := func(typ, class string, after time.Duration) func(journal.Entry) journal.Entry {
		return func(in journal.Entry) journal.Entry {
			e := in
			e.Type, e.Outcome, e.Time = typ, class, in.Time.Add(after)
			if typ == journal.TypeReconcile {
				e.Evidence = &journal.Evidence{StatusCode: 100}
			}
			return e
		}
	}
	ok, declined := line(journal.TypeOutcome, journal.Succeeded, time.Second), line(journal.TypeOutcome, journal.Declined, time.Second)
	unknown := line(journal.TypeOutcome, journal.Unknown, time.Second)
	for i := range 3 {
		at := t0.Add(time.Duration(i) * time.Minute)
		add(ayse, "refund", "10.50", "TRY", at, ok)
		add(ayse, "refund", "20", "TRY", at, ok)
		add(ayse, "refund", "5.005", "USD", at, ok)
		add(ayse, "refund", "1.5", "XYZ", at, ok)
		add(ayse, "refund", "", "TRY", at, ok)
		add(ayse, "refund", "abc", "TRY", at, declined)
		add(ayse, "refund", " 5", "TRY", at, declined)
		add(mehmet, "walletpay", "1e2", "TRY", at, declined)
		add(mehmet, "walletpay", "7.00", "TRY", at) // no outcome
		add(mehmet, "walletpay", "8.00", "TRY", at, unknown, line(journal.TypeReconcile, journal.Succeeded, time.Hour))
		add(mehmet, "walletpay", "9.00", "TRY", at, unknown, line(journal.TypeReconcile, journal.Pending, time.Hour))
		add(mehmet, "refund", "3.00", "TRY", at, declined, line(journal.TypeOutcome, journal.Succeeded, time.Minute))
		add(mehmet, "refund", "4.00", "EUR", at, ok, line(journal.TypeReconcile, journal.Declined, time.Hour))
		add(mehmet, "preauth-capture", "2.00", "TRY", at, ok)
		add(ayse, "", "2.00", "TRY", at, ok)                          // a line from before kinds: walletpay
		add(ayse, "refund", "6.00", "TRY", at.Add(-48*time.Hour), ok) // outside the window
	}
	// An intent written twice. (An outcome whose intent the database
	// never had is refused: TestForgedOutcomeRefused.)
	twice := intent("att-twice", "INV-twice", "")
	again := twice
	again.Time, again.Amount = twice.Time.Add(time.Second), "1000.00"
	if _, err := mehmet.Import(ctx, []journal.Entry{twice, again}); err != nil {
		t.Fatal(err)
	}

	since, until := t0.Add(-time.Hour), t0.Add(time.Hour)
	attempts, err := ayse.List(ctx, "", since, until)
	if err != nil {
		t.Fatal(err)
	}
	want := journal.Summarize(attempts)
	got, err := ayse.Summary(ctx, since, until)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summary:\n got %+v\nwant %+v", got, want)
	}
	if len(want) < 9 {
		t.Errorf("the window holds %d rows of totals; the test means more", len(want))
	}
}
