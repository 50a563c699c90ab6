package sandbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// explainedFixture is a fixture with the default credentials whose
// gateway logs to a request log.
func explainedFixture(t *testing.T, mod ...func(*Options)) (*fixture, *RequestLog) {
	t.Helper()
	rl, err := OpenRequestLog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	fx := newFixture(t, append([]func(*Options){func(o *Options) { o.RequestLog = rl }}, mod...)...)
	return fx, rl
}

// lastEntry is the newest entry of the log.
func lastEntry(t *testing.T, rl *RequestLog) LogEntry {
	t.Helper()
	entries := logEntries(t, rl)
	if len(entries) == 0 {
		t.Fatal("the request log is empty")
	}
	return entries[len(entries)-1]
}

// send serves a raw request through the fixture's gateway.
func (fx *fixture) send(method, path, contentType, body string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fx.gw.ServeHTTP(rec, req)
	return rec
}

// TestCardOutcomesExplained: a paySmart2D decline and pending sale say
// what chose them, and a reused invoice names the sale that holds it
// (they were null, or the bare answer, before).
func TestCardOutcomesExplained(t *testing.T) {
	fx, rl := explainedFixture(t)
	for _, c := range []struct {
		name, invoice, card, total string
		code                       int
		want                       string
	}{
		{"declining test card", "EX-1", "4355080000000054", "10.00", 41, "payment_reason_code 05"},
		{"magic amount .41", "EX-2", "4355084355084358", "10.41", 41, "ends in .41"},
		{"magic amount .69", "EX-3", "4355084355084358", "10.69", 69, "ends in .69"},
		{"3D card on paySmart2D", "EX-4", "4355080000003009", "10.00", 60, "3D Secure"},
	} {
		res := fx.pay2D(c.invoice, c.card, c.total, 1, TypeAuth)
		e := lastEntry(t, rl)
		if res.status() != c.code || !strings.Contains(e.Why, c.want) {
			t.Errorf("%s: status %d, why %q; want %d and %q", c.name, res.status(), e.Why, c.code, c.want)
		}
	}
	first := fx.pay2D("EX-5", "4355084355084358", "10.00", 1, TypeAuth)
	order, _ := first.data()["order_id"].(string)
	for _, again := range []func() response{
		func() response { return fx.pay2D("EX-5", "4355084355084358", "10.00", 1, TypeAuth) },
		func() response {
			return fx.callRaw2("POST", Base+"/api/paySmart3D", threeDBody(t, "EX-5", "4355084355084358", "10.00", CompletedByApp, TypeAuth))
		},
	} {
		again()
		e := lastEntry(t, rl)
		if e.StatusCode == nil || *e.StatusCode != 3 || order == "" || !strings.Contains(e.Why, order) || !strings.Contains(e.Why, KindCard2D) {
			t.Errorf("reused invoice: %+v; want status 3 and a why naming order %s", e, order)
		}
	}
	// A 3D challenge declined says so.
	fx.start3D("EX-6", "4355084355084358", "10.00", CompletedByApp, "decline")
	if e := lastEntry(t, rl); !strings.Contains(e.Why, "Decline") {
		t.Errorf("3D decline: why %q", e.Why)
	}
}

// callRaw2 posts a form and decodes nothing (the answer may be a page).
func (fx *fixture) callRaw2(method, path string, form url.Values) response {
	fx.send(method, path, "application/x-www-form-urlencoded", form.Encode(), map[string]string{"Accept": "application/json"})
	return response{}
}

// TestBodyProblemsExplained: a body that is not one JSON object says
// where or what; a JSON body without a JSON label is read with a note.
func TestBodyProblemsExplained(t *testing.T) {
	fx, rl := explainedFixture(t)
	path := Base + "/api/token"
	for _, c := range []struct {
		name, contentType, body string
		want                    []string
	}{
		{"truncated", "application/json", `{"app_id": "x", "app_sec`, []string{"ends early", "truncated"}},
		{"syntax error", "application/json", "{\n  \"app_id\": \"x\",\n  \"app_secret\" \"y\"\n}", []string{"byte 35", "line 3", "column 16"}},
		{"array", "application/json", `[{"app_id": "x"}]`, []string{"JSON array", "one JSON object"}},
		{"string", "application/json", `"app_id"`, []string{"JSON string"}},
		{"nested member", "application/json", `{"app_id": {"x": 1}}`, []string{"app id must be a string"}},
	} {
		rec := fx.send("POST", path, c.contentType, c.body, nil)
		e := lastEntry(t, rl)
		for _, w := range c.want {
			if !strings.Contains(e.Why, w) {
				t.Errorf("%s: HTTP %d %s; why %q lacks %q", c.name, rec.Code, rec.Body, e.Why, w)
			}
		}
	}
	for _, ct := range []string{"text/plain", "", "application/x-www-form-urlencoded"} {
		rec := fx.send("POST", path, ct, `{"app_id": "`+AppID+`", "app_secret": "`+AppSecret+`"}`, nil)
		e := lastEntry(t, rl)
		if rec.Code != 200 || !strings.Contains(e.Note, "read as JSON anyway") || e.Why != "" {
			t.Errorf("JSON labelled %q: HTTP %d, note %q, why %q", ct, rec.Code, e.Note, e.Why)
		}
	}
	fx.send("POST", path, "application/json", `{"app_id": "`+AppID+`", "app_secret": "`+AppSecret+`"}`, nil)
	if e := lastEntry(t, rl); e.Note != "" {
		t.Errorf("JSON labelled JSON: note %q", e.Note)
	}
}

