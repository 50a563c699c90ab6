package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/webhook"
)

// liveServer is a Server on a loopback port over a temporary state
// folder, stopped at the test's end.
func liveServer(t *testing.T, mod ...func(*ServerOptions)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: testStart}
	opts := ServerOptions{StateDir: t.TempDir(), LockTimeout: time.Second, Gateway: Options{Now: clock.Now}}
	for _, m := range mod {
		m(&opts)
	}
	srv, err := StartServer(ln, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv
}

// client is an HTTP client of one merchant at a live server.
type client struct {
	t      testing.TB
	base   string
	creds  Credentials
	bearer string
}

// do sends body (JSON unless a string) and decodes the JSON answer.
func (c *client) do(method, path string, body any, header map[string]string) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader = http.NoBody
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s %s: answer is not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func (c *client) authed(method, path string, body any) map[string]any {
	c.t.Helper()
	if c.bearer == "" {
		_, res := c.do("POST", "/api/token", map[string]string{"app_id": c.creds.AppID, "app_secret": c.creds.AppSecret}, nil)
		if fmt.Sprint(res["status_code"]) != "100" {
			c.t.Fatalf("token: %v", res)
		}
		c.bearer = res["data"].(map[string]any)["token"].(string)
	}
	_, res := c.do(method, path, body, map[string]string{"Authorization": "Bearer " + c.bearer})
	return res
}

func (c *client) hash(parts ...string) string {
	c.t.Helper()
	hk, err := hashkey.Generate(c.creds.AppSecret, strings.Join(parts, "|"))
	if err != nil {
		c.t.Fatal(err)
	}
	return hk
}

// pay makes a 2D card sale of amount TRY under invoice.
func (c *client) pay(invoice, amount string, extra map[string]string) map[string]any {
	c.t.Helper()
	body := map[string]any{"merchant_key": c.creds.MerchantKey, "invoice_id": invoice, "total": amount, "currency_code": "TRY",
		"installments_number": "1", "cc_holder_name": "Ayşe Yılmaz", "cc_no": "4508034508034509", "expiry_month": "12",
		"expiry_year": "2099", "cvv": "000", "name": "Ayşe", "surname": "Yılmaz",
		"hash_key": c.hash(amount, "1", "TRY", c.creds.MerchantKey, invoice)}
	for k, v := range extra {
		body[k] = v
	}
	return c.authed("POST", "/api/paySmart2D", body)
}

func (c *client) saveCard(customer string, number string) map[string]any {
	c.t.Helper()
	return c.authed("POST", "/api/saveCard", map[string]string{"merchant_key": c.creds.MerchantKey, "card_holder_name": "Ayşe Yılmaz",
		"card_number": number, "expiry_month": "12", "expiry_year": "2099", "customer_number": customer,
		"hash_key": c.hash(c.creds.MerchantKey, customer, "Ayşe Yılmaz", number, "12", "2099")})
}

func (c *client) cards(customer string) []any {
	c.t.Helper()
	res := c.authed("GET", "/api/getCardTokens", map[string]string{"merchant_key": c.creds.MerchantKey, "customer_number": customer})
	list, ok := res["data"].([]any)
	if !ok {
		c.t.Fatalf("getCardTokens: %v", res)
	}
	return list
}

func (c *client) status(invoice string) map[string]any {
	c.t.Helper()
	return c.authed("POST", "/api/checkstatus", map[string]string{"merchant_key": c.creds.MerchantKey, "invoice_id": invoice,
		"hash_key": c.hash(invoice, c.creds.MerchantKey)})
}

// newMerchant creates a merchant over the admin surface.
func newMerchant(t testing.TB, base string, body any) *client {
	t.Helper()
	c := &client{t: t, base: base}
	code, res := c.do("POST", MerchantsPath, body, nil)
	if code != http.StatusCreated {
		t.Fatalf("create merchant: %d %v", code, res)
	}
	c.creds = Credentials{AppID: res["app_id"].(string), AppSecret: res["app_secret"].(string), MerchantKey: res["merchant_key"].(string)}
	if res["base_url"] != base {
		t.Errorf("base_url %v, want %s", res["base_url"], base)
	}
	return c
}

