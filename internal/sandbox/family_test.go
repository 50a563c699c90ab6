package sandbox

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAnswersAsQNBpay (issue 33, item 3): with As qnbpay the sandbox
// answers in QNBpay's documented shapes: order ids all digits, check
// status as an array of one object whose members have the types of
// QNBpay's page (testdata/recorded/checkstatus_qnbpay.json: order_id and
// product_price numbers), refund's order_no and an all-digit invoice_id as
// numbers; an unknown invoice's 31 in an array too.
func TestAnswersAsQNBpay(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.As, o.NewOrderID = AsQNBpay, nil })
	if res := fx.pay("33491", "150.00", "TRY"); res.status() != 100 {
		t.Fatalf("pay: %s", res.Raw)
	}
	one := func(raw []byte) []byte {
		t.Helper()
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil || len(elems) != 1 {
			t.Fatalf("not an array of one object: %s", raw)
		}
		return elems[0]
	}
	statusRaw := func(invoice string) []byte {
		t.Helper()
		b, err := json.Marshal(statusBodyFor(t, invoice))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(fx.callRaw("POST", Base+"/api/checkstatus", string(b), map[string]string{"Authorization": fx.bearer(), "Content-Type": "application/json"}))
	}
	obj := one(statusRaw("33491"))
	got := shape(t, obj)
	for _, member := range shape(t, recorded(t, "checkstatus_qnbpay.json")) {
		if !slices.Contains(got, member) {
			t.Errorf("check status lacks %s (QNBpay's type): %s", member, obj)
		}
	}
	var body struct {
		OrderID      json.Number `json:"order_id"`
		ProductPrice json.Number `json:"product_price"`
		InvoiceID    string      `json:"invoice_id"`
	}
	if err := json.Unmarshal(obj, &body); err != nil || !regexp.MustCompile(`^[1-9][0-9]{14}$`).MatchString(body.OrderID.String()) ||
		body.ProductPrice.String() != "150.00" || body.InvoiceID != "33491" {
		t.Errorf("check status %s (%v)", obj, err)
	}

	r := fx.refund("33491", "10.00", "R-1")
	if rs := shape(t, r.Raw); !slices.Contains(rs, "order_no:number") || !slices.Contains(rs, "invoice_id:number") || r.status() != 100 {
		t.Errorf("refund: %s", r.Raw)
	}
	fx.pay("INV-Q", "20.00", "TRY")
	if rs := shape(t, fx.refund("INV-Q", "1.00", "R-2").Raw); !slices.Contains(rs, "order_no:number") || !slices.Contains(rs, "invoice_id:string") {
		t.Errorf("refund of a lettered invoice: %v", rs)
	}
	if nf := one(statusRaw("NO-SUCH")); !strings.Contains(string(nf), `"status_code":31`) {
		t.Errorf("not found: %s", nf)
	}
}

// TestAnswersAsTheSandboxByDefault: without As (or as sipay) check status
// is one object with a string order_id, as the gateway's OpenAPI example.
func TestAnswersAsTheSandboxByDefault(t *testing.T) {
	for _, as := range []string{"", AsSipay} {
		fx := newFixture(t, func(o *Options) { o.As = as })
		fx.pay("INV-S", "150.00", "TRY")
		if got := shape(t, fx.status("INV-S").Raw); !slices.Contains(got, "order_id:string") || !slices.Contains(got, "product_price:string") {
			t.Errorf("as %q: %v", as, got)
		}
	}
}

func TestAsRefusesOtherNames(t *testing.T) {
	store, err := OpenStore(t.TempDir(), time.Second, testStart)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := New(Options{Store: store, Now: func() time.Time { return testStart }, As: "paybull"}); err == nil ||
		!strings.Contains(err.Error(), "sipay, qnbpay") {
		t.Errorf("As paybull: %v", err)
	}
}

func TestDigitOrderIDs(t *testing.T) {
	next := NewDigitOrderIDs(func() time.Time { return testStart })
	a, b := next(), next()
	if a == b || !regexp.MustCompile(`^[0-9]{15}$`).MatchString(a) {
		t.Errorf("ids %q %q", a, b)
	}
}
