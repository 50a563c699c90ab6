package pgjournal

import (
	"context"
	"errors"
	"strings"

	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// unsettledIn is what the database finds unsettled on invoice (its own
// definition, paycli.unsettled_attempts), as attempt ids.
func unsettledIn(t *testing.T, s *Store, invoice string) []string {
	t.Helper()
	attempts, err := s.Attempts(context.Background(), invoice)
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, a := range journal.UnresolvedAll(attempts) {
		open = append(open, a.Intent.Attempt)
	}
	return open
}

// TestOnlyTheGatewaysWordSettles (issue 39, defects 1 to 3): on the
// shared journal, an unknown refund stays unsettled, and a new refund of
// its invoice is refused by the database, after a re-send of its ref
// refused 49 or answered 104, and after a check status that does not list
// it, however late; a queued refund's re-send is refused; a refused
// re-send of a card deletion settles nothing either.
func TestOnlyTheGatewaysWordSettles(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	write := func(s *Store, lines ...journal.Entry) {
		t.Helper()
		for _, e := range lines {
			if err := s.Append(ctx, e); err != nil {
				t.Fatalf("%s %s: %v", e.Type, e.Attempt, err)
			}
		}
	}
	unknownRefund := func(attempt, invoice, ref string) journal.Entry {
		rf := intent(attempt, invoice, ref)
		write(ayse, rf, outcome(rf, journal.Unknown, 0))
		return rf
	}
	retried := func(invoice, ref, class string, code int) {
		retry := intent(invoice+"-retry", invoice, ref)
		retry.Time = t0.Add(time.Minute)
		write(mehmet, retry, outcome(retry, class, code))
	}
	for _, c := range []struct {
		name, invoice string
		then          func(rf journal.Entry)
	}{
		// Defect 1: 49 is what the first refund being made causes.
		{"a re-send refused 49", "INV-49", func(rf journal.Entry) { retried(rf.Invoice, rf.Ref, journal.Rejected, 49) }},
		{"a re-send declined", "INV-41", func(rf journal.Entry) { retried(rf.Invoice, rf.Ref, journal.Declined, 41) }},
		// Defect 2: 104 says the id is in use, made or queued.
		{"a re-send answered 104", "INV-104", func(rf journal.Entry) { retried(rf.Invoice, rf.Ref, journal.Duplicate, 104) }},
		// Defect 3: check status not listing it, at the deadline and the
		// margin, or a day later: a reconcile line not_found, with the
		// gateway's answer (as an older paycli wrote it).
		{"a check status that does not list it", "INV-NF", func(rf journal.Entry) {
			nf := settled(rf, journal.NotFound)
			nf.Via = journal.ViaReconcile
			write(mehmet, nf)
		}},
	} {
		rf := unknownRefund("rf-"+c.invoice, c.invoice, "RF-"+c.invoice)
		c.then(rf)
		if open := unsettledIn(t, ayse, c.invoice); len(open) != 1 || open[0] != rf.Attempt {
			t.Errorf("%s: unsettled %q, want the first refund", c.name, open)
		}
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM paycli.unsettled_attempts('gw-1', $1) WHERE attempt = $2", c.invoice, rf.Attempt).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: the database finds the first refund unsettled %d times (%v), want once", c.name, n, err)
		}
		second := intent("second-"+c.invoice, c.invoice, "RF-NEW")
		second.Time = t0.Add(time.Hour)
		if err := mehmet.Append(ctx, second); !errors.Is(err, journal.ErrUnsettled) {
			t.Errorf("%s: a new refund of the invoice: %v, want ErrUnsettled (refunded twice)", c.name, err)
		}
	}

	// Defect 2: a queued refund's re-send is refused; check status
	// reporting it made settles it.
	q := intent("q-1", "INV-Q", "RF-Q")
	write(ayse, q, outcome(q, journal.Queued, 101))
	retry := intent("q-1-retry", "INV-Q", "RF-Q")
	if err := mehmet.Append(ctx, retry); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("the re-send of a queued refund: %v, want ErrUnsettled", err)
	}
	write(mehmet, settled(q, journal.Succeeded))
	if open := unsettledIn(t, ayse, "INV-Q"); len(open) != 0 {
		t.Errorf("a queued refund check status found made: unsettled %q", open)
	}

	// A card deletion whose re-send was refused (the card not there) stays
	// unsettled, and blocks its key for every other attempt.
	const key = "card:5070:feedfacefeedfacefeedfacefeedface"
	del := of(intent("cd-1", key, ""), "card-delete")
	del.Ref = "feedfacefeedfacefeedfacefeedface"
	write(ayse, del, outcome(del, journal.Unknown, 0))
	again := del
	again.Attempt, again.Time = "cd-2", t0.Add(time.Minute)
	write(mehmet, again, outcome(again, journal.Rejected, 1))
	if open := unsettledIn(t, ayse, key); len(open) != 1 || open[0] != "cd-1" {
		t.Errorf("a card deletion whose re-send was refused: unsettled %q, want cd-1", open)
	}
	if err := mehmet.Append(ctx, of(intent("cd-x", key, ""), "walletpay")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("another attempt on the card's key: %v, want ErrUnsettled", err)
	}
}

