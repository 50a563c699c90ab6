package pgjournal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestEarlierNameIsTheAccounts (issue 39, defect 4): the database reads a
// line an earlier paycli wrote under the app_id's name (its gateway) as the
// account's, for an intent that carries that name as its app_gateway: its
// unknown refund blocks a new refund, its own re-send goes out, and the
// re-send made tells its story. Another account's line is not the
// account's.
func TestEarlierNameIsTheAccounts(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	const old, account = "app-1-identity", "merchant-identity"
	later := func(attempt, ref string, minutes int) journal.Entry {
		e := intent(attempt, "INV-1", ref)
		e.Gateway, e.AppGateway, e.Time = account, old, t0.Add(time.Duration(minutes)*time.Minute)
		return e
	}
	first := intent("a1", "INV-1", "RF-1")
	first.Gateway = old
	if err := ayse.Append(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := ayse.Append(ctx, later("a2", "RF-2", 1)); !errors.Is(err, journal.ErrUnsettled) {
		t.Fatalf("a new refund past the earlier paycli's unknown one: %v, want ErrUnsettled (refunded twice)", err)
	}
	elsewhere := later("x1", "RF-9", 1)
	elsewhere.Gateway, elsewhere.AppGateway = "another-merchant-identity", "another-app-identity"
	if err := ayse.Append(ctx, elsewhere); err != nil {
		t.Errorf("another account's intent refused: %v", err)
	}
	resend := later("a3", "RF-1", 2)
	if err := ayse.Append(ctx, resend); err != nil {
		t.Fatalf("the re-send of the very refund refused: %v", err)
	}
	if err := ayse.Append(ctx, outcome(resend, journal.Succeeded, 100)); err != nil {
		t.Fatal(err)
	}
	if err := ayse.Append(ctx, later("a4", "RF-4", 3)); err != nil {
		t.Errorf("a refund after the re-send was made: %v", err)
	}
}
