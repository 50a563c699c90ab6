package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	bolt "go.etcd.io/bbolt"
)

// logCredentials are recognisable credentials: a match in the log is a leak.
var logCredentials = Credentials{
	AppID:       "appidLOGa1b2c3d4e5f6a7b8c9d0e1f2",
	AppSecret:   "appsecretLOGz9y8x7w6v5u4t3s2r1q0",
	MerchantKey: "$2y$10$merchantLOGkeyQ1w2E3r4T5y6U7i",
}

// loggedFixture is a fixture whose gateway has logCredentials and logs
// to its state folder.
func loggedFixture(t *testing.T) (*fixture, *RequestLog) {
	t.Helper()
	var rl *RequestLog
	fx := newFixture(t, func(o *Options) {
		var err error
		if rl, err = OpenRequestLog(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rl.Close() })
		o.Credentials, o.RequestLog = logCredentials, rl
	})
	return fx, rl
}

// logEntries reads the fixture's request log.
func logEntries(t *testing.T, rl *RequestLog) []LogEntry {
	t.Helper()
	entries, err := ReadRequestLog(rl.dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// leakCheck fails if any secret appears in the log's files.
func leakCheck(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	for _, name := range []string{RequestLogFile, RequestLogFile + ".1"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if s != "" && strings.Contains(string(data), s) {
				t.Errorf("the request log holds %q:\n%s", s, data)
			}
		}
	}
}

// TestRequestLogExplainsRefusals: every request is logged with its time,
// method, path, statuses and invoice, and every refusal says why, with the
// field and both values; the answers stay terse, and no secret is logged.
func TestRequestLogExplainsRefusals(t *testing.T) {
	fx, rl := loggedFixture(t)
	creds := logCredentials
	bearer, _, _ := issueBearer(creds.AppID, fx.clock.Now(), time.Hour, "b1")
	auth := map[string]string{"Authorization": "Bearer " + bearer}
	wt := fx.walletToken("150.00", "TRY")
	sign := func(fields ...string) string {
		hk, err := hashkey.Generate(creds.AppSecret, strings.Join(fields, "|"))
		if err != nil {
			t.Fatal(err)
		}
		return hk
	}
	body := func(invoice, hk string) map[string]string {
		return map[string]string{"merchant_key": creds.MerchantKey, "hash_key": hk, "invoice_id": invoice,
			"wallet_transient_token": wt, "name": "Ada", "surname": "Lovelace", "bill_email": "ada@example.com"}
	}
	// The hash_key was made for 15.00; the wallet token says 150.00.
	wrongTotal := sign("15.00", "1", "TRY", creds.MerchantKey, "INV-15")
	res := fx.call("POST", Base+"/api/walletPay", body("INV-15", wrongTotal), auth)
	if res.status() != 68 || strings.Contains(string(res.Raw), "15.00") {
		t.Fatalf("answer: %s", res.Raw)
	}
	missing := body("INV-M", sign("150.00", "1", "TRY", creds.MerchantKey, "INV-M"))
	delete(missing, "bill_email")
	fx.call("POST", Base+"/api/walletPay", missing, auth)
	otherMerchant := body("INV-K", sign("150.00", "1", "TRY", creds.MerchantKey, "INV-K"))
	otherMerchant["merchant_key"] = "$2y$10$someOtherMerchantKeyXYZ123"
	fx.call("POST", Base+"/api/walletPay", otherMerchant, auth)
	otherSecret, _ := hashkey.Generate("another-app-secret", "150.00|1|TRY|"+creds.MerchantKey+"|INV-S")
	fx.call("POST", Base+"/api/walletPay", body("INV-S", otherSecret), auth)
	// Bearer tokens: none, malformed, another app's, expired.
	fx.call("POST", Base+"/api/walletPay", body("INV-B0", wrongTotal), nil)
	fx.call("POST", Base+"/api/walletPay", body("INV-B1", wrongTotal), map[string]string{"Authorization": "Bearer not-a-jwt"})
	otherApp, _, _ := issueBearer("someotherappid0000000000", fx.clock.Now(), time.Hour, "b2")
	fx.call("POST", Base+"/api/walletPay", body("INV-B2", wrongTotal), map[string]string{"Authorization": "Bearer " + otherApp})
	old, _, _ := issueBearer(creds.AppID, fx.clock.Now().Add(-3*time.Hour), time.Hour, "b3")
	fx.call("POST", Base+"/api/walletPay", body("INV-B3", wrongTotal), map[string]string{"Authorization": "Bearer " + old})
	// A payment that goes through, then its invoice again.
	fx.call("POST", Base+"/api/walletPay", body("INV-OK", sign("150.00", "1", "TRY", creds.MerchantKey, "INV-OK")), auth)
	fx.call("POST", Base+"/api/walletPay", body("INV-OK", sign("150.00", "1", "TRY", creds.MerchantKey, "INV-OK")), auth)

	entries := logEntries(t, rl)
	if len(entries) != 10 {
		t.Fatalf("%d entries, want 10: %+v", len(entries), entries)
	}
	for _, e := range entries {
		if e.Method != "POST" || e.Path != "/ccpayment/api/walletPay" || !e.Time.Equal(testStart) || e.HTTPStatus == 0 {
			t.Errorf("entry %+v", e)
		}
	}
	for i, want := range []struct {
		invoice, field, got, want string
		code                      int
		http                      int
		why                       []string
	}{
		{"INV-15", "total", "15.00", "150.00", 68, 200, []string{"hash_key mismatch on total", "the hash_key says 15.00", "the wallet token's amount is 150.00"}},
		{"INV-M", "bill_email", "", "", 1, 200, []string{"missing field bill_email"}},
		{"INV-K", "merchant_key", "$2y$••••Z123", "$2y$••••6U7i", 14, 200, []string{"not this sandbox's merchant"}},
		{"INV-S", "hash_key", "", "", 90, 200, []string{"does not decrypt with this sandbox's app_secret"}},
		{"INV-B0", "Authorization", "", "", -1, 401, []string{"no bearer token"}},
		{"INV-B1", "Authorization", "", "", -1, 401, []string{"malformed: not a JWT"}},
		{"INV-B2", "Authorization", "", "", -1, 401, []string{"issued to another app"}},
		{"INV-B3", "Authorization", "", "", -1, 401, []string{"expired at 2026-11-22 10:04:05"}},
		{"INV-OK", "", "", "", 100, 200, nil},
		{"INV-OK", "invoice_id", "", "", 3, 200, []string{"duplicate invoice: it already has a walletpay sale (order VP"}},
	} {
		e := entries[i]
		code := -1
		if e.StatusCode != nil {
			code = *e.StatusCode
		}
		if e.Field != want.field || e.Got != want.got || e.Want != want.want || code != want.code || e.HTTPStatus != want.http {
			t.Errorf("entry %d: %+v, want %+v", i, e, want)
		}
		if want.invoice != e.Invoice && want.http != 401 {
			t.Errorf("entry %d: invoice %q, want %q", i, e.Invoice, want.invoice)
		}
		for _, w := range want.why {
			if !strings.Contains(e.Why, w) {
				t.Errorf("entry %d: why %q lacks %q", i, e.Why, w)
			}
		}
		if want.why == nil && e.Why != "" {
			t.Errorf("entry %d: a success explained: %q", i, e.Why)
		}
		if e.Refused() != (want.code != 100) {
			t.Errorf("entry %d: refused %v", i, e.Refused())
		}
	}
	leakCheck(t, rl.dir, creds.AppSecret, creds.MerchantKey, creds.AppID, bearer, otherApp, old, wt, wrongTotal,
		"$2y$10$someOtherMerchantKeyXYZ123", otherSecret, "ada@example.com", DefaultWalletCard)
}

// TestRequestLogMasksCards: a card number sent where it does not belong
// (an invoice id) and a card number in an explanation are masked.
func TestRequestLogMasksCards(t *testing.T) {
	fx, rl := loggedFixture(t)
	bearer, _, _ := issueBearer(logCredentials.AppID, fx.clock.Now(), time.Hour, "b")
	fx.call("POST", Base+"/api/checkstatus", map[string]string{"invoice_id": "4355084355084358", "merchant_key": logCredentials.MerchantKey},
		map[string]string{"Authorization": "Bearer " + bearer})
	entries := logEntries(t, rl)
	if len(entries) != 1 || entries[0].Invoice != "435508******4358" || entries[0].Field != "hash_key" {
		t.Errorf("%+v", entries)
	}
	leakCheck(t, rl.dir, "4355084355084358")
}

// TestRequestLogIsBounded: past MaxRequestLogBytes the log starts a new
// file and keeps one previous file; ReadRequestLog reads both, in order.
func TestRequestLogIsBounded(t *testing.T) {
	dir := t.TempDir()
	rl, err := OpenRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	rl.max = 2000
	for i := range 100 {
		if err := rl.Append(LogEntry{Time: testStart, Method: "POST", Path: fmt.Sprintf("/ccpayment/api/p%d", i), HTTPStatus: 200}); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	for _, name := range []string{RequestLogFile, RequestLogFile + ".1"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > rl.max {
			t.Errorf("%s is %d bytes, over %d", name, st.Size(), rl.max)
		}
		total += st.Size()
	}
	entries, _ := ReadRequestLog(dir)
	if len(entries) == 0 || len(entries) == 100 || entries[len(entries)-1].Path != "/ccpayment/api/p99" {
		t.Fatalf("%d entries, last %+v", len(entries), entries[len(entries)-1])
	}
	for i := 1; i < len(entries); i++ {
		var a, b int
		fmt.Sscanf(entries[i-1].Path, "/ccpayment/api/p%d", &a)
		fmt.Sscanf(entries[i].Path, "/ccpayment/api/p%d", &b)
		if b != a+1 {
			t.Errorf("entries out of order: %s then %s", entries[i-1].Path, entries[i].Path)
		}
	}
}

// TestRequestLogReopenEndsATornLine: a line cut short by a crash is ended
// when the log is opened again, and is not read as an entry.
func TestRequestLogReopenEndsATornLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RequestLogFile), []byte(`{"time":"2026-11-22T09:04:05Z","method":"POST","path":"/a","http_status":200}`+"\n"+`{"time":"2026-11-22T09:04:05Z","meth`), 0o600); err != nil {
		t.Fatal(err)
	}
	rl, err := OpenRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	if err := rl.Append(LogEntry{Time: testStart, Method: "GET", Path: "/b", HTTPStatus: 200}); err != nil {
		t.Fatal(err)
	}
	entries, _ := ReadRequestLog(dir)
	if len(entries) != 2 || entries[0].Path != "/a" || entries[1].Path != "/b" {
		t.Errorf("%+v", entries)
	}
}