// Twenty workers, each with its own merchant from one server, use the same
// customer number and invoice id: each sees its own card, sale and
// webhooks only, and resetting one merchant leaves the others whole.
func TestMerchantsIsolated(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	srv := liveServer(t)
	const workers = 20
	clients := make([]*client, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newMerchant(t, srv.BaseURL, map[string]any{"webhooks": map[string]string{"mine": receiver.URL + fmt.Sprintf("/w%d", i)}})
			clients[i] = c
			if res := c.saveCard("1", "4508034508034509"); fmt.Sprint(res["status_code"]) != "100" {
				t.Errorf("worker %d: saveCard: %v", i, res)
			}
			if res := c.pay("INV-SHARED", "10.00", map[string]string{"sale_web_hook_key": "mine"}); fmt.Sprint(res["status_code"]) != "100" {
				t.Errorf("worker %d: paySmart2D: %v", i, res)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i, c := range clients {
		if got := c.cards("1"); len(got) != 1 {
			t.Errorf("worker %d sees %d saved cards of customer 1, want its own 1", i, len(got))
		}
		st := c.status("INV-SHARED")
		if fmt.Sprint(st["status_code"]) != "100" {
			t.Errorf("worker %d: checkstatus: %v", i, st)
		}
		code, res := c.do("GET", WebhooksPath+"?merchant="+c.creds.AppID, nil, nil)
		ds, _ := res["deliveries"].([]any)
		if code != 200 || len(ds) != 1 {
			t.Fatalf("worker %d: webhooks: %d %v", i, code, res)
		}
		if url := ds[0].(map[string]any)["url"]; url != receiver.URL+fmt.Sprintf("/w%d", i) {
			t.Errorf("worker %d's delivery goes to %v", i, url)
		}
	}
	// The default merchant saw none of it.
	def := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	if got := def.cards("1"); len(got) != 0 {
		t.Errorf("the default merchant sees %d cards, want 0", len(got))
	}
	if st := def.status("INV-SHARED"); fmt.Sprint(st["status_code"]) == "100" {
		t.Errorf("the default merchant sees another merchant's sale: %v", st)
	}
	// A merchant's token is not accepted as another's merchant_key.
	clients[0].bearer = ""
	mixed := &client{t: t, base: srv.BaseURL, creds: Credentials{AppID: clients[0].creds.AppID, AppSecret: clients[0].creds.AppSecret, MerchantKey: clients[1].creds.MerchantKey}}
	if got := mixed.status("INV-SHARED"); fmt.Sprint(got["status_code"]) == "100" {
		t.Errorf("merchant 0's token read merchant 1's sale: %v", got)
	}

	// Reset one merchant: only its data goes.
	code, res := def.do("POST", ResetPath, map[string]string{"merchant": clients[3].creds.AppID}, nil)
	if code != 200 || fmt.Sprint(res["sales"]) != "1" {
		t.Fatalf("reset one: %d %v", code, res)
	}
	if got := clients[3].cards("1"); len(got) != 0 {
		t.Errorf("after its reset merchant 3 still has %d cards", len(got))
	}
	if got := clients[4].cards("1"); len(got) != 1 {
		t.Errorf("after merchant 3's reset merchant 4 has %d cards, want 1", len(got))
	}
	// Reset all.
	code, res = def.do("POST", ResetPath, "", nil)
	if code != 200 || fmt.Sprint(res["sales"]) != fmt.Sprint(workers-1) {
		t.Fatalf("reset all: %d %v", code, res)
	}
	if got := clients[4].cards("1"); len(got) != 0 {
		t.Errorf("after a reset of all, merchant 4 has %d cards", len(got))
	}
}

// Created merchants outlive a restart of the server over the same state.
func TestMerchantsPersist(t *testing.T) {
	dir := t.TempDir()
	srv := liveServer(t, func(o *ServerOptions) { o.StateDir = dir })
	c := newMerchant(t, srv.BaseURL, nil)
	if res := c.pay("INV-1", "10.00", nil); fmt.Sprint(res["status_code"]) != "100" {
		t.Fatalf("paySmart2D: %v", res)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv2 := liveServer(t, func(o *ServerOptions) { o.StateDir = dir })
	c.base, c.bearer = srv2.BaseURL, ""
	if st := c.status("INV-1"); fmt.Sprint(st["status_code"]) != "100" {
		t.Errorf("after a restart the merchant's sale is gone: %v", st)
	}
}

// The admin surface lives under the base URL; health also at the root.
func TestAdminPaths(t *testing.T) {
	srv := liveServer(t)
	origin := strings.TrimSuffix(srv.BaseURL, Base)
	for _, u := range []string{origin + HealthPath, srv.BaseURL + HealthPath, srv.BaseURL + ReadyPath, origin + ReadyPath} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d, want 200", u, resp.StatusCode)
		}
	}
}

// Bad admin requests are refused naming the field, and change nothing.
func TestAdminBadInput(t *testing.T) {
	srv := liveServer(t)
	c := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	if res := c.pay("INV-1", "10.00", nil); fmt.Sprint(res["status_code"]) != "100" {
		t.Fatalf("paySmart2D: %v", res)
	}
	cases := []struct {
		path  string
		body  string
		code  int
		field string
		want  string
	}{
		{ResetPath, `{"merchant":"0123456789abcdef0123456789abcdef"}`, 404, "merchant", "no merchant with app_id"},
		{ResetPath, `{"merchnt":"x"}`, 400, "merchnt", "unknown field"},
		{ResetPath, `{"merchant":7}`, 400, "merchant", "want a JSON string"},
		{EventsPath, `{"type":"sale","invoice_id":"NOPE","url":"http://127.0.0.1:1/h"}`, 404, "invoice_id", `no sale with invoice_id "NOPE"`},
		{EventsPath, `{"type":"dispute","invoice_id":"INV-1","url":"http://127.0.0.1:1/h"}`, 400, "type", "not an event"},
		{EventsPath, `{"type":"sale","invoice_id":"INV-1"}`, 400, "url", "missing"},
		{EventsPath, `{"type":"sale","invoice_id":"INV-1","url":"http://example.com/h"}`, 400, "url", "not a loopback address"},
		{EventsPath, `{"type":"refund","invoice_id":"INV-1","url":"http://127.0.0.1:1/h","amount":"ten"}`, 400, "amount", "not a positive amount"},
		{EventsPath, `{"type":"refund","invoice_id":"INV-1","url":"http://127.0.0.1:1/h","amount":-5}`, 400, "amount", "not a positive amount"},
		{EventsPath, `{"type":"refund","invoice_id":"INV-1","url":"http://127.0.0.1:1/h","amount":true}`, 400, "amount", "want an amount, a JSON number or string such as 10.50, not boolean"},
		{EventsPath, `{"type":"sale","invoice_id":"INV-1","url":"http://127.0.0.1:1/h","merchant":"nobody"}`, 404, "merchant", "no merchant"},
		{MerchantsPath, `{"webhooks":{"k":"ftp://x"}}`, 400, "webhooks.k", "not an absolute http"},
	}
	for _, tc := range cases {
		code, res := c.do("POST", tc.path, tc.body, nil)
		if code != tc.code || res["field"] != tc.field || !strings.Contains(fmt.Sprint(res["error"]), tc.want) {
			t.Errorf("POST %s %s: %d %v, want %d naming %s (%q)", tc.path, tc.body, code, res, tc.code, tc.field, tc.want)
		}
	}
	if st := c.status("INV-1"); fmt.Sprint(st["status_code"]) != "100" {
		t.Errorf("a refused reset deleted the sale: %v", st)
	}
	_, res := c.do("GET", MerchantsPath, nil, nil)
	if ms, _ := res["merchants"].([]any); len(ms) != 1 {
		t.Errorf("a refused creation left a merchant: %v", res)
	}
}

// An event is a signed webhook about a stored sale, sent to the URL given,
// listed with the other deliveries; the sale does not change.
func TestTriggerEvent(t *testing.T) {
	got := make(chan map[string]string, 3)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		v, body := webhook.Check(r.Header.Get("Content-Type"), data, AppSecret)
		if !v.Valid() {
			t.Errorf("event's hash_key does not verify: %+v", v)
		}
		if body != nil {
			got <- body.Fields()
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	srv := liveServer(t)
	c := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	if res := c.pay("INV-1", "10.00", nil); fmt.Sprint(res["status_code"]) != "100" {
		t.Fatalf("paySmart2D: %v", res)
	}
	for _, tc := range []struct{ typ, enc, field, want string }{
		{EventSale, "", "status", "1"},
		{EventRefund, "json", "amount", "10.00"},
		{EventChargeback, "", "type", "chargeback"},
	} {
		code, res := c.do("POST", EventsPath, map[string]string{"type": tc.typ, "invoice_id": "INV-1", "url": receiver.URL + "/hook", "encoding": tc.enc}, nil)
		if code != 200 {
			t.Fatalf("trigger %s: %d %v", tc.typ, code, res)
		}
		select {
		case f := <-got:
			if f[tc.field] != tc.want || f["invoice_id"] != "INV-1" {
				t.Errorf("%s event: %s=%q, want %q (%v)", tc.typ, tc.field, f[tc.field], tc.want, f)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s event never arrived", tc.typ)
		}
	}
	_, res := c.do("GET", WebhooksPath, nil, nil)
	if ds, _ := res["deliveries"].([]any); len(ds) != 3 {
		t.Errorf("webhooks list %d deliveries, want the 3 events", len(ds))
	}
}

// An event's amount is taken as the API takes amounts, a JSON number as
// well as a string, and a chargeback is listed as a chargeback (it was
// listed as kind refund), while its body is still signed as a refund's.
func TestTriggerEventNumericAmountAndChargebackKind(t *testing.T) {
	got := make(chan map[string]string, 2)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		v, body := webhook.Check(r.Header.Get("Content-Type"), data, AppSecret)
		if !v.Valid() {
			t.Errorf("event's hash_key does not verify: %+v", v)
		}
		if body != nil {
			got <- body.Fields()
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	srv := liveServer(t)
	c := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	if res := c.pay("INV-1", "10.00", nil); fmt.Sprint(res["status_code"]) != "100" {
		t.Fatalf("paySmart2D: %v", res)
	}
	for _, tc := range []struct{ typ, body, amount, kind string }{
		{EventRefund, `"amount": 4.5`, "4.5", "refund"},
		{EventChargeback, `"amount": 7.25`, "7.25", "chargeback"},
	} {
		body := (`{"type":"` + tc.typ + `","invoice_id":"INV-1","url":"` + receiver.URL + `/hook",` + tc.body + `}`)
		code, res := c.do("POST", EventsPath, body, nil)
		if code != 200 {
			t.Fatalf("trigger %s with %s: %d %v", tc.typ, tc.body, code, res)
		}
		if d, _ := res["delivery"].(map[string]any); d["kind"] != tc.kind {
			t.Errorf("%s event's delivery: kind %v, want %s (%v)", tc.typ, d["kind"], tc.kind, res)
		}
		select {
		case f := <-got:
			if f["amount"] != tc.amount || f["type"] != tc.typ {
				t.Errorf("%s event: amount %q type %q, want %s %s (%v)", tc.typ, f["amount"], f["type"], tc.amount, tc.typ, f)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s event never arrived", tc.typ)
		}
	}
	_, res := c.do("GET", WebhooksPath, nil, nil)
	ds, _ := res["deliveries"].([]any)
	var kinds []string
	for _, d := range ds {
		kinds = append(kinds, fmt.Sprint(d.(map[string]any)["kind"]))
	}
	if slices.Sort(kinds); strings.Join(kinds, " ") != "chargeback refund" {
		t.Errorf("webhooks list kinds %q, want a chargeback and a refund", kinds)
	}
}
