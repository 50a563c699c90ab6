package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestParseFault(t *testing.T) {
	good := map[string]fault{
		"delay=2s":              {delay: 2e9, truncate: -1},
		"status=503":            {status: 503, truncate: -1},
		"reset=before":          {reset: "before", truncate: -1},
		"reset=after":           {reset: "after", truncate: -1},
		"truncate=20":           {truncate: 20},
		"delay=1ms, truncate=0": {delay: 1e6, truncate: 0},
	}
	for v, want := range good {
		got, err := parseFault(v)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", v, got, err, want)
		}
	}
	for _, v := range []string{"delay", "delay=soon", "status=42", "reset=middle", "truncate=-1", "explode=1"} {
		if _, err := parseFault(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

// TestFaults drives each fault over a real connection.
func TestFaults(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.Faults = true })
	srv := httptest.NewServer(fx.gw)
	defer srv.Close()
	bearer := fx.bearer()
	send := func(invoice, fault string) (*http.Response, []byte, error) {
		body, _ := json.Marshal(payBody(t, invoice, fx.walletToken("30.00", "TRY"), "30.00", "TRY"))
		req, _ := http.NewRequest("POST", srv.URL+Base+"/api/walletPay", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set(FaultHeader, fault)
		// A fresh connection per request: a reset must not poison the next.
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		return resp, data, err
	}
	stored := func(invoice string) bool {
		_, ok, err := fx.store.Get(invoice)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	if resp, _, err := send("F-503", "status=503"); err != nil || resp.StatusCode != 503 || stored("F-503") {
		t.Errorf("status=503: %v %v stored=%v", resp, err, stored("F-503"))
	}
	if _, _, err := send("F-RB", "reset=before"); err == nil || stored("F-RB") {
		t.Errorf("reset=before: err %v, stored=%v", err, stored("F-RB"))
	}
	if _, _, err := send("F-RA", "reset=after"); err == nil || !stored("F-RA") {
		t.Errorf("reset=after: err %v, stored=%v (the payment must be made)", err, stored("F-RA"))
	}
	resp, data, err := send("F-TR", "truncate=20")
	if err == nil || len(data) != 20 || !stored("F-TR") {
		t.Errorf("truncate=20: resp %v, %d bytes %q, err %v", resp, len(data), data, err)
	}
	if resp, data, err := send("F-D", "delay=1ms"); err != nil || resp.StatusCode != 200 || !bytes.Contains(data, []byte(`"status_code":100`)) {
		t.Errorf("delay: %v %s %v", resp, data, err)
	}
	if resp, _, err := send("F-BAD", "explode=1"); err != nil || resp.StatusCode != 400 || stored("F-BAD") {
		t.Errorf("bad fault header: %v %v", resp, err)
	}
}

func TestFaultHeaderIgnoredWhenOff(t *testing.T) {
	fx := newFixture(t)
	res := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, map[string]string{FaultHeader: "status=503"})
	if res.Code != 200 || res.status() != 100 {
		t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
	}
}
