package sandbox

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkLedgerPageOf100kDay: one alltransaction page (100 rows, a
// filter on amount) of a day of 100,000 sales. The sales are written
// straight to the store in one transaction, through putEncoded, which
// keeps the ledger's index as every write does).
func BenchmarkLedgerPageOf100kDay(b *testing.B) {
	store, err := OpenStore(b.TempDir(), time.Second, testStart)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	const n = 100_000
	err = store.writes.do(func(tx *bolt.Tx) error {
		for i := range n {
			at := testStart.Add(time.Duration(i) * 800 * time.Millisecond)
			sale := Sale{InvoiceID: fmt.Sprintf("B-%06d", i), OrderID: fmt.Sprintf("VP%017d", i), Kind: KindWalletPay, State: StateCompleted,
				Amount: fmt.Sprintf("%d.00", 10+i%500), Currency: "TRY", Installment: 1, MerchantCommission: "0.30",
				MerchantCommissionPercentage: "2.99", MerchantCommissionFixed: "0", CreatedAt: at, UpdatedAt: at}
			data, err := json.Marshal(sale)
			if err != nil {
				return err
			}
			if err := store.putEncoded(tx, nil, sale, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	fx := &fixture{t: &testing.T{}, clock: &testClock{now: testStart.Add(48 * time.Hour)}, store: store}
	gw, err := New(Options{Store: store, Now: fx.clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	fx.gw = gw
	bearer := map[string]string{"Authorization": "Bearer " + fx.bearer()}
	b.ResetTimer()
	for i := range b.N {
		res := fx.call("POST", Base+"/api/alltransaction", map[string]string{"date_range": "2026-11-22 - 2026-11-23",
			"page_limit": "100", "page": fmt.Sprint(1 + i%900), "minamount": "100"}, bearer)
		fx.clock.Advance(RepeatWindow)
		if res.status() != 100 || res.data()["total"] == 0.0 {
			b.Fatalf("%.300s", res.Raw)
		}
	}
}
