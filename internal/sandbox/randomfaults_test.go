package sandbox

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRandomFaultsRate(t *testing.T) {
	api := httptest.NewRequest("POST", Base+"/api/walletPay", nil)
	health := httptest.NewRequest("GET", HealthPath, nil)
	never, _ := NewRandomFaults(1, 0, time.Second)
	always, _ := NewRandomFaults(1, 1, 3*time.Second)
	kinds := map[string]int{}
	for range 500 {
		if v := never.Pick(api); v != "" {
			t.Fatalf("rate 0 picked %q", v)
		}
		if v := always.Pick(health); v != "" {
			t.Fatalf("the health probe got a fault: %q", v)
		}
		v := always.Pick(api)
		if _, err := parseFault(v); err != nil {
			t.Fatalf("picked %q, not a valid header: %v", v, err)
		}
		if FaultKind(v) == "delay" && v != "delay=3s" {
			t.Errorf("delay fault %q, want the configured 3s", v)
		}
		kinds[FaultKind(v)]++
	}
	for _, k := range FaultKinds() {
		if kinds[k] == 0 {
			t.Errorf("kind %s never picked in 500 draws: %v", k, kinds)
		}
	}
	if len(kinds) != len(FaultKinds()) {
		t.Errorf("kinds picked %v, want only %v", kinds, FaultKinds())
	}
}

func TestRandomFaultsSeeded(t *testing.T) {
	api := httptest.NewRequest("POST", Base+"/api/token", nil)
	draw := func(seed uint64) []string {
		p, err := NewRandomFaults(seed, 0.5, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range 50 {
			out = append(out, p.Pick(api))
		}
		return out
	}
	a, b, c := draw(7), draw(7), draw(8)
	same := func(x, y []string) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("the same seed drew different faults")
	}
	if same(a, c) {
		t.Error("different seeds drew the same 50 faults")
	}
}

func TestNewRandomFaultsInvalid(t *testing.T) {
	for _, tt := range []struct {
		rate  float64
		delay time.Duration
	}{{-0.1, time.Second}, {1.5, time.Second}, {0.5, 0}} {
		if _, err := NewRandomFaults(1, tt.rate, tt.delay); err == nil {
			t.Errorf("rate %v delay %v accepted", tt.rate, tt.delay)
		}
	}
}

// TestPickFault: a gateway with faults on applies PickFault to requests
// without the header; a header sent by the client wins; with faults off
// PickFault is never consulted.
func TestPickFault(t *testing.T) {
	pick := func(*http.Request) string { return "status=503" }
	fx := newFixture(t, func(o *Options) { o.Faults, o.PickFault = true, pick })
	if r := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, nil); r.Code != 503 {
		t.Errorf("picked fault: HTTP %d, want 503", r.Code)
	}
	if r := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, map[string]string{FaultHeader: "status=502"}); r.Code != 502 {
		t.Errorf("client's header: HTTP %d, want 502", r.Code)
	}
	off := newFixture(t, func(o *Options) { o.PickFault = pick })
	if r := off.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, nil); r.Code != 200 || r.status() != 100 {
		t.Errorf("faults off: HTTP %d status_code %d, want a token", r.Code, r.status())
	}
}

func TestFaultKind(t *testing.T) {
	for v, want := range map[string]string{
		"delay=5s": "delay", "truncate=12": "truncate", "status=503": "status=503",
		"status=502,body=html": "status=502", "reset=after": "reset=after",
	} {
		if got := FaultKind(v); got != want {
			t.Errorf("FaultKind(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestStatusFaultHTML: body=html answers the status with an HTML page, as
// a load balancer would; without it the status comes with JSON.
func TestStatusFaultHTML(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.Faults = true })
	body := map[string]string{"app_id": AppID, "app_secret": AppSecret}
	req := httptest.NewRequest("POST", Base+"/api/token", strings.NewReader(`{}`))
	req.Header.Set(FaultHeader, "status=502,body=html")
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	if rec.Code != 502 || rec.Header().Get("Content-Type") != "text/html" || !strings.HasPrefix(rec.Body.String(), "<html>") ||
		!strings.Contains(rec.Body.String(), "502 Bad Gateway") {
		t.Errorf("HTTP %d %q, want 502 with an HTML page", rec.Code, rec.Body)
	}
	r := fx.call("POST", Base+"/api/token", body, map[string]string{FaultHeader: "status=502,body=json"})
	if r.Code != 502 || r.Body["message"] == nil {
		t.Errorf("HTTP %d %q, want 502 with a JSON message", r.Code, r.Raw)
	}
	if _, err := parseFault("status=502,body=xml"); err == nil {
		t.Error("body=xml accepted")
	}
}

// TestCustomCredentials: a gateway given its own credentials accepts them
// (token, then a bearer call) and refuses the published ones.
func TestCustomCredentials(t *testing.T) {
	creds := Credentials{AppID: "custom-app", AppSecret: "custom-secret", MerchantKey: "custom-merchant"}
	fx := newFixture(t, func(o *Options) { o.Credentials = creds })
	if r := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, nil); r.Code != 401 {
		t.Errorf("published credentials: HTTP %d, want 401", r.Code)
	}
	r := fx.call("POST", Base+"/api/token", map[string]string{"app_id": creds.AppID, "app_secret": creds.AppSecret}, nil)
	if r.status() != 100 {
		t.Fatalf("custom credentials: %s", r.Raw)
	}
	bearer := r.data()["token"].(string)
	st := fx.call("POST", Base+"/api/checkstatus", map[string]any{"merchant_key": MerchantKey, "invoice_id": "X", "hash_key": "h"},
		map[string]string{"Authorization": "Bearer " + bearer})
	if st.status() != 14 {
		t.Errorf("the published merchant_key: status_code %d, want 14", st.status())
	}
	if err := verifyBearer(bearer, AppID, testStart); err == nil {
		t.Error("a bearer token of the custom app passes as the published app's")
	}
}
