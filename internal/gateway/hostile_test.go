package gateway

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamBody answers status with a JSON-looking body of n bytes (an
// unterminated array of zeros), written from a fixed buffer so that the
// server side allocates almost nothing; it stops when the client hangs up.
func streamBody(status int, prefix string, n int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		chunk := []byte(strings.Repeat("0,", 16<<10))
		written, _ := w.Write([]byte(prefix))
		for left := n - int64(written); left > 0; left -= int64(len(chunk)) {
			if int64(len(chunk)) > left {
				chunk = chunk[:left]
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// allocatedBy returns the bytes allocated (by the whole process) while fn
// ran. It is a loose upper bound of what fn allocated: tests compare it
// with the size of what the server sent, never with a time.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileResponsesAreRefusedWithBoundedMemory sends responses no
// gateway should send — far larger than the limits, nested deeper than
// any decoder should follow, or not UTF-8 — and checks that each is refused
// as a typed error, as an unknown outcome for walletPay, and that reading
// it allocates a small multiple of the limit, not of what was sent.
func TestHostileResponsesAreRefusedWithBoundedMemory(t *testing.T) {
	// What an endless body would have us read, per call. The allocation
	// bounds are 16 MiB to 64 MiB: far below that, yet loose enough for the
	// race detector, which about doubles the figures.
	const sent = 256 << 20
	tests := []struct {
		name     string
		answer   reply
		fault    http.HandlerFunc // an endless body instead of an answer
		problem  string
		maxAlloc uint64
	}{
		{"oversized success body", nil, streamBody(200, `{"status_code":100,"data":[`, sent),
			"the body is larger than 4 MiB", 16 * MaxResponseBytes},
		{"oversized error body", nil, streamBody(503, `{"status_code":99,"data":[`, sent),
			"", 256 * MaxErrorBytes},
		{"deeply nested body", textReply(200, `{"status_code":100,"data":`+strings.Repeat(`{"a":`, 200_000)+`1`+strings.Repeat(`}`, 200_000)+`}`), nil,
			"the body is not valid JSON", 16 * MaxResponseBytes},
		{"deeply nested arrays", textReply(200, `{"status_code":100,"data":`+strings.Repeat(`[`, 1_000_000)+strings.Repeat(`]`, 1_000_000)+`}`), nil,
			"the body is not valid JSON", 16 * MaxResponseBytes},
		{"non-UTF-8 body", textReply(200, "{\"status_code\":100,\"status_description\":\"ok\xff\xfe\",\"data\":{\"order_id\":\"VP\xc3\x28\"}}"), nil,
			"the body is not valid UTF-8", 4 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c *Client
			var paid func() int
			if tc.fault != nil {
				f := newFaultServer(t, tc.fault)
				c, paid = f.client(t), func() int { return f.countOf("walletPay") }
			} else {
				g := newGateway(t)
				tc.answer(g, "walletPay")
				tc.answer(g, "commissions")
				c, paid = newTestClient(t, g.URL+"/ccpayment"), func() int { return g.Count(api("walletPay")) }
			}
			if _, _, err := c.BearerToken(context.Background(), false); err != nil {
				t.Fatal(err) // warm the token outside the measurement
			}
			var payErr, lookupErr error
			alloc := allocatedBy(func() {
				_, payErr = c.WalletPay(context.Background(), walletPayReq())
				_, lookupErr = c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
			})
			for _, err := range []error{payErr, lookupErr} {
				var apiErr *APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("got %T %v, want *APIError", err, err)
				}
				if !strings.Contains(apiErr.Problem, tc.problem) {
					t.Errorf("problem %q, want it to say %q", apiErr.Problem, tc.problem)
				}
				if len(err.Error()) > 300 {
					t.Errorf("error is %d bytes long", len(err.Error()))
				}
			}
			if !errors.Is(payErr, ErrOutcomeUnknown) {
				t.Errorf("walletPay: %v, want an unknown outcome", payErr)
			}
			if !errors.Is(lookupErr, ErrUnavailable) {
				t.Errorf("commissions: %v, want unavailable", lookupErr)
			}
			if n := paid(); n != 1 {
				t.Errorf("walletPay sent %d times", n)
			}
			if alloc > tc.maxAlloc {
				t.Errorf("reading the responses allocated %d MiB, want at most %d MiB", alloc>>20, tc.maxAlloc>>20)
			}
			t.Logf("allocated %.1f MiB", float64(alloc)/(1<<20))
		})
	}
}

// TestCertificateErrorsSayWhatToDo checks that a gateway whose certificate
// is not trusted is refused before anything is sent, with a message
// naming ca_cert, and that ca_cert with the gateway's CA makes it trusted.
func TestCertificateErrorsSayWhatToDo(t *testing.T) {
	var hits, conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		writeJSON(w, 200, `{"status_code":100,"data":{"token":"`+makeJWT(testNow.Add(2*time.Hour), "tls")+`"}}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()

	hc, err := NewHTTPClient(TransportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv.URL+"/ccpayment", WithHTTPClient(hc))
	_, err = c.Token(context.Background())
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("untrusted certificate: %v, want unavailable", err)
	}
	for _, want := range []string{"token: the gateway's TLS certificate is not signed by a trusted authority", "set ca_cert"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if hits.Load() != 0 || conns.Load() != 1 {
		t.Fatalf("%d requests reached an untrusted gateway over %d connections; want none over 1 (no retry)", hits.Load(), conns.Load())
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	hc, err = NewHTTPClient(TransportOptions{CACertFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	c = newTestClient(t, srv.URL+"/ccpayment", WithHTTPClient(hc))
	if _, err := c.Token(context.Background()); err != nil {
		t.Fatalf("with ca_cert: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d requests with ca_cert, want 1", hits.Load())
	}

	// The same certificate presented for another name is refused with
	// advice about base_url, not ca_cert.
	hc, _ = NewHTTPClient(TransportOptions{CACertFile: caFile})
	hc.Transport.(*http.Transport).TLSClientConfig.ServerName = "gateway.invalid"
	c = newTestClient(t, srv.URL+"/ccpayment", WithHTTPClient(hc))
	_, err = c.Token(context.Background())
	var hostErr x509.HostnameError
	if !errors.As(err, &hostErr) || !strings.Contains(err.Error(), "not valid for gateway.invalid") || !strings.Contains(err.Error(), "check base_url") {
		t.Fatalf("wrong host: %v", err)
	}
}