// TestUnknownPathAndWrongMethod: an unknown path is 404 and a known path
// with another method 405 with Allow, each with its why.
func TestUnknownPathAndWrongMethod(t *testing.T) {
	fx, rl := explainedFixture(t)
	rec := fx.send("POST", Base+"/api/walletPey", "application/json", `{}`, nil)
	if e := lastEntry(t, rl); rec.Code != 404 || !strings.Contains(e.Why, "unknown path /ccpayment/api/walletPey") {
		t.Errorf("unknown path: HTTP %d, why %q", rec.Code, e.Why)
	}
	rec = fx.send("GET", Base+"/api/walletPay", "", "", nil)
	e := lastEntry(t, rl)
	if rec.Code != 405 || rec.Header().Get("Allow") != "POST" || !strings.Contains(e.Why, "method not allowed: GET") ||
		!strings.Contains(rec.Body.String(), "Supported methods: POST") {
		t.Errorf("wrong method: HTTP %d, Allow %q, why %q, body %s", rec.Code, rec.Header().Get("Allow"), e.Why, rec.Body)
	}
	rec = fx.send("DELETE", Base+"/api/commissions", "", "", nil)
	if allow := rec.Header().Get("Allow"); rec.Code != 405 || allow != "GET, HEAD, POST" {
		t.Errorf("wrong method on a GET and POST path: HTTP %d, Allow %q", rec.Code, allow)
	}
}

// refusalCase is a request a route refuses, made after setup.
type refusalCase struct {
	name string
	// send makes the request (bearer is a valid token).
	send func(t *testing.T, fx *fixture, bearer string)
}

func jsonCase(name, path, body string, authed bool) refusalCase {
	return refusalCase{name, func(t *testing.T, fx *fixture, bearer string) {
		h := map[string]string{}
		if authed {
			h["Authorization"] = "Bearer " + bearer
		}
		fx.send("POST", Base+path, "application/json", body, h)
	}}
}

