package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const scenarioMerchant = "00112233445566778899aabbccddeeff"

// scenarioYAML seeds a merchant of its own, sales in every state, refunds,
// a saved card and a link.
var scenarioYAML = `
merchants:
  - app_id: ` + scenarioMerchant + `
    app_secret: ffeeddccbbaa99887766554433221100
    merchant_key: $2y$10$scenarioMerchantKeyForTests.0123456789abcdefghijklmn
sales:
  - invoice_id: S-DONE
    amount: 100.00
    refunds:
      - amount: 30.00
      - amount: 10.00
        status: pending
  - invoice_id: S-FAIL
    amount: 10.41
    state: failed
  - invoice_id: S-PEND
    amount: 10.69
    state: pending
  - invoice_id: S-CANC
    amount: 5.00
    state: cancelled
  - invoice_id: S-3D
    amount: 7.00
    state: awaiting_3d
  - invoice_id: S-COMP
    amount: 8.00
    state: awaiting_completion
  - invoice_id: S-HELD
    amount: 50.00
    pre_auth: open
  - invoice_id: S-DONE
    merchant: ` + scenarioMerchant + `
    amount: 1.00
  - invoice_id: S-3D
    merchant: ` + scenarioMerchant + `
    amount: 2.00
    state: awaiting_3d
cards:
  - customer_number: "42"
    card_number: "4508034508034509"
  - merchant: ` + scenarioMerchant + `
    customer_number: "42"
    card_number: "5406675406675403"
links:
  - invoice_id: L-1
    amount: 19.90
    description: a test link
  - invoice_id: L-1
    merchant: ` + scenarioMerchant + `
    amount: 5.00
`

func loadScenario(t *testing.T, c *client, body string) (int, map[string]any) {
	t.Helper()
	return c.do("POST", LoadPath, body, map[string]string{"Content-Type": "application/yaml"})
}

