package gateway

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJSON answers for the TLS servers of the certificate tests, which
// the recorded-answer server (plain HTTP) cannot stand in for.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// TestExtraCA: a gateway with a private CA is trusted only through
// ca_cert; verification is never skipped.
func TestExtraCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"status_code":100,"data":{"token":"opaque","expires_at":""}}`)
	}))
	defer srv.Close()
	base := srv.URL + "/ccpayment"

	plain, err := NewHTTPClient(TransportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = newTestClient(t, base, WithHTTPClient(plain)).Token(context.Background())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("an unknown CA was accepted or misreported: %v", err)
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	trusting, err := NewHTTPClient(TransportOptions{CACertFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newTestClient(t, base, WithHTTPClient(trusting)).Token(context.Background()); err != nil {
		t.Errorf("with ca_cert: %v", err)
	}
}

func TestNewHTTPClientErrors(t *testing.T) {
	if _, err := NewHTTPClient(TransportOptions{CACertFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil || !strings.HasPrefix(err.Error(), "ca_cert: ") {
		t.Errorf("missing CA file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	_ = os.WriteFile(bad, []byte("not a certificate"), 0o600)
	if _, err := NewHTTPClient(TransportOptions{CACertFile: bad}); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("bad CA file: %v", err)
	}
	hc, _ := NewHTTPClient(TransportOptions{})
	if hc.Timeout <= 0 || hc.Transport.(*http.Transport).Proxy == nil || hc.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify {
		t.Errorf("default client: timeout %v, proxy set %v", hc.Timeout, hc.Transport.(*http.Transport).Proxy != nil)
	}
}

// TestWithHTTPClientCopies: changing the caller's client later does not
// change the gateway client.
func TestWithHTTPClientCopies(t *testing.T) {
	hc := &http.Client{}
	c := newTestClient(t, "https://gw.example/ccpayment", WithHTTPClient(hc))
	hc.Timeout = 1
	if c.hc == hc || c.hc.Timeout == 1 {
		t.Error("the HTTP client was not copied")
	}
}
