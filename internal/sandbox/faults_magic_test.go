package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cardno"
)

// faultServer is a real server (the faults need a connection to cut) on
// loopback, its state in a temporary folder.
func faultServer(t *testing.T, mod func(*ServerOptions)) (*Server, string) {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts := ServerOptions{StateDir: dir, LockTimeout: 5 * time.Second, Gateway: Options{Now: time.Now, SlowFor: time.Millisecond}}
	if mod != nil {
		mod(&opts)
	}
	srv, err := StartServer(ln, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv, dir
}

// postFault sends body as JSON to the server, with a bearer token when one is
// given; the client gives up after timeout (none when zero).
func postFault(srv *Server, path string, body any, bearer string, timeout time.Duration) (*http.Response, []byte, error) {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", srv.BaseURL+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	res, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// waitForEntry waits until the server's log holds an entry for path that
// ok accepts (a request cut off is logged once its handler returns).
func waitForEntry(t *testing.T, dir, path string, ok func(LogEntry) bool) LogEntry {
	t.Helper()
	var last []LogEntry
	for range 500 {
		last, _ = ReadRequestLog(dir)
		for _, e := range last {
			if e.Path == path && ok(e) {
				return e
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no entry for %s in the log: %+v", path, last)
	return LogEntry{}
}

func TestMagicFaultValuesArePublishedCards(t *testing.T) {
	for _, m := range MagicFaults {
		if d, ok := cardno.Digits(m.Card); !ok || !cardno.Luhn(d) || !strings.HasPrefix(m.Card, "435508") {
			t.Errorf("%s: card %s is not a Luhn-valid card of BIN 435508", m.Name, m.Card)
		}
		if testCard(m.Card).Outcome != "approve" {
			t.Errorf("%s: card %s is also a published test card", m.Name, m.Card)
		}
		if !strings.HasPrefix(m.Amount, m.Name) && m.fault.status != 0 {
			t.Errorf("%s: amount %s does not start with its status", m.Name, m.Amount)
		}
	}
}

// TestMagicFaults: each fault value, in each kind of operation that reads
// it, acts its fault out without the fault header or --faults; one used
// where it means nothing is refused naming its field.
func TestMagicFaults(t *testing.T) {
	srv, dir := faultServer(t, nil)
	fx := &fixture{t: t, gw: srv.gateway, clock: &testClock{now: time.Now()}}
	bearer := fx.bearer()
	sold := func(invoice string) bool { _, ok, _ := srv.store.Get(invoice); return ok }

	// 500, by the wallet token's amount.
	res, body, err := postFault(srv, "/api/walletPay", payBody(t, "MF-1", fx.walletToken("500.50", "TRY"), "500.50", "TRY"), bearer, 0)
	if err != nil || res.StatusCode != 500 || !json.Valid(body) || sold("MF-1") {
		t.Errorf("walletPay 500.50: %v %v %s; sold %v", err, res, body, sold("MF-1"))
	}
	if e := waitForEntry(t, dir, Base+"/api/walletPay", func(e LogEntry) bool { return e.HTTPStatus == 500 }); !strings.Contains(e.Why, "500 fault value") ||
		e.Field != "wallet_transient_token.amount" || e.Fault == "" || e.RequestID == "" {
		t.Errorf("walletPay 500.50 logged: %+v", e)
	}

	// 503, by the card.
	res, body, err = postFault(srv, "/api/paySmart2D", cardBody(t, "MF-2", "4355 0800 0000 5038", "10.00", "TRY", 1, TypeAuth), bearer, 0)
	if err != nil || res.StatusCode != 503 || !strings.Contains(string(body), "<html>") || sold("MF-2") {
		t.Errorf("paySmart2D 503 card: %v %v %s", err, res, body)
	}

	// A hang, by the amount: the client's timeout ends it; nothing sold,
	// and the request cut off is in the log.
	_, _, err = postFault(srv, "/api/paySmart2D", cardBody(t, "MF-3", "4355084355084358", "408.50", "TRY", 1, TypeAuth), bearer, 300*time.Millisecond)
	var nerr net.Error
	if !errors.As(err, &nerr) || !nerr.Timeout() {
		t.Errorf("paySmart2D 408.50: %v, want the client's timeout", err)
	}
	e := waitForEntry(t, dir, Base+"/api/paySmart2D", func(e LogEntry) bool { return e.Invoice == "MF-3" })
	if !strings.Contains(e.Why, "hang fault value") || !strings.Contains(e.Fault, "hang") || sold("MF-3") {
		t.Errorf("paySmart2D 408.50 logged: %+v; sold %v", e, sold("MF-3"))
	}

	// A drop, by a refund's amount: the refund is made, its answer cut.
	if res, body, err := postFault(srv, "/api/paySmart2D", cardBody(t, "MF-4", "4355084355084358", "1000.00", "TRY", 1, TypeAuth), bearer, 0); err != nil || res.StatusCode != 200 {
		t.Fatalf("pay: %v %s", err, body)
	}
	_, _, err = postFault(srv, "/api/refund", refundBody(t, "MF-4", "499.50", ""), bearer, 0)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("refund 499.50: %v, want the answer cut short", err)
	}
	if s, _, _ := srv.store.Get("MF-4"); s.Refunded().String() != "499.5" {
		t.Errorf("refund 499.50 was not made: refunded %s", s.Refunded())
	}

	// Slow, in a lookup: answered normally.
	res, body, err = postFault(srv, "/api/getpos", map[string]string{"credit_card": "435508", "amount": "200.50", "currency_code": "TRY", "merchant_key": MerchantKey}, bearer, 0)
	if err != nil || res.StatusCode != 200 || !strings.Contains(string(body), `"status_code":100`) {
		t.Errorf("getpos 200.50: %v %v %s", err, res, body)
	}
	if e := waitForEntry(t, dir, Base+"/api/getpos", func(LogEntry) bool { return true }); !strings.Contains(e.Fault, "slow") {
		t.Errorf("getpos 200.50 logged: %+v", e)
	}

	// Where it means nothing: refused, naming the field.
	for _, c := range []struct {
		path  string
		body  any
		field string
	}{
		{"/api/saveCard", saveCardBodyWith(t, "4355080000005004"), "card_number"},
	} {
		res, body, err := postFault(srv, c.path, c.body, bearer, 0)
		if err != nil || res.StatusCode != 200 || !strings.Contains(string(body), `"status_code":1,`) || !strings.Contains(string(body), "fault value") {
			t.Errorf("%s: %v %s", c.path, err, body)
		}
		e := waitForEntry(t, dir, Base+c.path, func(LogEntry) bool { return true })
		if e.Field != c.field || !strings.Contains(e.Why, "means nothing") && !strings.Contains(e.Why, "act only on") {
			t.Errorf("%s logged: %+v", c.path, e)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, RequestLogFile))
	if bytes.Contains(data, []byte("4355080000005004")) {
		t.Error("the log holds a whole card number")
	}
}

func saveCardBodyWith(t *testing.T, card string) map[string]any {
	b := saveCardBody(t, 1, 0)
	b["card_number"] = card
	return b
}

// TestStopCutsOffHeldFaults: a sandbox stopping while faults hold
// requests (a header delay longer than the grace, a hang value) stops
// cleanly, and logs the requests it cut off (it warned, and lost them).
func TestStopCutsOffHeldFaults(t *testing.T) {
	started := make(chan string, 2)
	srv, dir := faultServer(t, func(o *ServerOptions) {
		o.Gateway.Faults = true
		o.Wrap = func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				started <- r.URL.Path
				h.ServeHTTP(w, r)
			})
		}
	})
	errs := make(chan error, 2)
	go func() {
		req, _ := http.NewRequest("POST", srv.BaseURL+"/api/token", strings.NewReader(`{}`))
		req.Header.Set(FaultHeader, "delay=1h")
		res, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
		if err == nil {
			res.Body.Close()
			err = errors.New("answered " + res.Status)
		}
		errs <- err
	}()
	go func() {
		res, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Post(srv.BaseURL+"/api/refund", "application/json", strings.NewReader(`{"amount": "408.50"}`))
		if err == nil {
			res.Body.Close()
			err = errors.New("answered " + res.Status)
		}
		errs <- err
	}()
	<-started
	<-started
	// The grace ends before the hour-long delay does (a bound, not a
	// timing under test).
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with faults holding requests: %v", err)
	}
	for range 2 {
		if err := <-errs; err == nil || strings.HasPrefix(err.Error(), "answered") {
			t.Errorf("a held request: %v, want the connection closed", err)
		}
	}
	entries, err := ReadRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cut []string
	for _, e := range entries {
		if strings.Contains(e.Why, "the sandbox was stopping") {
			cut = append(cut, e.Path)
		}
	}
	if len(cut) != 2 {
		t.Errorf("logged as cut off by the stop: %v, want token and refund; log: %+v", cut, entries)
	}
}
