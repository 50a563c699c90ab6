package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestConcurrentWalletPay hammers a few invoices from many goroutines over
// real connections: exactly one attempt per invoice succeeds, every other
// one is a duplicate, and the store holds one sale per invoice.
func TestConcurrentWalletPay(t *testing.T) {
	fx := newFixture(t)
	srv := httptest.NewServer(fx.gw)
	defer srv.Close()
	bearer := fx.bearer()
	const invoices, perInvoice = 5, 60
	bodies := make([][]byte, invoices)
	for i := range bodies {
		inv := fmt.Sprintf("INV-C%d", i)
		bodies[i], _ = json.Marshal(payBody(t, inv, fx.walletToken("75.00", "TRY"), "75.00", "TRY"))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		counts = map[string]map[int]int{}
	)
	for i := range invoices * perInvoice {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := i % invoices
			req, _ := http.NewRequest("POST", srv.URL+Base+"/api/walletPay", bytes.NewReader(bodies[n]))
			req.Header.Set("Authorization", "Bearer "+bearer)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var body struct {
				StatusCode int `json:"status_code"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			key := fmt.Sprintf("INV-C%d", n)
			if counts[key] == nil {
				counts[key] = map[int]int{}
			}
			counts[key][body.StatusCode]++
		}()
	}
	wg.Wait()
	for inv, c := range counts {
		if c[100] != 1 || c[3] != perInvoice-1 {
			t.Errorf("%s: answers %v, want one 100 and %d times 3", inv, c, perInvoice-1)
		}
	}
	sales, err := fx.store.Sales()
	if err != nil || len(sales) != invoices {
		t.Fatalf("%d sales stored (err %v), want %d", len(sales), err, invoices)
	}
	for _, s := range sales {
		if s.State != StateCompleted {
			t.Errorf("%s left %s", s.InvoiceID, s.State)
		}
	}
}

// TestRestart: sales, duplicate protection and bearer tokens survive a
// restart over the same state folder.
func TestRestart(t *testing.T) {
	fx := newFixture(t)
	bearer := fx.bearer()
	fx.pay("INV-R1", "10.00", "TRY")
	fx.pay("INV-R2", "10.41", "TRY")
	fx.pay("INV-R3", "10.69", "TRY")
	if err := fx.store.Close(); err != nil {
		t.Fatal(err)
	}
	fx.open()
	auth := map[string]string{"Authorization": "Bearer " + bearer}
	if res := fx.call("POST", Base+"/api/commissions", map[string]string{"currency_code": "TRY"}, auth); res.status() != 100 {
		t.Fatalf("token from before the restart: %s", res.Raw)
	}
	for inv, want := range map[string]string{"INV-R1": "Completed", "INV-R2": "Failed", "INV-R3": "Completed"} {
		res := fx.call("POST", Base+"/api/checkstatus", statusBodyFor(t, inv), auth)
		if res.Body["transaction_status"] != want {
			t.Errorf("%s: %s", inv, res.Raw)
		}
		if again := fx.pay(inv, "5.00", "TRY"); again.status() != 3 {
			t.Errorf("%s paid again after restart: %s", inv, again.Raw)
		}
	}
}

// TestRecoverProcessing: a sale left processing by a crash is failed on the
// next open (its walletPay was never answered), and stays a duplicate.
func TestRecoverProcessing(t *testing.T) {
	fx := newFixture(t)
	if err := fx.store.Reserve(Sale{InvoiceID: "INV-P", OrderID: "VP1", State: StateProcessing, Amount: "10.00", Currency: "TRY"}); err != nil {
		t.Fatal(err)
	}
	fx.store.Close()
	fx.open()
	sale, ok, err := fx.store.Get("INV-P")
	if err != nil || !ok || sale.State != StateFailed || sale.PaymentReasonCode != "SBX-RESTART" {
		t.Fatalf("after reopen: %+v %v %v", sale, ok, err)
	}
	if res := fx.pay("INV-P", "10.00", "TRY"); res.status() != 3 {
		t.Fatalf("got %s", res.Raw)
	}
}

func TestStoreLocked(t *testing.T) {
	fx := newFixture(t)
	if _, err := OpenStore(fx.dir, 10*time.Millisecond, testStart); err != ErrLocked {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
}

func TestStoreReleaseAndReset(t *testing.T) {
	fx := newFixture(t)
	s := fx.store
	if err := s.Reserve(Sale{InvoiceID: "A", OrderID: "1", State: StateProcessing}); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(Sale{InvoiceID: "A", OrderID: "2", State: StateProcessing}); err != ErrDuplicate {
		t.Fatalf("second reserve: %v", err)
	}
	if err := s.Release("A", "2"); err != nil { // not its reservation: kept
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("A"); !ok {
		t.Fatal("released another order's reservation")
	}
	if err := s.Release("A", "1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("A"); ok {
		t.Fatal("reservation not released")
	}
	if err := s.Save(Sale{InvoiceID: "B", OrderID: "3", State: StateCompleted}); err != nil {
		t.Fatal(err)
	}
	if err := s.Release("B", "3"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("B"); !ok {
		t.Fatal("released a completed sale")
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if sales, _ := s.Sales(); len(sales) != 0 {
		t.Fatalf("after reset: %v", sales)
	}
}

// BenchmarkWalletPay measures one successful walletPay through the handler,
// including its two durable commits.
func BenchmarkWalletPay(b *testing.B) {
	dir := b.TempDir()
	store, err := OpenStore(dir, time.Second, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	gw, err := New(Options{Now: time.Now, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	bearer, _, _ := issueBearer(AppID, now, time.Hour, "b")
	bodies := make([][]byte, b.N)
	for i := range bodies {
		// A wallet token pays once: one per payment.
		wt, _ := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard, Wallet: "001", TTL: time.Hour}, now, fmt.Sprintf("w%d", i))
		bodies[i], _ = json.Marshal(payBody(b, fmt.Sprintf("INV-B%d", i), wt, "150.00", "TRY"))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		req := httptest.NewRequest("POST", Base+"/api/walletPay", bytes.NewReader(bodies[i]))
		req.Header.Set("Authorization", "Bearer "+bearer)
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"status_code":100`)) {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkWalletPayParallel measures concurrent payments, where commits
// are shared (groupCommit): payments/commit says how well.
func BenchmarkWalletPayParallel(b *testing.B) {
	dir := b.TempDir()
	store, err := OpenStore(dir, time.Second, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	gw, _ := New(Options{Now: time.Now, Store: store})
	now := time.Now()
	bearer, _, _ := issueBearer(AppID, now, time.Hour, "b")
	var mu sync.Mutex
	n := 0
	b.ReportAllocs()
	first := lastCommit(b, store)
	defer func() { b.ReportMetric(float64(b.N)/float64(lastCommit(b, store)-first), "payments/commit") }()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			n++
			inv := fmt.Sprintf("INV-P%d", n)
			mu.Unlock()
			wt, _ := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard, Wallet: "001", TTL: time.Hour}, now, inv)
			body, _ := json.Marshal(payBody(b, inv, wt, "150.00", "TRY"))
			req := httptest.NewRequest("POST", Base+"/api/walletPay", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+bearer)
			rec := httptest.NewRecorder()
			gw.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Errorf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}

// lastCommit is the id of the store's last committed transaction.
func lastCommit(b *testing.B, s *Store) int {
	var id int
	if err := s.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		b.Fatal(err)
	}
	return id
}
