package link

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestNewCmdCreateFlags(t *testing.T) {
	base := "--amount 10 --name N --surname S --return-url https://shop.example/"
	tests := []struct {
		args     string
		currency string // the configuration's (--currency, as the factory resolves it)
		wantErr  string
		check    func(*Options) bool
	}{
		{"INV-1 " + base, "TRY", "", func(o *Options) bool {
			return o.Invoice == "INV-1" && o.Currency == "TRY" && o.MaxInstallments == 1 && !o.Yes
		}},
		{"--invoice INV-1 " + base + " --item A:5:2 --item B:0 --yes --dry-run", "try", "", func(o *Options) bool {
			return o.Currency == "TRY" && len(o.Items) == 2 && o.Yes && o.DryRun
		}},
		{"INV-1", "TRY", "missing --amount, --name, --surname, --return-url", nil},
		{"INV-1 " + base, "", "no currency given", nil},
		{"INV-1 " + base, "XXY", `"XXY" is not an ISO 4217 currency code`, nil},
		{"INV-1 INV-2 " + base, "TRY", "too many arguments", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *Options
			f := &cmdutil.Factory{IOStreams: ios, LookupEnv: func(string) (string, bool) { return "", false },
				Config: func() (*config.Config, error) { return &config.Config{DefaultCurrency: tt.currency}, nil }}
			cmd := NewCmdCreate(f, func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("options %+v", *got)
			}
		})
	}
}

// fixture is a sandbox gateway behind httptest, counting purchase/link
// calls, and Options wired to it on iostreams.Test().
type fixture struct {
	opts    *Options
	in      *bytes.Buffer
	out     *bytes.Buffer
	errOut  *bytes.Buffer
	links   *atomic.Int32
	bodies  chan string
	journal string
	store   *sandbox.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	var seq atomic.Int64
	gw, err := sandbox.New(sandbox.Options{Store: store, Now: func() time.Time { return now },
		NewOrderID: func() string { return fmt.Sprintf("VP%017d", seq.Add(1)) }})
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{links: new(atomic.Int32), bodies: make(chan string, 8), store: store}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/purchase/link") {
			fx.links.Add(1)
			body, _ := io.ReadAll(r.Body)
			fx.bodies <- string(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		gw.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + sandbox.Base
	cfg := &config.Config{Profile: "test", BaseURL: base, AppID: sandbox.AppID, AppSecret: sandbox.AppSecret,
		MerchantKey: sandbox.MerchantKey, Timeout: 10 * time.Second, Output: "table"}
	client, err := gateway.New(base, gateway.Credentials{AppID: cfg.AppID, AppSecret: cfg.AppSecret, MerchantKey: cfg.MerchantKey},
		gateway.WithClock(func() time.Time { return now }), gateway.WithRandom(bytes.NewReader(bytes.Repeat([]byte{0xab}, 1<<16))))
	if err != nil {
		t.Fatal(err)
	}
	ios, in, out, errOut := iostreams.Test()
	fx.in, fx.out, fx.errOut = in, out, errOut
	fx.journal = filepath.Join(t.TempDir(), "state", "paycli", journal.FileName)
	var ids atomic.Int32
	format := render.Table
	fx.opts = &Options{
		Options: moneyop.Options{
			Deps: cmdutil.Deps{
				IO:      ios,
				Config:  func() (*config.Config, error) { return cfg, nil },
				Format:  func() (render.Format, error) { return format, nil },
				JSON:    &cmdutil.JSONFlags{},
				Gateway: func() (*gateway.Client, error) { return client, nil },
				CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
					ctx, cancel := context.WithCancel(ctx)
					return ctx, cancel, nil
				},
				Now: func() time.Time { return now },
			},
			JournalPath:  func() (string, error) { return fx.journal, nil },
			Journal:      func() (journal.Store, error) { return journal.OpenFile(fx.journal, time.Now), nil },
			NewAttemptID: func() string { return fmt.Sprintf("attempt-%d", ids.Add(1)) },
			Parallel:     1,
			Yes:          true,
		},
		Invoice: "INV-1", Amount: "150", Currency: "TRY", Name: "Ayşe", Surname: "Yılmaz",
		Email: "ayse@example.com", Phone: "+90 555 555 55 55", MaxInstallments: 3,
		ReturnURL: "https://shop.example/thanks", Items: []string{"Lamp:50:2", "Bulb:50"},
	}
	return fx
}

