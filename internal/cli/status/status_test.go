package status

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture: a sandbox whose pending sales stay pending for an hour, with a
// pending sale for invoice PEND-1 and a completed one for DONE-1.
type fixture struct {
	opts   *Options
	out    *bytes.Buffer
	errOut *bytes.Buffer
	clock  *clock
	sleeps []time.Duration
}

func newFixture(t *testing.T, format render.Format) *fixture {
	t.Helper()
	clk := &clock{now: t0}
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	gw, err := sandbox.New(sandbox.Options{Store: store, Now: clk.Now, PendingFor: time.Hour,
		NewOrderID: func() string { return "VP00000000000000001" }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	base := srv.URL + sandbox.Base
	client, err := gateway.New(base, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey}, gateway.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	pay(t, client, "PEND-1", "10.69", clk.Now())

	cfg := &config.Config{Profile: "test", BaseURL: base, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey}
	ios, _, out, errOut := iostreams.Test()
	fx := &fixture{out: out, errOut: errOut, clock: clk}
	fx.opts = &Options{Kinds: kindtest.Paycli(),
		Deps: cmdutil.Deps{
			IO:      ios,
			Config:  func() (*config.Config, error) { return cfg, nil },
			Format:  func() (render.Format, error) { return format, nil },
			Gateway: func() (*gateway.Client, error) { return client, nil },
			CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, nil
			},
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			fx.sleeps = append(fx.sleeps, d)
			clk.Advance(d)
			return nil
		},
	}
	return fx
}

// pay makes a sale in the sandbox through the client.
func pay(t *testing.T, c *gateway.Client, invoice, amount string, now time.Time) {
	t.Helper()
	tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString(amount), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: "001", TTL: time.Hour}, now, invoice)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WalletPay(context.Background(), gateway.WalletPayRequest{Total: amount, CurrencyCode: "TRY",
		InvoiceID: invoice, WalletTransientToken: tok, Name: "Ada", Surname: "Lovelace", BillEmail: "ada@example.com"})
	if err != nil && !errors.Is(err, gateway.ErrPending) {
		t.Fatal(err)
	}
}

// TestStatusInvoiceRule: --invoice follows the one invoice-id rule
// (internal/invoiceid), exit 2, refusing what it would otherwise trim or
// accept unseen.
func TestStatusInvoiceRule(t *testing.T) {
	for id, want := range map[string]string{
		"A\nB":      "holds a control character (U+000A)",
		"A\u200bB":  "holds an invisible formatting character (U+200B)",
		"\u202eINV": "holds an invisible formatting character (U+202E)",
		"INV\u2028": "holds a line or paragraph separator",
		"INV\u00a0": "holds white space other than a plain space (U+00A0)",
		" INV":      "starts with a space",
		"INV\xff":   "is not valid UTF-8",
	} {
		ios, _, _, _ := iostreams.Test()
		cmd := NewCmdStatus(&cmdutil.Factory{IOStreams: ios}, func(context.Context, *Options) error { t.Errorf("%q accepted", id); return nil })
		cmd.SetArgs([]string{"--invoice", id})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "invalid --invoice: the invoice id "+want) {
			t.Errorf("%q: %v (kind %v)", id, err, k)
		}
	}
}

