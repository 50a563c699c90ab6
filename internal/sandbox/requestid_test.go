package sandbox

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestIDOnEveryAnswer: every answer carries X-Request-Id, the
// client's when sane, else one the sandbox made (from its injected
// generator); the log keeps it.
func TestRequestIDOnEveryAnswer(t *testing.T) {
	n := 0
	fx, rl := explainedFixture(t, func(o *Options) {
		o.NewRequestID = func() string { n++; return "req_test" + strings.Repeat("x", n) }
	})
	for _, c := range []struct {
		method, path, sent, want string
	}{
		{"POST", Base + "/api/token", "", "req_testx"},
		{"POST", Base + "/api/token", "client-1.trace:7_a", "client-1.trace:7_a"},
		{"POST", Base + "/api/walletPay", "has blanks", "req_testxx"},
		{"POST", Base + "/api/walletPay", strings.Repeat("a", 129), "req_testxxx"},
		{"GET", Base + "/api/nothing", "", "req_testxxxx"},
		{"GET", HealthPath, "probe-1", "probe-1"},
	} {
		h := map[string]string{}
		if c.sent != "" {
			h[RequestIDHeader] = c.sent
		}
		rec := fx.send(c.method, c.path, "application/json", "{}", h)
		if got := rec.Header().Get(RequestIDHeader); got != c.want {
			t.Errorf("%s %s with %q: X-Request-Id %q, want %q", c.method, c.path, c.sent, got, c.want)
		}
		if c.path != HealthPath {
			if e := lastEntry(t, rl); e.RequestID != c.want {
				t.Errorf("%s %s: logged request id %q, want %q", c.method, c.path, e.RequestID, c.want)
			}
		}
	}
	// The default generator: no clock, distinct ids.
	gen := NewRequestIDs(bytes.NewReader(bytes.Repeat([]byte{0xab}, 20)))
	if a, b := gen(), gen(); a != "req_abababababababababab" || b != a {
		t.Errorf("generated from a fixed reader: %q %q", a, b)
	}
	if a, b := NewRequestIDs(nil)(), NewRequestIDs(nil)(); a == b || !SaneRequestID(a) {
		t.Errorf("generated: %q %q", a, b)
	}
}

// TestLogBodiesMasked: with LogBodies the log keeps each request's and
// answer's body with secrets and card numbers masked; without, none.
func TestLogBodiesMasked(t *testing.T) {
	fx, rl := explainedFixture(t, func(o *Options) { o.LogBodies = true })
	bearer := fx.bearer()
	token := lastEntry(t, rl)
	if !strings.Contains(token.RequestBody, `"app_secret":"`+AppSecret[:4]+"••••") || !strings.Contains(token.AnswerBody, `"token":"`) ||
		strings.Contains(token.AnswerBody, bearer) {
		t.Errorf("token bodies: %q → %q", token.RequestBody, token.AnswerBody)
	}
	fx.pay2D("BODY-1", "4355084355084358", "10.00", 1, TypeAuth)
	pay := lastEntry(t, rl)
	for _, want := range []string{`"cc_no":"435508******4358"`, `"cvv":"••••••••"`, `"merchant_key":"` + MerchantKey[:4] + "••••", `"invoice_id":"BODY-1"`} {
		if !strings.Contains(pay.RequestBody, want) {
			t.Errorf("paySmart2D request body lacks %s: %s", want, pay.RequestBody)
		}
	}
	if !strings.Contains(pay.AnswerBody, `"credit_card_no":"435508******4358"`) || !strings.Contains(pay.AnswerBody, `"hash_key":"`) {
		t.Errorf("paySmart2D answer body: %s", pay.AnswerBody)
	}
	form := threeDBody(t, "BODY-2", "4355084355084358", "10.00", CompletedByApp, TypeAuth)
	fx.send("POST", Base+"/api/paySmart3D", "application/x-www-form-urlencoded", form.Encode(), nil)
	page := lastEntry(t, rl)
	q, err := url.ParseQuery(page.RequestBody)
	if err != nil || q.Get("cc_no") != "435508******4358" || q.Get("invoice_id") != "BODY-2" || !strings.Contains(page.AnswerBody, "text/html") {
		t.Errorf("paySmart3D form: %q (%v) → %q", page.RequestBody, err, page.AnswerBody)
	}
	for _, name := range []string{RequestLogFile} {
		data, _ := os.ReadFile(filepath.Join(rl.dir, name))
		for _, secret := range []string{AppSecret, MerchantKey, "4355084355084358", bearer} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds a secret %s…", name, secret[:6])
			}
		}
	}

	plain, plainLog := explainedFixture(t)
	plain.bearer()
	if e := lastEntry(t, plainLog); e.RequestBody != "" || e.AnswerBody != "" {
		t.Errorf("bodies kept without LogBodies: %+v", e)
	}
}