// A scenario seeds every kind of item in one call; the sales answer check
// status in their states, and the second merchant sees only its own.
func TestScenarioLoad(t *testing.T) {
	srv := liveServer(t)
	def := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	code, res := loadScenario(t, def, scenarioYAML)
	if code != 200 || fmt.Sprint(res) != "map[cards:2 links:2 merchants:1 sales:9]" {
		t.Fatalf("load: %d %v", code, res)
	}
	// As loaded (a check status approves a pending refund).
	sale, ok, err := srv.store.Get("S-DONE")
	if err != nil || !ok || len(sale.Refunds) != 2 || sale.Refunds[1].Status != RefundPendingApproval || sale.Amount != "100.00" {
		t.Errorf("S-DONE: %+v %v %v", sale, ok, err)
	}
	for invoice, want := range map[string]string{"S-DONE": "100", "S-FAIL": "", "S-CANC": "", "S-HELD": "100", "L-1": ""} {
		st := def.status(invoice)
		if want != "" && fmt.Sprint(st["status_code"]) != want {
			t.Errorf("checkstatus %s: %v", invoice, st)
		}
		if st["status_code"] == nil {
			t.Errorf("checkstatus %s: %v", invoice, st)
		}
	}
	for invoice, state := range map[string]string{"S-FAIL": StateFailed, "S-PEND": StatePending, "S-CANC": StateCancelled,
		"S-3D": StateAwaiting3D, "S-COMP": StateAwaitingCompletion, "L-1": StateAwaitingPayment} {
		if s, _, _ := srv.store.Get(invoice); s.State != state {
			t.Errorf("%s is %q, want %q", invoice, s.State, state)
		}
	}
	if s, _, _ := srv.store.Get("S-HELD"); s.PreAuth == nil || s.PreAuth.State != PreAuthOpen {
		t.Errorf("S-HELD: %+v", s)
	}
	if got := def.cards("42"); len(got) != 1 {
		t.Errorf("default merchant: %d cards of customer 42, want 1", len(got))
	}
	other := &client{t: t, base: srv.BaseURL, creds: Credentials{AppID: scenarioMerchant, AppSecret: "ffeeddccbbaa99887766554433221100",
		MerchantKey: "$2y$10$scenarioMerchantKeyForTests.0123456789abcdefghijklmn"}}
	if got := other.cards("42"); len(got) != 1 {
		t.Errorf("scenario merchant: %d cards of customer 42, want 1", len(got))
	}
	if st := other.status("S-DONE"); fmt.Sprint(st["status_code"]) != "100" {
		t.Errorf("scenario merchant's own S-DONE: %v", st)
	}
	// The link's page is served.
	l, _, _ := srv.store.Get("L-1")
	resp, err := http.Get(srv.BaseURL + LinkPath + l.Link.ID)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("link page: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	// Pages without a token find their merchant by the link's or order's
	// id: the second merchant's link and 3D challenge.
	ms := srv.merchants.all()
	if len(ms) != 2 {
		t.Fatalf("%d merchants, want 2", len(ms))
	}
	own, _, _ := ms[1].store.Get("L-1")
	resp, err = http.Get(srv.BaseURL + LinkPath + own.Link.ID)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("the scenario merchant's link page: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	threeD, _, _ := ms[1].store.Get("S-3D")
	code, ch := other.do("POST", ChallengePath, "order_id="+threeD.OrderID+"&decision=approve",
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
	if done, _, _ := ms[1].store.Get("S-3D"); code != 200 || done.State != StateCompleted {
		t.Errorf("the scenario merchant's 3D challenge: %d %v, sale %s", code, ch, done.State)
	}
}

// Loading the same scenario again changes nothing, not even times.
func TestScenarioIdempotent(t *testing.T) {
	clock := &testClock{now: testStart}
	srv := liveServer(t, func(o *ServerOptions) { o.Gateway.Now = clock.Now })
	def := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	if code, res := loadScenario(t, def, scenarioYAML); code != 200 {
		t.Fatalf("load: %d %v", code, res)
	}
	before := dumpStore(t, srv.store)
	clock.Advance(3600e9)
	code, res := loadScenario(t, def, scenarioYAML)
	if code != 200 || res["merchants"] != 0.0 {
		t.Fatalf("second load: %d %v", code, res)
	}
	if after := dumpStore(t, srv.store); after != before {
		t.Errorf("a second load changed the store:\n%s\n---\n%s", before, after)
	}
	if got := def.cards("42"); len(got) != 1 {
		t.Errorf("after two loads: %d cards, want 1", len(got))
	}
}

func dumpStore(t *testing.T, s *Store) string {
	t.Helper()
	sales, err := s.Sales()
	if err != nil {
		t.Fatal(err)
	}
	cards, err := s.Cards("42")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal([]any{sales, cards})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A scenario with a mistake is refused naming the item and field, and
// nothing of it is applied: not its merchants, not its valid sales.
func TestScenarioBadInput(t *testing.T) {
	srv := liveServer(t)
	def := &client{t: t, base: srv.BaseURL, creds: DefaultCredentials()}
	good := "merchants:\n  - app_id: " + scenarioMerchant + "\n    app_secret: ffeeddccbbaa99887766554433221100\n    merchant_key: $2y$10$scenarioMerchantKeyForTests.0123\nsales:\n  - invoice_id: OK-1\n    amount: 1.00\n"
	cases := []struct{ body, field, want string }{
		{good + "  - invoice_id: X\n    amount: 1.00\n    stat: failed\n", "stat", `line 10: unknown field "stat" in a sale`},
		{good + "  - invoice_id: X\n    amount: ten\n", "sales[1].amount", `"ten" is not a positive amount`},
		{good + "  - invoice_id: X\n    amount: 1.00\n    state: lost\n", "sales[1].state", `"lost": want one of completed, failed`},
		{good + "  - invoice_id: OK-1\n    amount: 2.00\n", "sales[1].invoice_id", `"OK-1" is also sales[0]'s`},
		{good + "  - invoice_id: X\n    amount: 1.00\n    merchant: 0000000000000000000000000000000f\n", "sales[1].merchant", "no merchant with app_id"},
		{good + "  - invoice_id: X\n    amount: 10.00\n    refunds:\n      - amount: 11.00\n", "sales[1].refunds[0].amount", "add up to more than"},
		{good + "cards:\n  - customer_number: \"1\"\n    card_number: \"1234\"\n", "cards[0].card_number", "not a valid card number"},
		{`{"sales":[{"invoice_id":"X","amount":"1.00","colour":"red"}]}`, "colour", `line 1: unknown field "colour" in a sale`},
		{`{"sales":[{"invoice_id":"X","amount":"1.00","installments":"two"}]}`, "", "line 1: want a number, not a string"},
		// A JSON array is not a scenario: said in JSON's words, no Go type.
		{`[{"sales":[{"invoice_id":"X","amount":"1.00"}]}]`, "", "the scenario is a list: want one object with merchants, sales, cards or links"},
		{`{"sales":{"invoice_id":"X"}}`, "", "line 1: want a list, not an object"},
		{`{"sales":["X"]}`, "", "line 1: want a sale (an object), not a string"},
	}
	for _, tc := range cases {
		code, res := loadScenario(t, def, tc.body)
		if code != 400 || fmt.Sprint(res["field"]) != tc.field && tc.field != "" || !strings.Contains(fmt.Sprint(res["error"]), tc.want) {
			t.Errorf("%q:\n%d %v, want 400 naming %q (%q)", tc.body, code, res, tc.field, tc.want)
		}
		if msg := fmt.Sprint(res["error"]); strings.Contains(msg, "sandbox.Scenario") || strings.Contains(msg, "!!") || strings.Contains(msg, "unmarshal") {
			t.Errorf("%q: the refusal names a Go type: %s", tc.body, msg)
		}
	}
	if sales, _ := srv.store.Sales(); len(sales) != 0 {
		t.Errorf("a refused scenario left sales: %v", sales)
	}
	if _, err := os.Stat(filepath.Join(srv.merchants.dir, MerchantsFile)); err == nil {
		t.Errorf("a refused scenario created a merchant")
	}
}

func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(scenarioYAML))
	f.Add([]byte(`{"sales":[{"invoice_id":"X","amount":"1.00"}]}`))
	f.Add([]byte("sales: [1, 2]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			return
		}
		m := &merchants{def: &tenant{Merchant: Merchant{AppID: AppID}}, byAppID: map[string]*tenant{}, byKey: map[string]*tenant{}}
		_, _ = m.plan(sc, testStart)
	})
}
