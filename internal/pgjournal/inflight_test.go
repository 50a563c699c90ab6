package pgjournal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/saleop"
)

// TestEarlierSaleDoesNotSettleInFlight (the desk model's seed 203): a
// walletpay on an invoice already paid, sent by an operator whose clock
// is ten minutes slow and still in flight by the database's clock, is
// not settled by check status finding the earlier sale; until its
// request is over (the database's deadline and journal.InFlightMargin),
// Go and the database both hold it unresolved and a new intent on the
// invoice is refused. Once over, the same answer settles it.
func TestEarlierSaleDoesNotSettleInFlight(t *testing.T) {
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	slow, right := skewedClocks(t, admin)
	open := func(role string, now func() time.Time) *Store {
		return openStore(t, srv, db, role, Options{Now: now, PID: 1, Warn: func(string) {}})
	}
	ayse, mehmet := open("ayse", slow), open("mehmet", right)
	paid := of(intent("sale-1", "INV-1", ""), "walletpay")
	paid.Time, paid.Deadline = slow().Add(-time.Hour), slow().Add(-time.Hour+30*time.Second)
	second := of(intent("sale-2", "INV-1", ""), "walletpay")
	second.Time, second.Deadline = slow(), slow().Add(30*time.Second)
	for _, e := range []journal.Entry{paid, outcome(paid, journal.Succeeded, 100), second} { // the second sent; in flight
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	attempts, err := mehmet.Attempts(ctx, "INV-1")
	if err != nil || len(attempts) != 2 || attempts[1].Intent.Attempt != "sale-2" {
		t.Fatal(attempts, err)
	}
	inFlight := attempts[1]
	earlierSale := &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "INV-1", TransactionStatus: "Completed", OrderID: "VP1"}
	asked := mehmet.DatabaseTime(right())
	l := journal.Settle(saleop.Read, inFlight, earlierSale, nil, asked)
	if l.Outcome != "" || l.After.IsZero() {
		t.Fatalf("a walletpay in flight, check status finding the earlier sale: %+v, want 'may still be in flight'", l)
	}
	if over := inFlight.Deadline().Add(journal.InFlightMargin); !l.After.Equal(over) || over.Before(asked) {
		t.Errorf("ask again after %v, want its deadline on the database's clock and the margin, %v (asked at %v)", l.After, over, asked)
	}
	var goSays []string
	for _, a := range journal.UnresolvedAll(attempts) {
		goSays = append(goSays, a.Intent.Attempt)
	}
	rows, err := admin.Query(ctx, "SELECT attempt FROM paycli.unsettled_attempts('gw-1', 'INV-1')")
	if err != nil {
		t.Fatal(err)
	}
	sqlSays, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(goSays) != 1 || goSays[0] != "sale-2" || len(sqlSays) != 1 || sqlSays[0] != "sale-2" {
		t.Errorf("unresolved: Go %q, the database %q; want the walletpay in flight", goSays, sqlSays)
	}
	third := of(intent("sale-3", "INV-1", ""), "walletpay")
	third.Time, third.Deadline = right(), right().Add(30*time.Second)
	if err := mehmet.Append(ctx, third); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("another walletpay while the second is in flight: %v, want ErrUnsettled", err)
	}
	if l := journal.Settle(saleop.Read, inFlight, earlierSale, nil, l.After.Add(time.Second)); l.Outcome != journal.Succeeded {
		t.Errorf("the same answer once the request is over: %+v, want succeeded", l)
	}
}