// refusalCases holds, for every route the gateway serves, requests past
// the generic ones (no token, empty, malformed and array bodies, a wrong
// method) that it refuses. A new route must be listed here, or
// TestEveryRefusalIsExplained fails.
var refusalCases = map[string][]refusalCase{
	"POST " + Base + "/api/token": {
		jsonCase("wrong secret", "/api/token", `{"app_id": "`+AppID+`", "app_secret": "nope"}`, false),
	},
	"POST " + Base + "/api/commissions": {
		jsonCase("bad currency", "/api/commissions", `{"currency_code": "T1"}`, true),
		jsonCase("bad commission_by", "/api/commissions", `{"currency_code": "TRY", "commission_by": "x"}`, true),
		jsonCase("unknown currency", "/api/commissions", `{"currency_code": "XYZ"}`, true),
	},
	"GET " + Base + "/api/commissions": {},
	"POST " + Base + "/api/walletPay": {
		{"magic amounts and a reused invoice", func(t *testing.T, fx *fixture, bearer string) {
			for _, amount := range []string{"5.41", "5.69"} {
				fx.authed("/api/walletPay", payBody(t, "WR-"+amount, fx.walletToken(amount, "TRY"), amount, "TRY"))
			}
			fx.authed("/api/walletPay", payBody(t, "WR-5.41", fx.walletToken("5.00", "TRY"), "5.00", "TRY"))
		}},
		jsonCase("wrong merchant_key", "/api/walletPay", `{"merchant_key": "x", "hash_key": "x", "invoice_id": "x", "wallet_transient_token": "x", "name": "a", "surname": "b", "bill_email": "a@b.c"}`, true),
	},
	"POST " + Base + "/api/checkstatus": {
		{"unknown invoice", func(t *testing.T, fx *fixture, bearer string) {
			fx.authed("/api/checkstatus", statusBodyFor(t, "NOPE"))
		}},
	},
	"POST " + Base + "/api/refund": {
		{"unknown invoice", func(t *testing.T, fx *fixture, bearer string) {
			fx.authed("/api/refund", refundBody(t, "NOPE", "1.00", ""))
		}},
	},
	"POST " + Base + "/api/paySmart2D": {
		{"test cards and magic amounts", func(t *testing.T, fx *fixture, bearer string) {
			fx.pay2D("WC-1", "4355080000000518", "10.00", 1, TypeAuth)
			fx.pay2D("WC-2", "4355084355084358", "10.41", 1, TypeAuth)
			fx.pay2D("WC-3", "4355084355084358", "10.69", 1, TypeAuth)
			fx.pay2D("WC-3", "4355084355084358", "10.00", 1, TypeAuth)
			fx.pay2D("WC-4", "4355080000003009", "10.00", 1, TypeAuth)
			fx.pay2D("WC-5", "4355084355084358", "10.00", 99, TypeAuth)
		}},
	},
	"POST " + Base + "/api/confirmPayment": {
		{"unknown invoice", func(t *testing.T, fx *fixture, bearer string) {
			fx.authed("/api/confirmPayment", confirmBody(t, "NOPE", "1", "1.00"))
		}},
	},
	"POST " + Base + "/payment/complete": {
		{"unknown invoice", func(t *testing.T, fx *fixture, bearer string) {
			fx.authed("/payment/complete", completeBody(t, "NOPE", "VP1", "complete"))
		}},
	},
	"POST " + Base + "/api/getpos": {jsonCase("bad card", "/api/getpos", `{"credit_card": "12", "amount": "1", "currency_code": "TRY", "merchant_key": "`+MerchantKey+`"}`, true)},
	"POST " + Base + "/api/paySmart3D": {{"declining card", func(t *testing.T, fx *fixture, bearer string) {
		fx.start3D("W3-1", "4355080000000054", "10.00", CompletedByApp, "approve")
	}}},
	"POST " + Base + ChallengePath: {
		{"unknown order", func(t *testing.T, fx *fixture, bearer string) {
			fx.send("POST", Base+ChallengePath, "application/x-www-form-urlencoded", "order_id=VPX&decision=approve", nil)
		}},
		{"declined challenge", func(t *testing.T, fx *fixture, bearer string) {
			fx.start3D("W3-2", "4355084355084358", "10.00", CompletedByApp, "decline")
		}},
	},
	"POST " + Base + "/api/installments": {},
	"POST " + Base + "/api/getTransactions": {
		jsonCase("bad hash and date", "/api/getTransactions", `{"merchant_key": "`+MerchantKey+`", "hash_key": "x", "date": "2026-11-22"}`, true),
		jsonCase("repeated", "/api/getTransactions", `{"merchant_key": "`+MerchantKey+`", "hash_key": "x", "date": "2026-11-22"}`, true),
	},
	"POST " + Base + "/api/alltransaction": {
		jsonCase("bad date range", "/api/alltransaction", `{"date_range": "yesterday"}`, true),
		jsonCase("bad page limit", "/api/alltransaction", `{"page_limit": "0"}`, true),
	},
	"POST " + Base + "/api/saveCard":       {jsonCase("wrong merchant_key", "/api/saveCard", `{"merchant_key": "x", "hash_key": "x", "customer_number": "1", "card_holder_name": "a", "card_number": "4355084355084358", "expiry_month": "12", "expiry_year": "2099"}`, true)},
	"POST " + Base + "/api/editCard":       {jsonCase("wrong merchant_key", "/api/editCard", `{"merchant_key": "x", "hash_key": "x", "card_token": "x", "customer_number": "1", "expiry_month": "12", "expiry_year": "2099"}`, true)},
	"POST " + Base + "/api/deleteCard":     {jsonCase("wrong merchant_key", "/api/deleteCard", `{"merchant_key": "x", "hash_key": "x", "card_token": "x", "customer_number": "1"}`, true)},
	"GET " + Base + "/api/getCardTokens":   {},
	"POST " + Base + "/api/getCardTokens":  {jsonCase("wrong merchant_key", "/api/getCardTokens", `{"merchant_key": "x", "customer_number": "1"}`, true)},
	"POST " + Base + "/api/payByCardToken": {jsonCase("unknown card token", "/api/payByCardToken", `{"merchant_key": "`+MerchantKey+`", "card_token": "x", "customer_number": "1"}`, true)},
	"POST " + Base + "/purchase/link":      {jsonCase("wrong merchant_key", "/purchase/link", `{"merchant_key": "x", "invoice": "{}", "name": "a", "surname": "b"}`, true)},
	"GET " + Base + LinkPath + "{id}":      {},
	"POST " + Base + LinkPath + "{id}":     {},
	"GET " + HealthPath:                    {},
	"GET " + Base + WebhooksPath:           {},
	"GET " + OpenAPIPath:                   {},
	"GET " + Base + OpenAPIPath:            {},
	"POST " + Base + ResendPath: {
		jsonCase("unknown delivery", ResendPath, `{"id": 7}`, false),
		jsonCase("bad id", ResendPath, `{"id": "x"}`, false),
	},
}

