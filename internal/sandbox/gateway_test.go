package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestToken(t *testing.T) {
	tests := []struct {
		name     string
		body     any
		ctype    string
		wantHTTP int
		wantCode int
		wantDesc string
	}{
		{"valid", map[string]string{"app_id": AppID, "app_secret": AppSecret}, "", 200, 100, "Successfully generated token"},
		{"form body", "app_id=" + AppID + "&app_secret=" + AppSecret, "application/x-www-form-urlencoded", 200, 100, "Successfully generated token"},
		{"json labelled as form (curl -d)", `{"app_id":"` + AppID + `","app_secret":"` + AppSecret + `"}`, "application/x-www-form-urlencoded", 200, 100, "Successfully generated token"},
		{"wrong secret", map[string]string{"app_id": AppID, "app_secret": "nope"}, "", 401, 30, "Invalid credentials"},
		{"wrong app id", map[string]string{"app_id": "nope", "app_secret": AppSecret}, "", 401, 30, "Invalid credentials"},
		{"missing app_id", map[string]string{"app_secret": AppSecret}, "", 200, 1, "The app id field is required."},
		{"missing app_secret", map[string]string{"app_id": AppID}, "", 200, 1, "The app secret field is required."},
		{"empty body", "", "", 200, 1, "The app id field is required."},
		{"malformed JSON", `{"app_id":`, "", 200, 1, "The request body is not a valid JSON object."},
		{"JSON array", `[1,2]`, "", 200, 1, "The request body is not a valid JSON object."},
		{"object field", `{"app_id":{"a":1},"app_secret":"x"}`, "", 200, 1, "The app id must be a string."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			h := map[string]string{}
			if tt.ctype != "" {
				h["Content-Type"] = tt.ctype
			}
			res := fx.call("POST", Base+"/api/token", tt.body, h)
			if res.Code != tt.wantHTTP || res.status() != tt.wantCode || res.desc() != tt.wantDesc {
				t.Fatalf("got HTTP %d %s, want HTTP %d status_code %d %q", res.Code, res.Raw, tt.wantHTTP, tt.wantCode, tt.wantDesc)
			}
		})
	}
}

func TestTokenShape(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.TokenTTL = 30 * time.Minute })
	res := fx.call("POST", Base+"/api/token", map[string]string{"app_id": AppID, "app_secret": AppSecret}, nil)
	d := res.data()
	// 09:04:05 UTC + 30 minutes, written in the gateway's UTC+3.
	if d["expires_at"] != "2026-11-22 12:34:05" {
		t.Errorf("expires_at = %v", d["expires_at"])
	}
	if d["is_3d"] != float64(1) {
		t.Errorf("is_3d = %v", d["is_3d"])
	}
	tok := d["token"].(string)
	if strings.Count(tok, ".") != 2 {
		t.Fatalf("token %q is not JWT-shaped", tok)
	}
	if err := verifyBearer(tok, AppID, testStart.Add(29*time.Minute)); err != nil {
		t.Errorf("token rejected before expiry: %v", err)
	}
	if err := verifyBearer(tok, AppID, testStart.Add(31*time.Minute)); err == nil {
		t.Error("token accepted after expiry")
	}
}

func TestAuthorization(t *testing.T) {
	fx := newFixture(t)
	good := fx.bearer()
	otherKey, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: AppID, ExpiresAt: jwt.NewNumericDate(testStart.Add(time.Hour)),
	}).SignedString([]byte("another key"))
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: AppID}).SignedString([]byte(BearerSigningKey))
	tests := []struct {
		name, header string
		advance      time.Duration
		want         int
	}{
		{"bearer", "Bearer " + good, 0, 200},
		{"lowercase bearer", "bearer " + good, 0, 200},
		{"raw token as the PHP SDK sends it", good, 0, 200},
		{"missing", "", 0, 401},
		{"bearer alone", "Bearer ", 0, 401},
		{"garbage", "Bearer not-a-token", 0, 401},
		{"signed by another key", "Bearer " + otherKey, 0, 401},
		{"no expiry", "Bearer " + noExp, 0, 401},
		{"expired", "Bearer " + good, 2*time.Hour + time.Second, 401},
		{"just before expiry", "Bearer " + good, 2*time.Hour - time.Second, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx.clock.Advance(tt.advance)
			defer fx.clock.Advance(-tt.advance)
			for _, path := range []string{"/api/commissions", "/api/walletPay", "/api/checkstatus"} {
				res := fx.call("POST", Base+path, map[string]string{"currency_code": "TRY"}, map[string]string{"Authorization": tt.header})
				if res.Code != tt.want {
					t.Errorf("%s: HTTP %d %s, want %d", path, res.Code, res.Raw, tt.want)
				}
				if tt.want == 401 && res.Body["message"] != "Unauthenticated." {
					t.Errorf("%s: 401 body %s", path, res.Raw)
				}
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.MaxBodyBytes = 1024 })
	big := `{"app_id":"` + strings.Repeat("a", 2048) + `"}`
	res := fx.call("POST", Base+"/api/token", big, nil)
	if res.Code != http.StatusRequestEntityTooLarge || res.status() != 1 {
		t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
	}
	res = fx.call("POST", Base+"/api/walletPay", big, map[string]string{"Authorization": fx.bearer()})
	if res.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("walletPay: got HTTP %d %s", res.Code, res.Raw)
	}
}

func TestUnknownPathAndHealth(t *testing.T) {
	fx := newFixture(t)
	if res := fx.call("POST", Base+"/api/nope", nil, nil); res.Code != 404 {
		t.Errorf("unknown path: HTTP %d", res.Code)
	}
	if res := fx.call("GET", HealthPath, nil, nil); res.Code != 200 || res.Body["status"] != "ok" {
		t.Errorf("health: HTTP %d %s", res.Code, res.Raw)
	}
}

func TestNewRequiresStore(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New without a store succeeded")
	}
}

func TestNewOrderIDs(t *testing.T) {
	next := NewOrderIDs(func() time.Time { return testStart })
	seen := map[string]bool{}
	for range 1000 {
		id := next()
		if len(id) != 19 || !strings.HasPrefix(id, "VP1795") {
			t.Fatalf("order id %q", id)
		}
		if seen[id] {
			t.Fatalf("order id %s repeated", id)
		}
		seen[id] = true
	}
}