func (fx *fixture) attempts(t *testing.T) []journal.Attempt {
	t.Helper()
	attempts, _, err := journal.Read(fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	return attempts
}

// TestCreateSendsTheSDKLayout: the body is the official SDK's
// CreatePaymentLinkRequest (the invoice a string holding its JSON, the
// phone as digits), the link alone is on stdout, and the journal names
// the link and the customer but never the e-mail or phone.
func TestCreateSendsTheSDKLayout(t *testing.T) {
	fx := newFixture(t)
	if err := createRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	var body struct {
		MerchantKey, Invoice, CurrencyCode, Name, Surname string
	}
	raw := <-fx.bodies
	if err := json.Unmarshal([]byte(raw), &map[string]any{}); err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("every top-level field is a string, as the SDK sends them: %v (%s)", err, raw)
	}
	body.Invoice, body.CurrencyCode, body.Name, body.Surname = m["invoice"], m["currency_code"], m["name"], m["surname"]
	if body.CurrencyCode != "TRY" || body.Name != "Ayşe" || body.Surname != "Yılmaz" || m["merchant_key"] != sandbox.MerchantKey {
		t.Errorf("body %s", raw)
	}
	var inv map[string]any
	dec := json.NewDecoder(strings.NewReader(body.Invoice))
	dec.UseNumber()
	if err := dec.Decode(&inv); err != nil {
		t.Fatalf("invoice %q: %v", body.Invoice, err)
	}
	if inv["invoice_id"] != "INV-1" || inv["total"] != json.Number("150.00") || inv["bill_phone"] != "905555555555" ||
		inv["bill_email"] != "ayse@example.com" || inv["max_installment"] != json.Number("3") || inv["cancel_url"] != "https://shop.example/thanks" {
		t.Errorf("invoice %s", body.Invoice)
	}
	items, _ := json.Marshal(inv["items"])
	if string(items) != `[{"name":"Lamp","price":50.00,"quantity":2},{"name":"Bulb","price":50.00,"quantity":1}]` {
		t.Errorf("items %s", items)
	}
	link := strings.TrimSuffix(fx.out.String(), "\n")
	if !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(link, sandbox.LinkPath) || strings.Contains(link, "\n") {
		t.Errorf("stdout %q: want the link alone", fx.out)
	}
	attempts := fx.attempts(t)
	if len(attempts) != 1 || attempts[0].Class() != journal.Succeeded || attempts[0].Intent.Kind != KindLink {
		t.Fatalf("attempts %+v", attempts)
	}
	o := attempts[0].Outcome
	if o.Message != "link "+link+" for Ayşe Yılmaz" || o.OrderNo != "VP00000000000000001" || attempts[0].Intent.Amount != "150.00" {
		t.Errorf("outcome %+v", o)
	}
	lines, _ := readFile(fx.journal)
	for _, secret := range []string{"ayse@example.com", "905555555555", "555 555"} {
		if strings.Contains(lines, secret) {
			t.Errorf("the journal holds %q:\n%s", secret, lines)
		}
	}
	st, found, err := fx.store.Get("INV-1")
	if err != nil || !found || st.Kind != sandbox.KindLink || st.State != sandbox.StateAwaitingPayment {
		t.Errorf("the sandbox's sale: %+v %v %v", st, found, err)
	}
}