// TestFollowRequestLog: what the log holds comes first, then every entry
// written afterwards, once, across a rotation.
func TestFollowRequestLog(t *testing.T) {
	dir := t.TempDir()
	rl, err := OpenRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	rl.max = 600
	write := func(i int) {
		if err := rl.Append(LogEntry{Time: testStart, Method: "POST", Path: fmt.Sprintf("/p%d", i), HTTPStatus: 200}); err != nil {
			t.Error(err)
		}
	}
	for i := range 3 {
		write(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var backlog, followed []string
	ticks := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- FollowRequestLog(ctx, dir, func(ctx context.Context) error {
			select {
			case ticks <- struct{}{}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, func(es []LogEntry) error {
			for _, e := range es {
				backlog = append(backlog, e.Path)
			}
			return nil
		}, func(e LogEntry) error {
			mu.Lock()
			defer mu.Unlock()
			followed = append(followed, e.Path)
			return nil
		})
	}()
	<-ticks // caught up
	for i := 3; i < 30; i++ {
		write(i) // rotates several times
		<-ticks
	}
	<-ticks
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if strings.Join(backlog, " ") != "/p0 /p1 /p2" {
		t.Errorf("backlog %v", backlog)
	}
	var want []string
	for i := 3; i < 30; i++ {
		want = append(want, fmt.Sprintf("/p%d", i))
	}
	if strings.Join(followed, " ") != strings.Join(want, " ") {
		t.Errorf("followed:\n%v\nwant:\n%v", followed, want)
	}
}

// TestServerLogsRequests: a Server logs to its state folder (not the
// health probe), and the log outlives it.
func TestServerLogsRequests(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{Gateway: Options{Now: time.Now}, StateDir: dir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !Probe(context.Background(), srv.BaseURL) {
		t.Fatal("no answer to the probe")
	}
	resp, err := http.Post(srv.BaseURL+"/api/token", "application/json", strings.NewReader(`{"app_id":"x","app_secret":"y-not-the-secret"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadRequestLog(dir)
	if err != nil || len(entries) != 1 || entries[0].HTTPStatus != 401 || *entries[0].StatusCode != 30 ||
		entries[0].Field != "app_id" || !strings.Contains(entries[0].Why, "not this sandbox's") {
		t.Fatalf("%+v %v", entries, err)
	}
	leakCheck(t, dir, "y-not-the-secret", AppSecret, AppID)
}

// BenchmarkRequestLogAppend is what logging costs a request: encoding the
// entry and one write(2) to the log file (docs/performance.md).
func BenchmarkRequestLogAppend(b *testing.B) {
	rl, err := OpenRequestLog(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	code := 68
	e := LogEntry{Time: testStart, Method: "POST", Path: "/ccpayment/api/walletPay", HTTPStatus: 200, StatusCode: &code, DurationMS: 1.25,
		Invoice: "INV-1", Why: "hash_key mismatch on total: the hash_key says 15.00, but the wallet token's amount is 150.00", Field: "total", Got: "15.00", Want: "150.00"}
	b.ReportAllocs()
	for b.Loop() {
		if err := rl.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequestLogInStore is the alternative the request log did not
// take: each entry put in a bucket of the store in a durable transaction of
// its own, as a refusal or a read (which commit nothing) would need
// (docs/performance.md).
func BenchmarkRequestLogInStore(b *testing.B) {
	store, err := OpenStore(b.TempDir(), time.Second, testStart)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	line := []byte(`{"time":"2026-11-22T09:04:05Z","method":"POST","path":"/ccpayment/api/walletPay","http_status":200,"status_code":68}`)
	var seq uint64
	b.ReportAllocs()
	for b.Loop() {
		seq++
		err := store.writes.do(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("request_log"))
			if err != nil {
				return err
			}
			return bk.Put(binary.BigEndian.AppendUint64(nil, seq), line)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
