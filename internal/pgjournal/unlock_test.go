package pgjournal

import (
	"context"
	"errors"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// TestFailedUnlockFreesTheInvoice: an unlock the database refuses (here
// pg_advisory_unlock is not hers to run) must not leave the invoice locked
// for the rest of the process's life: the lock session is closed, which
// releases its locks, and another operator takes the invoice.
func TestFailedUnlockFreesTheInvoice(t *testing.T) {
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	unlock, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	srv.Exec(t, db, "REVOKE EXECUTE ON FUNCTION pg_advisory_unlock(bigint) FROM PUBLIC")
	unlock()
	mu, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("INV-1 after her unlock failed: %v, want it free", err)
	}
	mu()
}

// TestUnlockKeepsTheOtherLocks: releasing one invoice leaves the others
// this process holds locked against another operator.
func TestUnlockKeepsTheOtherLocks(t *testing.T) {
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	unlock1, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	unlock2, err := ayse.Lock(ctx, "gw-1", "INV-2", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock2()
	unlock1()
	mu, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatalf("INV-1 once released: %v, want it free", err)
	}
	mu()
	var inFlight *journal.InFlightError
	if _, err := mehmet.Lock(ctx, "gw-1", "INV-2", "refund"); !errors.As(err, &inFlight) || inFlight.Holder.PID != 101 {
		t.Errorf("INV-2, still hers: %v, want in flight, held by pid 101", err)
	}
	if err := ayse.Append(ctx, intent("att-2", "INV-2", "RF-2")); err != nil {
		t.Errorf("her intent on INV-2, whose lock she still holds: %v", err)
	}
}
