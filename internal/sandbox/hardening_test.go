package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests below run the sandbox as `paycli sandbox serve` does
// (StartServer on a loopback listener) and talk to it over real
// connections, some of them raw TCP to behave as no HTTP client would.

// liveness bounds how long a test waits for the server to do what it must;
// the server is expected to act far sooner (the timeouts are below 1s).
// It guards against hanging, it is not a timing assertion.
const liveness = 20 * time.Second

// hardenedServer starts a server with the given timeouts and an 8 KiB body
// limit. Only the slow-client test uses short timeouts; elsewhere requests
// that should succeed must not be cut off by a loaded (race detector,
// shared CPU) machine, so the others use steadyServer.
func hardenedServer(t *testing.T, timeouts Timeouts) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{
		StateDir:    t.TempDir(),
		LockTimeout: time.Second,
		Gateway:     Options{Now: time.Now, MaxBodyBytes: 8 << 10},
		Timeouts:    timeouts,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), liveness)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// steadyServer is a hardenedServer with timeouts of a few seconds.
func steadyServer(t *testing.T) *Server {
	return hardenedServer(t, Timeouts{ReadHeader: 2 * time.Second, Read: 4 * time.Second, Idle: 2 * time.Second})
}

// hostOf is the server's "host:port".
func hostOf(srv *Server) string {
	return strings.TrimSuffix(strings.TrimPrefix(srv.BaseURL, "http://"), Base)
}

// sandboxClient talks to the server directly, never through a proxy. It
// drops idle connections long before any server timeout, so that it never
// sends a request on a connection the server is closing.
func sandboxClient(t *testing.T) *http.Client {
	c := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, IdleConnTimeout: 100 * time.Millisecond}, Timeout: liveness}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// post sends body to an endpoint and decodes the JSON answer.
func post(t *testing.T, c *http.Client, srv *Server, path, bearer, ctype string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.BaseURL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Errorf("POST %s: HTTP %d, answer is not JSON: %v", path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

func serverBearer(t *testing.T, c *http.Client, srv *Server) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"app_id": AppID, "app_secret": AppSecret})
	code, out := post(t, c, srv, "/api/token", "", "application/json", body)
	data, _ := out["data"].(map[string]any)
	tok, _ := data["token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("token: HTTP %d %v", code, out)
	}
	return tok
}

// waitClosed reads from conn until the server closes it and returns what
// it sent; it fails if the server still holds the connection after
// liveness.
func waitClosed(t *testing.T, conn net.Conn) []byte {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(liveness))
	got, err := io.ReadAll(conn)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("the server still holds the connection after %v (sent %q)", liveness, got)
	}
	return got
}

// TestSlowClientsAreCutOff: a client that trickles its headers, one that
// trickles its body, and an idle keep-alive connection are each closed by
// the server, and the server keeps answering others meanwhile.
func TestSlowClientsAreCutOff(t *testing.T) {
	srv := hardenedServer(t, Timeouts{ReadHeader: 300 * time.Millisecond, Read: 800 * time.Millisecond, Idle: 300 * time.Millisecond})
	c := sandboxClient(t)

	trickle := func(t *testing.T, conn net.Conn, head string, drip string) {
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		go func() {
			// Drip until the server hangs up (a write fails) or for
			// longer than any timeout of the server.
			for range int(liveness / (50 * time.Millisecond)) {
				if _, err := io.WriteString(conn, drip); err != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}

	t.Run("headers trickled", func(t *testing.T) {
		conn, err := net.Dial("tcp", hostOf(srv))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		trickle(t, conn, "POST "+Base+"/api/token HTTP/1.1\r\nHost: sandbox\r\n", "X-Slow: 1\r\n")
		got := waitClosed(t, conn)
		if bytes.Contains(got, []byte("status_code")) {
			t.Fatalf("a request whose headers never ended was served: %q", got)
		}
		serverBearer(t, c, srv) // others are still served
	})

	t.Run("body trickled", func(t *testing.T) {
		conn, err := net.Dial("tcp", hostOf(srv))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		trickle(t, conn, "POST "+Base+"/api/token HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{", " ")
		got := waitClosed(t, conn)
		// The handler's read fails at the deadline; it may still answer
		// (status_code 1), but never as a success.
		if bytes.Contains(got, []byte(`"status_code":100`)) {
			t.Fatalf("a body that never ended was served: %q", got)
		}
		serverBearer(t, c, srv)
	})

	t.Run("idle keep-alive", func(t *testing.T) {
		conn, err := net.Dial("tcp", hostOf(srv))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET "+HealthPath+" HTTP/1.1\r\nHost: sandbox\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		conn.SetReadDeadline(time.Now().Add(liveness))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("health: HTTP %d, close=%v; want a kept-alive 200", resp.StatusCode, resp.Close)
		}
		// Nothing more is sent: the server must close the idle connection.
		if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				t.Fatalf("the server still holds an idle connection after %v", liveness)
			}
			t.Fatalf("after the response: %q %v", rest, err)
		}
	})
}

