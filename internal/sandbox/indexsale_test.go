package sandbox

import (
	"testing"
	"time"
)

// TestIndexSale: a reserved sale is found by its order_id, a link's sale
// also by its link id, and a sale without a link by no link id.
func TestIndexSale(t *testing.T) {
	store, err := OpenStore(t.TempDir(), time.Second, testStart)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, sale := range []Sale{
		{InvoiceID: "INV-LINK", OrderID: "ORD-LINK", Link: &Link{ID: "LNK-1"}},
		{InvoiceID: "INV-PLAIN", OrderID: "ORD-PLAIN"},
	} {
		if err := store.Reserve(sale); err != nil {
			t.Fatalf("Reserve(%s): %v", sale.InvoiceID, err)
		}
	}
	for order, want := range map[string]string{"ORD-LINK": "INV-LINK", "ORD-PLAIN": "INV-PLAIN"} {
		if got, ok, err := store.InvoiceOfOrder(order); err != nil || !ok || got != want {
			t.Errorf("InvoiceOfOrder(%s) = %q, %v, %v; want %q", order, got, ok, err, want)
		}
	}
	if got, ok, err := store.InvoiceOfLink("LNK-1"); err != nil || !ok || got != "INV-LINK" {
		t.Errorf("InvoiceOfLink(LNK-1) = %q, %v, %v; want INV-LINK", got, ok, err)
	}
	if got, ok, err := store.InvoiceOfLink(""); err != nil || ok {
		t.Errorf("InvoiceOfLink(\"\") = %q, %v, %v; want none (the plain sale has no link)", got, ok, err)
	}
}