// genericBodies are bodies every operation refuses, or reads as no
// fields at all.
var genericBodies = []struct{ contentType, body string }{
	{"application/json", ""},
	{"application/json", "{}"},
	{"application/json", `[{"a": 1}]`},
	{"application/json", `{"merchant_key": "x", "invoice_id": `},
	{"application/json", `{"items": {"a": 1}, "merchant_key": [1]}`},
	{"application/x-www-form-urlencoded", "a=%zz"},
	{"text/plain", "not json"},
	{"application/json", `{"merchant_key": "x", "hash_key": "x", "invoice_id": "x"}`},
}

// TestEveryRefusalIsExplained walks every route the gateway serves (its
// own list, Gateway.Routes): without a token, with bodies every operation
// refuses, with a wrong method, and with the route's own refusals
// (refusalCases); every answer that is a refusal has a why in the log.
func TestEveryRefusalIsExplained(t *testing.T) {
	t.Parallel() // a gateway and request log of its own
	fx, rl := explainedFixture(t)
	bearer := fx.bearer()
	// Each check reads only the entries written since the last one (reading
	// the whole log each time made the test quadratic in its requests).
	log := &logFollower{path: filepath.Join(rl.dir, RequestLogFile)}
	check := func(route, what string) []LogEntry {
		t.Helper()
		entries := log.next(t)
		for _, e := range entries {
			if e.Refused() && strings.TrimSpace(e.Why) == "" {
				t.Errorf("%s, %s: refused without a why: %+v", route, what, e)
			}
		}
		return entries
	}
	routes := fx.gw.Routes()
	for _, route := range routes {
		cases, listed := refusalCases[route]
		if !listed {
			t.Errorf("route %s has no entry in refusalCases: list the requests it refuses", route)
		}
		method, path, _ := strings.Cut(route, " ")
		path = strings.ReplaceAll(path, "{id}", "no-such-link")
		for _, auth := range []string{"", "Bearer " + bearer} {
			for _, b := range genericBodies {
				fx.send(method, path, b.contentType, b.body, map[string]string{"Authorization": auth})
				check(route, "body "+b.body)
			}
		}
		wrong := http.MethodPut
		rec := fx.send(wrong, path, "application/json", "{}", nil)
		// The log keeps every request but the health probe's.
		if e := check(route, "method "+wrong); rec.Code != 405 || path != HealthPath && (len(e) != 1 || e[0].HTTPStatus != 405) {
			t.Errorf("%s with %s: HTTP %d, logged %+v; want 405, logged once", route, wrong, rec.Code, e)
		}
		for _, c := range cases {
			c.send(t, fx, bearer)
			check(route, c.name)
		}
	}
	for route := range refusalCases {
		if !slices.Contains(routes, route) {
			t.Errorf("refusalCases lists %s, which the gateway does not serve", route)
		}
	}
	if _, err := os.Stat(filepath.Join(rl.dir, RequestLogFile+".1")); err == nil {
		t.Fatal("the request log rotated: the checks followed only its current file")
	}
}

// logFollower reads a request log file's entries a few at a time: those
// appended since it last read.
type logFollower struct {
	path string
	off  int64
}

// next returns the entries appended since the last call.
func (lf *logFollower) next(t *testing.T) []LogEntry {
	t.Helper()
	f, err := os.Open(lf.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(lf.off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var entries []LogEntry
	n, err := readEntries(f, func(e LogEntry) error { entries = append(entries, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	lf.off += n
	return entries
}

// TestResendReadsJSONWhateverItsLabel: a resend whose JSON body comes
// without a JSON Content-Type (curl -d labels it a form) names its id
// (it was read as the form field "{"id": 7}" and the id as "").
func TestResendReadsJSONWhateverItsLabel(t *testing.T) {
	fx, rl := explainedFixture(t)
	for _, ct := range []string{"", "application/x-www-form-urlencoded", "text/plain"} {
		rec := fx.send("POST", Base+ResendPath, ct, `{"id": 7}`, nil)
		if e := lastEntry(t, rl); rec.Code != 404 || !strings.Contains(rec.Body.String(), "no webhook delivery with this id: 7") || e.Why == "" {
			t.Errorf("Content-Type %q: HTTP %d %s (why %q)", ct, rec.Code, rec.Body, e.Why)
		}
	}
}
