package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// benchGateway is a Gateway over a fresh store, with the real clock and ids.
func benchGateway(b *testing.B) *Gateway {
	b.Helper()
	store, err := OpenStore(b.TempDir(), time.Second, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	gw, err := New(Options{Now: time.Now, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	return gw
}

// serveBench sends body to path through gw and fails unless the answer is
// HTTP 200 with status_code 100.
func serveBench(b *testing.B, gw *Gateway, path, bearer string, body []byte) {
	req := httptest.NewRequest("POST", Base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"status_code":100`)) {
		b.Fatalf("%s: HTTP %d %s", path, rec.Code, rec.Body)
	}
}

// BenchmarkToken measures POST /api/token: credentials check and signing a
// bearer JWT.
func BenchmarkToken(b *testing.B) {
	gw := benchGateway(b)
	body, _ := json.Marshal(map[string]string{"app_id": AppID, "app_secret": AppSecret})
	b.ReportAllocs()
	for b.Loop() {
		serveBench(b, gw, "/api/token", "", body)
	}
}

// BenchmarkCommissions measures the commission lookup of the embedded
// schedule, bearer check included.
func BenchmarkCommissions(b *testing.B) {
	for _, by := range []string{"merchant", "user"} {
		b.Run(by, func(b *testing.B) {
			gw := benchGateway(b)
			bearer, _, _ := issueBearer(AppID, time.Now(), time.Hour, "b")
			body, _ := json.Marshal(map[string]string{"currency_code": "TRY", "commission_by": by, "app_lang": "en"})
			b.ReportAllocs()
			for b.Loop() {
				serveBench(b, gw, "/api/commissions", bearer, body)
			}
		})
	}
}

// BenchmarkCheckStatus measures a check status of a completed sale: bearer
// check, hash decrypt and one read transaction.
func BenchmarkCheckStatus(b *testing.B) {
	gw := benchGateway(b)
	now := time.Now()
	bearer, _, _ := issueBearer(AppID, now, time.Hour, "b")
	wt, _ := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard, Wallet: "001", TTL: time.Hour}, now, "w")
	pay, _ := json.Marshal(payBody(b, "INV-S1", wt, "150.00", "TRY"))
	serveBench(b, gw, "/api/walletPay", bearer, pay)
	body, _ := json.Marshal(statusBodyFor(b, "INV-S1"))
	b.ReportAllocs()
	for b.Loop() {
		serveBench(b, gw, "/api/checkstatus", bearer, body)
	}
}