// TestOversizedRequestsAreRefused: a body over the limit gets HTTP 413 with
// status_code 1 on every endpoint (announced by Content-Length or streamed
// without one), headers over the limit get 431, and nothing is stored.
func TestOversizedRequestsAreRefused(t *testing.T) {
	t.Parallel() // a server, state folder and client of its own
	srv := steadyServer(t)
	c := sandboxClient(t)
	bearer := serverBearer(t, c, srv)
	big := []byte(`{"invoice_id":"` + strings.Repeat("A", 8<<10) + `"}`)
	for _, path := range []string{"/api/token", "/api/commissions", "/api/walletPay", "/api/checkstatus"} {
		code, out := post(t, c, srv, path, bearer, "application/json", big)
		if code != http.StatusRequestEntityTooLarge || out["status_code"] != 1.0 {
			t.Errorf("%s, %d bytes: HTTP %d %v; want 413 with status_code 1", path, len(big), code, out)
		}
		// Streamed without a length: the limit applies as it is read.
		req, _ := http.NewRequest("POST", srv.BaseURL+path, io.MultiReader(bytes.NewReader(big), bytes.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s chunked: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s chunked: HTTP %d, want 413", path, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", srv.BaseURL+"/api/token", strings.NewReader("{}"))
	req.Header.Set("X-Padding", strings.Repeat("p", MaxHeaderBytes+4096))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("oversized headers: HTTP %d, want 431", resp.StatusCode)
	}
	if sales, err := srv.store.Sales(); err != nil || len(sales) != 0 {
		t.Fatalf("store after oversized requests: %v %v", sales, err)
	}
}

// TestMalformedBodiesGetStatusCode1: every endpoint answers a body that is
// not one JSON object with HTTP 200 and status_code 1, as the gateway's
// validator does.
func TestMalformedBodiesGetStatusCode1(t *testing.T) {
	srv := steadyServer(t)
	c := sandboxClient(t)
	bearer := serverBearer(t, c, srv)
	bodies := []string{`{"app_id":`, `[1,2]`, `{"a":1}{"b":2}`, `"text"`, `nul`, "{\"a\":\"\xff\"", `{"invoice_id":{"nested":[1]}}`, "\x00\x01\x02"}
	for _, path := range []string{"/api/token", "/api/commissions", "/api/walletPay", "/api/checkstatus"} {
		for _, body := range bodies {
			code, out := post(t, c, srv, path, bearer, "application/json", []byte(body))
			if code != 200 || out["status_code"] != 1.0 {
				t.Errorf("%s %q: HTTP %d %v; want 200 with status_code 1", path, body, code, out)
			}
		}
	}
}

// TestFloodOfBadRequestsDoesNotDisturbGoodOnes runs good payments while
// other clients send malformed, oversized, unauthenticated and garbage
// requests and hold trickling connections: every good payment is answered
// correctly and stored once, and every bad request gets its refusal.
func TestFloodOfBadRequestsDoesNotDisturbGoodOnes(t *testing.T) {
	t.Parallel() // a server, state folder and client of its own
	srv := steadyServer(t)
	c := sandboxClient(t)
	bearer := serverBearer(t, c, srv)
	now := time.Now()

	const goodWorkers, perWorker = 4, 8
	const badWorkers, perBad = 6, 40
	type bad struct {
		name, path, bearer string
		body               []byte
		wantHTTP           int
		wantStatus         float64 // 0: no status_code expected
	}
	bads := []bad{
		{"malformed", "/api/walletPay", bearer, []byte(`{"invoice_id":`), 200, 1},
		{"array", "/api/commissions", bearer, []byte(`[[[[[[[[[[]]]]]]]]]]`), 200, 1},
		{"oversized", "/api/walletPay", bearer, bytes.Repeat([]byte("x"), 9<<10), 413, 1},
		{"no token", "/api/walletPay", "", []byte(`{}`), 401, 0},
		{"forged token", "/api/checkstatus", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", []byte(`{}`), 401, 0},
		{"bad hash", "/api/walletPay", bearer, mustJSON(t, map[string]string{"merchant_key": MerchantKey, "hash_key": "x:y:z",
			"invoice_id": "BAD", "wallet_transient_token": "a.b.c", "name": "n", "surname": "s", "bill_email": "a@b.co"}), 200, 90},
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Raw-TCP pests: garbage bytes and connections that trickle headers.
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				conn, err := net.Dial("tcp", hostOf(srv))
				if err != nil {
					t.Errorf("pest dial: %v", err)
					return
				}
				if i%2 == 0 {
					io.WriteString(conn, "\x16\x03\x01 garbage that is not HTTP\r\n\r\n")
				} else {
					io.WriteString(conn, "POST "+Base+"/api/walletPay HTTP/1.1\r\nHost: s\r\n")
				}
				waitClosed(t, conn)
				conn.Close()
			}
		}()
	}
	var badWG sync.WaitGroup
	for w := range badWorkers {
		badWG.Add(1)
		go func() {
			defer badWG.Done()
			for i := range perBad {
				b := bads[(w+i)%len(bads)]
				code, out := post(t, c, srv, b.path, b.bearer, "application/json", b.body)
				if code != b.wantHTTP || b.wantStatus != 0 && out["status_code"] != b.wantStatus {
					t.Errorf("bad request %q: HTTP %d %v; want HTTP %d status_code %v", b.name, code, out, b.wantHTTP, b.wantStatus)
				}
			}
		}()
	}
	var goodWG sync.WaitGroup
	for w := range goodWorkers {
		goodWG.Add(1)
		go func() {
			defer goodWG.Done()
			for i := range perWorker {
				invoice := fmt.Sprintf("FLOOD-%d-%d", w, i)
				amount := fmt.Sprintf("%d.%02d", 10+w, i) // never .41 or .69
				tok, err := IssueWalletToken(WalletRequest{Amount: decimalOf(amount), Currency: "TRY", CardNumber: DefaultWalletCard,
					Wallet: WalletDeviceVendor, TTL: 10 * time.Minute}, now, invoice)
				if err != nil {
					t.Error(err)
					return
				}
				code, out := post(t, c, srv, "/api/walletPay", bearer, "application/json", mustJSON(t, payBody(t, invoice, tok, amount, "TRY")))
				data, _ := out["data"].(map[string]any)
				if code != 200 || out["status_code"] != 100.0 || data["invoice_id"] != invoice {
					t.Errorf("good payment %s: HTTP %d %v", invoice, code, out)
				}
				code, out = post(t, c, srv, "/api/checkstatus", bearer, "application/json", mustJSON(t, statusBodyFor(t, invoice)))
				if code != 200 || out["status_code"] != 100.0 || out["invoice_id"] != invoice || out["transaction_status"] != "Completed" {
					t.Errorf("good check status %s: HTTP %d %v", invoice, code, out)
				}
			}
		}()
	}
	goodWG.Wait()
	badWG.Wait()
	close(stop)
	wg.Wait()

	sales, err := srv.store.Sales()
	if err != nil {
		t.Fatal(err)
	}
	if len(sales) != goodWorkers*perWorker {
		t.Fatalf("%d sales stored, want %d", len(sales), goodWorkers*perWorker)
	}
	for _, s := range sales {
		if !strings.HasPrefix(s.InvoiceID, "FLOOD-") {
			t.Errorf("stored a sale for %q", s.InvoiceID)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFaultDelaysOutliveTheReadTimeout: the read timeout bounds reading a
// request, not answering it, so a delay fault longer than the read timeout
// still gets its answer.
func TestFaultDelaysOutliveTheReadTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{StateDir: t.TempDir(), LockTimeout: time.Second, Gateway: Options{Now: time.Now, Faults: true},
		Timeouts: Timeouts{ReadHeader: 300 * time.Millisecond, Read: 300 * time.Millisecond, Idle: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	req, _ := http.NewRequest("POST", srv.BaseURL+"/api/token", strings.NewReader(`{}`))
	req.Header.Set(FaultHeader, "delay=1s")
	resp, err := sandboxClient(t).Do(req)
	if err != nil {
		t.Fatalf("a delayed answer was cut off: %v", err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out["status_code"] != 1.0 {
		t.Fatalf("delayed answer: HTTP %d %v %v; want the token call's status_code 1", resp.StatusCode, out, err)
	}
}
