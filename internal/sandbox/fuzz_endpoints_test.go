package sandbox

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// fuzzGateway is a Gateway over a fresh store at testStart, for fuzz targets.
func fuzzGateway(f *testing.F) (*Gateway, *Store) {
	f.Helper()
	store, err := OpenStore(f.TempDir(), time.Second, testStart)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	gw, err := New(Options{Store: store, Now: func() time.Time { return testStart }, MaxBodyBytes: 4096})
	if err != nil {
		f.Fatal(err)
	}
	return gw, store
}

// serveFuzzed sends one request through the handler and returns the HTTP
// status and the decoded answer, failing when the answer is not a JSON
// object.
func serveFuzzed(t *testing.T, gw *Gateway, req *http.Request) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out == nil {
		t.Fatalf("answer is not a JSON object: %q", rec.Body.String())
	}
	return rec.Code, out
}

// signWalletClaims makes a wallet token whose payload is claims verbatim,
// signed with the sandbox's wallet key (or with another key when !signed).
func signWalletClaims(claims []byte, signed bool) string {
	enc := base64.RawURLEncoding.EncodeToString
	unsigned := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(claims)
	key := []byte(WalletSigningKey)
	if !signed {
		key = []byte("not-the-wallet-key")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(unsigned))
	return unsigned + "." + enc(mac.Sum(nil))
}

// FuzzWalletToken decodes arbitrary wallet-token claims through the
// walletPay handler, with a valid hash_key for a fuzzed total and currency.
// The handler must answer JSON with a status_code, and a sale may be stored
// only for a token signed with the wallet key whose amount and currency
// are exactly the ones the hash_key covers.
func FuzzWalletToken(f *testing.F) {
	exp := testStart.Add(10 * time.Minute).Unix()
	valid := func(amount any) []byte {
		b, _ := json.Marshal(map[string]any{"amount": amount, "currency": "TRY", "wallet": "001",
			"card": map[string]string{"bin": "435508", "last4": "4358"}, "exp": exp})
		return b
	}
	f.Add(valid("150.00"), "150.00", "TRY", true)
	f.Add(valid(150), "150", "TRY", true)
	f.Add(valid("150.00"), "150.00", "TRY", false)
	f.Add(valid("1e2"), "100", "TRY", true)
	f.Add(valid("-5"), "-5", "TRY", true)
	f.Add(valid("150.41"), "150.41", "TRY", true)
	f.Add([]byte(`{"amount":"1","currency":"USD","card":{"bin":"435508","last4":"4358"}}`), "1", "USD", true)
	f.Add([]byte(`{"amount":[],"card":null}`), "0", "", true)
	f.Add([]byte(`not json`), "1", "TRY", true)
	gw, store := fuzzGateway(f)
	bearer, _, _ := issueBearer(AppID, testStart, time.Hour, "fuzz")
	const invoice = "FUZZ-INV-1"
	f.Fuzz(func(t *testing.T, claims []byte, total, currency string, signed bool) {
		body, err := json.Marshal(payBody(t, invoice, signWalletClaims(claims, signed), total, currency))
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", Base+"/api/walletPay", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+bearer)
		code, out := serveFuzzed(t, gw, req)
		if _, ok := out["status_code"]; !ok {
			t.Fatalf("HTTP %d without status_code: %v", code, out)
		}
		sale, stored, err := store.Get(invoice)
		if err != nil {
			t.Fatal(err)
		}
		if !stored {
			return
		}
		defer func() {
			if err := store.Reset(); err != nil {
				t.Fatal(err)
			}
		}()
		var c struct {
			Amount   json.RawMessage `json:"amount"`
			Currency string          `json:"currency"`
		}
		_ = json.Unmarshal(claims, &c)
		claimed, _ := decimal.NewFromString(string(bytes.Trim(c.Amount, `"`)))
		covered, herr := decimal.NewFromString(total)
		switch {
		case !signed:
			t.Fatalf("a token with a bad signature stored %+v", sale)
		case herr != nil || !covered.Equal(decimal.RequireFromString(sale.Amount)) || !claimed.Equal(covered):
			t.Fatalf("sale of %s stored for claims %s under a hash_key for %q", sale.Amount, claims, total)
		case sale.Currency != currency || c.Currency != currency:
			t.Fatalf("sale in %s stored for claims %s under a hash_key for %q", sale.Currency, claims, currency)
		}
	})
}

// FuzzCommissionsQuery sends arbitrary query strings to the GET form of
// the commission lookup: every answer is JSON with a status_code, and a
// success carries a data object.
func FuzzCommissionsQuery(f *testing.F) {
	for _, q := range []string{"currency_code=TRY", "currency_code=try&commission_by=user&app_lang=en",
		"currency_code=XXX", "currency_code=TRY&commission_by=bank", "currency_code=%zz", "a=1&a=2", ";", ""} {
		f.Add(q)
	}
	gw, _ := fuzzGateway(f)
	bearer, _, _ := issueBearer(AppID, testStart, time.Hour, "fuzz")
	f.Fuzz(func(t *testing.T, query string) {
		u := &url.URL{Path: Base + "/api/commissions", RawQuery: query}
		req := httptest.NewRequest("GET", "http://sandbox.test/", nil)
		req.URL = u
		req.RequestURI = u.RequestURI()
		req.Header.Set("Authorization", "Bearer "+bearer)
		code, out := serveFuzzed(t, gw, req)
		sc, ok := out["status_code"].(float64)
		if !ok {
			t.Fatalf("HTTP %d without status_code: %v", code, out)
		}
		if _, isObject := out["data"].(map[string]any); sc == 100 && !isObject {
			t.Fatalf("success without a data object: %v", out)
		}
	})
}

// FuzzBearer sends arbitrary Authorization headers: a request is served
// only with the sandbox's bearer token; anything else gets HTTP 401 with
// a JSON message.
func FuzzBearer(f *testing.F) {
	bearer, _, _ := issueBearer(AppID, testStart, time.Hour, "fuzz")
	expired, _, _ := issueBearer(AppID, testStart.Add(-3*time.Hour), time.Hour, "old")
	for _, h := range []string{"Bearer " + bearer, bearer, "bearer  " + bearer + " ", "Bearer " + expired,
		"Bearer x.y.z", "Basic Zm9vOmJhcg==", "", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."} {
		f.Add(h)
	}
	gw, _ := fuzzGateway(f)
	body := []byte(`{"currency_code":"TRY"}`)
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest("POST", Base+"/api/commissions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header["Authorization"] = []string{header}
		code, out := serveFuzzed(t, gw, req)
		if code == http.StatusUnauthorized {
			if _, ok := out["message"].(string); !ok {
				t.Fatalf("401 without a message: %v", out)
			}
			return
		}
		if err := verifyBearer(bearerOf(header), AppID, testStart); err != nil {
			t.Fatalf("header %q served (HTTP %d) though its token is refused: %v", header, code, err)
		}
	})
}

// bearerOf is the token of an Authorization header, as the gateway reads it.
func bearerOf(header string) string {
	h := bytes.TrimSpace([]byte(header))
	if len(h) > 7 && bytes.EqualFold(h[:7], []byte("bearer ")) {
		h = bytes.TrimSpace(h[7:])
	}
	return string(h)
}