// TestTerminalShowsQRAndFollowUp: on a terminal the link is followed by a
// QR code within 80 columns, and stderr says how to follow it up.
func TestTerminalShowsQRAndFollowUp(t *testing.T) {
	fx := newFixture(t)
	fx.opts.IO.SetStdoutTTY(true)
	fx.opts.IO.SetStderrTTY(true)
	fx.opts.IO.SetTerminalWidth(80)
	fx.opts.GatewayFlags = []string{"--sandbox"}
	if err := createRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(fx.out.String(), "\n"), "\n")
	if len(lines) < 15 || !strings.HasPrefix(lines[0], "http://") {
		t.Fatalf("stdout:\n%s", fx.out)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if n := len([]rune(l)); n > 80 || n < 21 || strings.Trim(l, " ▀▄█") != "" {
			t.Fatalf("QR line %q", l)
		}
	}
	if last := lines[len(lines)-1]; last != "Follow it up: paycli status --invoice INV-1 --sandbox" {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(fx.errOut.String(), "Payment link made for invoice INV-1 (150.00 TRY)") || strings.Contains(fx.errOut.String(), "Follow it up") {
		t.Errorf("stderr:\n%s", fx.errOut)
	}
}

// TestPipedOnATerminalStderr: stdout piped, stderr a terminal: stdout is
// the link alone, and stderr says how to follow it up.
func TestPipedOnATerminalStderr(t *testing.T) {
	fx := newFixture(t)
	fx.opts.IO.SetStderrTTY(true)
	if err := createRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	if strings.Count(fx.out.String(), "\n") != 1 {
		t.Errorf("stdout %q", fx.out)
	}
	if !strings.Contains(fx.errOut.String(), "\nFollow it up: paycli status --invoice INV-1\n") {
		t.Errorf("stderr:\n%s", fx.errOut)
	}
}

// TestBadInputSendsNothing: what the gateway would refuse is refused first,
// naming the field, exit 2, nothing sent or journaled.
func TestBadInputSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Email = "ayse@example" }, "invalid --email: not an e-mail address like name@example.com"},
		{func(o *Options) { o.Email = "Ayşe <ayse@example.com>" }, "invalid --email: not an e-mail address"},
		{func(o *Options) { o.Phone = "123 45 67" }, "invalid --phone: a phone number has 10 to 15 digits"},
		{func(o *Options) { o.Phone = "0555-555-5555 x2" }, "invalid --phone: a phone number holds only digits"},
		{func(o *Options) { o.Amount = "150,00" }, "invalid --amount"},
		{func(o *Options) { o.Amount = "150.001" }, "invalid --amount: TRY amounts have 2 decimals"},
		{func(o *Options) { o.Currency = "ZZZ" }, "invalid --currency"},
		{func(o *Options) { o.Items = []string{"Lamp:50:2"} }, "invalid --item: the lines add up to 100.00, not the --amount 150.00"},
		{func(o *Options) { o.Items = []string{"Lamp"} }, "invalid --item: write NAME:PRICE"},
		{func(o *Options) { o.MaxInstallments = 13 }, "invalid --max-installments: 13: give 1 to 12"},
		{func(o *Options) { o.ReturnURL = "shop.example/thanks" }, "invalid --return-url"},
		{func(o *Options) { o.CancelURL = "ftp://shop.example/" }, "invalid --cancel-url"},
		{func(o *Options) { o.Name = " " }, "invalid --name"},
		{func(o *Options) { o.Invoice = "" }, "invalid --invoice"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			fx := newFixture(t)
			tc.edit(fx.opts)
			err := createRun(context.Background(), fx.opts)
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err %v (kind %v), want %q", err, k, tc.want)
			}
			if strings.Contains(err.Error(), fx.opts.Email) || strings.Contains(err.Error(), fx.opts.Phone) {
				t.Errorf("the error quotes the contact: %v", err)
			}
			if fx.links.Load() != 0 || len(fx.attempts(t)) != 0 || fx.out.Len() != 0 {
				t.Errorf("%d links sent, journal %v, stdout %q", fx.links.Load(), fx.attempts(t), fx.out)
			}
		})
	}
}