func TestNewCmdStatusFlags(t *testing.T) {
	tests := []struct {
		args, wantErr string
	}{
		{"--invoice INV-1 --watch", ""},
		{"INV-1 --watch", ""}, // the invoice as the argument, as gh takes a number
		{"--watch INV-1", ""},
		{"INV-1 --invoice INV-1 --watch", `the invoice is given twice ("INV-1" and --invoice): give it once`},
		{"INV-1 INV-2 --watch", `too many arguments: "INV-2" (expected one invoice id)`},
		{"A|B", "invalid --invoice: the invoice id holds '|'"},
		{"", `required flag(s) "invoice" not set`},
		{"--invoice=", "invalid --invoice: the invoice id is empty"},
		{"--invoice A|B", "invalid --invoice: the invoice id holds '|'"},
	}
	for _, tt := range tests {
		ios, _, _, _ := iostreams.Test()
		var got *Options
		cmd := NewCmdStatus(&cmdutil.Factory{IOStreams: ios}, func(_ context.Context, o *Options) error { got = o; return nil })
		cmd.SetArgs(strings.Split(tt.args, " "))
		if tt.args == "" {
			cmd.SetArgs(nil)
		}
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if tt.wantErr == "" {
			if err != nil || got.Invoice != "INV-1" || !got.Watch {
				t.Errorf("%q: %v %+v", tt.args, err, got)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err %v, want %q", tt.args, err, tt.wantErr)
		}
	}
}

func TestPendingWithoutWatch(t *testing.T) {
	fx := newFixture(t, render.JSON)
	fx.opts.Invoice, fx.opts.Flags = "PEND-1", []string{"--profile", "my live", "--sandbox"}
	err := statusRun(context.Background(), fx.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown ||
		err.Error() != "invoice PEND-1 is still pending (status_code 69); the outcome is not known yet" {
		t.Errorf("err %v (kind %v)", err, k)
	}
	if h := cmdutil.HintOf(err); h != "Check again later, or watch it with: paycli status --invoice PEND-1 --profile 'my live' --sandbox --watch" {
		t.Errorf("hint %q", h)
	}
	want := "{\n  \"invoice_id\": \"PEND-1\",\n  \"status_code\": 69,\n  \"status_description\": \"Order not yet processed\",\n  \"transaction_status\": \"Pending\"\n}\n"
	if fx.out.String() != want {
		t.Errorf("stdout:\n%s\nwant\n%s", fx.out, want)
	}
}

// TestWatchUntilResolved: --watch waits 1s, 2s, 4s, ... and prints the
// transaction once it is no longer pending (the sandbox resolves it an
// hour after the sale).
func TestWatchUntilResolved(t *testing.T) {
	fx := newFixture(t, render.Table)
	fx.opts.Invoice, fx.opts.Watch = "PEND-1", true
	if err := statusRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(fx.sleeps); !strings.HasPrefix(got, "[1s 2s 4s 8s 10s 10s") {
		t.Errorf("waits %s", got)
	}
	for _, want := range []string{"\ntransaction_status       Completed\n", "\ninvoice_id               PEND-1\n", "\ntransaction_amount       10.69\n"} {
		if !strings.Contains(fx.out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, fx.out)
		}
	}
	// The fields the gateway left empty are not rows of the table.
	if strings.Contains(fx.out.String(), "payment_reason_code") {
		t.Errorf("the table shows the empty payment_reason_code rows:\n%s", fx.out)
	}
	if !strings.HasPrefix(fx.errOut.String(), "Invoice PEND-1 is pending; checking again in 1s…\nInvoice PEND-1 is pending; checking again in 2s…\n") {
		t.Errorf("stderr:\n%s", fx.errOut)
	}
}

func TestWatchTimeLimit(t *testing.T) {
	fx := newFixture(t, render.Table)
	fx.opts.Invoice, fx.opts.Watch = "PEND-1", true
	fx.opts.Sleep = func(ctx context.Context, d time.Duration) error { return context.DeadlineExceeded }
	err := statusRun(context.Background(), fx.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || !strings.Contains(err.Error(), "still pending (status_code 69) when the time limit ran out") {
		t.Errorf("err %v (kind %v)", err, k)
	}
}

func TestUnknownInvoice(t *testing.T) {
	fx := newFixture(t, render.Table)
	fx.opts.Invoice = "NOPE"
	err := statusRun(context.Background(), fx.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected || err.Error() != "no transaction with invoice NOPE" {
		t.Errorf("err %v (kind %v)", err, k)
	}
	if fx.out.Len() != 0 {
		t.Errorf("stdout %q", fx.out)
	}
}

// TestFieldsShowTimesWithTheirZone: the gateway's zone-less created_at is
// its local time (UTC+3); tables show it in the reader's zone with the
// offset, JSON as RFC 3339 with the offset. Fields that are not times stay
// as the gateway wrote them.
func TestFieldsShowTimesWithTheirZone(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name, raw        string
		wantText, wantJS string
	}{
		{"created_at", `"2026-11-22 19:35:03"`, "2026-11-22 17:35:03 +01:00", `"2026-11-22T17:35:03+01:00"`},
		{"transaction_date", `"2026-11-22T16:35:03Z"`, "2026-11-22 17:35:03 +01:00", `"2026-11-22T17:35:03+01:00"`},
		{"updated_at", `"not yet"`, "not yet", `"not yet"`},
		{"auth_code", `"2026-11-22 19:35:03"`, "2026-11-22 19:35:03", `"2026-11-22 19:35:03"`},
	}
	for _, tt := range tests {
		var s string
		_ = json.Unmarshal([]byte(tt.raw), &s)
		f, ok := timeField(tt.name, s, berlin)
		if !ok {
			f = render.Field{Name: tt.name, JSON: json.RawMessage(tt.raw), Text: s}
		}
		if f.Text != tt.wantText || string(f.JSON) != tt.wantJS {
			t.Errorf("%s %s: text %q json %s, want %q %s", tt.name, tt.raw, f.Text, f.JSON, tt.wantText, tt.wantJS)
		}
	}
}

// -o json keeps the fields the table leaves out for being empty.
func TestJSONKeepsEmptyFields(t *testing.T) {
	fx := newFixture(t, render.JSON)
	fx.opts.Invoice, fx.opts.Watch = "PEND-1", true
	if err := statusRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  \"payment_reason_code\": \"\",\n", "\n  \"payment_reason_code_detail\": \"\",\n"} {
		if !strings.Contains(fx.out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, fx.out)
		}
	}
}

// TestFieldsAreWhatTheGatewaySaid: a field the answer lacks is not shown
// (status_description was once shown as ""), and the check-status fields
// the gateway documents follow the ones paycli reads, in their order, before
// the rest.
func TestFieldsAreWhatTheGatewaySaid(t *testing.T) {
	var r gateway.CheckStatusResult
	body := `{"status_code":100,"transaction_status":"Completed","order_id":"VP1","invoice_id":"INV-1","transaction_amount":10,
	"zeta":"z","ref_number":"R-9","bank_status_description":"Approved","bank_status_code":"00","reason":"","message":"Payment successful",
	"product_price":"10.00","transaction_id":"T-1","payment_reason_code":null}`
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range Fields(&r) {
		names = append(names, f.Name+"="+string(f.JSON))
	}
	want := `status_code=100 transaction_status="Completed" order_id="VP1" invoice_id="INV-1" transaction_amount=10 payment_reason_code="" ` +
		`transaction_id="T-1" product_price="10.00" message="Payment successful" reason="" bank_status_code="00" bank_status_description="Approved" ref_number="R-9" zeta="z"`
	if got := strings.Join(names, " "); got != want {
		t.Errorf("fields:\n%s\nwant:\n%s", got, want)
	}
}