// settleLine is the desk lead's settle line for in's attempt: made
// (Succeeded) or not made (NotFound), with reason.
func settleLine(in journal.Entry, class, reason string) journal.Entry {
	e := in
	e.Type, e.Outcome, e.Time, e.Deadline = journal.TypeReconcile, class, in.Time.Add(2*time.Hour), time.Time{}
	e.Via, e.Reason = journal.ViaSettle, reason
	return e
}

// TestLeadSettles: the database takes a settle line (via journal settle)
// only from a member of paycli_lead (PC004 otherwise, from paycli and from
// psql), only with a reason (PC003), and then the attempt is settled, by
// that role.
func TestLeadSettles(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	srv.Role(t, "zeynep")
	if err := GrantLead(context.Background(), admin, "zeynep"); err != nil {
		t.Fatal(err)
	}
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	zeynep := openAs(t, srv, db, "zeynep", "desk-lead", 303)
	ctx := context.Background()
	rf := intent("rf-1", "INV-1", "RF-1")
	for _, e := range []journal.Entry{rf, outcome(rf, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	line := settleLine(rf, journal.NotFound, "the gateway's support confirms RF-1 was never made (ticket 4711)")
	var refused *RefusedError
	if err := mehmet.Append(ctx, line); !errors.As(err, &refused) || !refused.NotLead() || !strings.Contains(err.Error(), "not a desk lead") {
		t.Errorf("an operator's settle line: %v, want refused PC004 (not a desk lead)", err)
	}
	if out, err := psqlAs(t, srv, db, "ayse", insertSQL(line)); err == nil || !strings.Contains(out, "PC004") || !strings.Contains(out, "--lead ROLE") {
		t.Errorf("psql INSERT of a settle line by an operator: %v\n%s", err, out)
	}
	noReason := line
	noReason.Reason = "  "
	if err := zeynep.Append(ctx, noReason); !errors.As(err, &refused) || refused.State != stateNoEvidence {
		t.Errorf("a lead's settle line without a reason: %v, want refused PC003", err)
	}
	if open := unsettledIn(t, ayse, "INV-1"); len(open) != 1 {
		t.Fatalf("after the refused settlements: unsettled %q", open)
	}
	if err := zeynep.Append(ctx, line); err != nil {
		t.Fatalf("the lead's settle line: %v", err)
	}
	got, err := ayse.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Class() != journal.NotFound || !got[0].SettledByLead() || got[0].SettledBy != "zeynep" ||
		got[0].Reconciled.Reason != line.Reason {
		t.Fatalf("after the lead's settlement: %+v, %v", got, err)
	}
	if err := mehmet.Append(ctx, intent("rf-2", "INV-1", "RF-2")); err != nil {
		t.Errorf("a new refund once the lead settled the first not made: %v", err)
	}
}