// TestDryRunRedactsTheInvoice: the dry run shows the request with the
// hash_key and contact inside the invoice string redacted, and sends
// nothing.
func TestDryRunRedactsTheInvoice(t *testing.T) {
	fx := newFixture(t)
	fx.opts.DryRun = true
	if err := createRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	out := fx.out.String()
	if !strings.Contains(out, "/ccpayment/purchase/link") || !strings.Contains(out, `\"invoice_id\":\"INV-1\"`) {
		t.Errorf("dry run:\n%s", out)
	}
	for _, secret := range []string{"ayse@example.com", "905555555555", sandbox.MerchantKey} {
		if strings.Contains(out, secret) {
			t.Errorf("the dry run shows %q:\n%s", secret, out)
		}
	}
	if fx.links.Load() != 0 || len(fx.attempts(t)) != 0 {
		t.Errorf("a dry run sent %d links", fx.links.Load())
	}
}

// TestUnsettledAttemptBlocksALink: the invoice's one rule covers a link:
// an attempt of another kind on the invoice whose outcome is unknown
// keeps the link from going out.
func TestUnsettledAttemptBlocksALink(t *testing.T) {
	fx := newFixture(t)
	j, err := journal.Open(fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := fx.opts.Config()
	intent := journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Attempt: "earlier", Time: now.Add(-time.Hour),
		Profile: cfg.Profile, BaseURL: cfg.BaseURL, Invoice: "INV-1", Amount: "150.00", Currency: "TRY"}
	code := 69
	outcome := intent
	outcome.Type, outcome.Outcome, outcome.StatusCode = journal.TypeOutcome, journal.Unknown, &code
	if err := errors.Join(j.Append(intent), j.Append(outcome), j.Close()); err != nil {
		t.Fatal(err)
	}
	err = createRun(context.Background(), fx.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("err %v (kind %v)", err, k)
	}
	if fx.links.Load() != 0 {
		t.Errorf("%d links sent past an unsettled attempt", fx.links.Load())
	}
}

// TestJSONOutput: -o json prints the link's fields.
func TestJSONOutput(t *testing.T) {
	fx := newFixture(t)
	fx.opts.Format = func() (render.Format, error) { return render.JSON, nil }
	if err := createRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(fx.out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, fx.out)
	}
	if !strings.Contains(got["link"], sandbox.LinkPath) || got["invoice_id"] != "INV-1" || got["order_id"] != "VP00000000000000001" ||
		got["amount"] != "150.00" || got["currency"] != "TRY" {
		t.Errorf("json %v", got)
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// TestConfirmOnTerminal: on a terminal without --yes the desk is asked;
// "n" sends nothing and journals nothing, "y" makes the link.
func TestConfirmOnTerminal(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			fx := newFixture(t)
			fx.opts.Yes = false
			fx.opts.IO.SetStdinTTY(true)
			fx.opts.IO.SetStdoutTTY(true)
			fx.opts.IO.SetTerminalWidth(80)
			fx.in.WriteString(answer + "\n")
			err := createRun(context.Background(), fx.opts)
			if !strings.Contains(fx.errOut.String(), "\nMake a payment link of 150.00 TRY for invoice INV-1, to Ayşe Yılmaz? [y/N] ") {
				t.Errorf("stderr:\n%s", fx.errOut)
			}
			if answer == "n" {
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindCancelled || !cmdutil.IsSilent(err) || !strings.HasSuffix(fx.errOut.String(), "[y/N] Cancelled; nothing was sent.\n") {
					t.Errorf("err %v (kind %v)", err, k)
				}
				if fx.links.Load() != 0 || len(fx.attempts(t)) != 0 || fx.out.Len() != 0 {
					t.Errorf("not confirmed: %d links, stdout %q", fx.links.Load(), fx.out)
				}
				return
			}
			if err != nil || fx.links.Load() != 1 || len(fx.attempts(t)) != 1 {
				t.Errorf("confirmed: %v, %d links", err, fx.links.Load())
			}
		})
	}
}
