package refund

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

// fixture is a sandbox gateway behind httptest, counting refund calls,
// with a 150.00 TRY sale of INV-1, and Options wired to it on
// iostreams.Test().
type fixture struct {
	opts        *Options
	in, errOut  *bytes.Buffer
	out         *bytes.Buffer
	refunds     *atomic.Int32
	journalPath string
	// runs counts refundAgain's runs, for a ref and attempt id each.
	runs int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	now := time.Now()
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var refunds atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/api/refund") {
			refunds.Add(1)
		}
		gw.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + sandbox.Base
	cfg := &config.Config{Profile: "test", BaseURL: base, AppID: sandbox.AppID, AppSecret: sandbox.AppSecret,
		MerchantKey: sandbox.MerchantKey, Timeout: 10 * time.Second, Output: "table"}
	client, err := gateway.New(base, gateway.Credentials{AppID: cfg.AppID, AppSecret: cfg.AppSecret, MerchantKey: cfg.MerchantKey}, gateway.WithClock(time.Now))
	if err != nil {
		t.Fatal(err)
	}
	// The sale: a walletPay of 150.00 TRY.
	tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("150.00"), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, now, sandbox.NewTokenID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.WalletPay(context.Background(), gateway.WalletPayRequest{Total: "150.00", CurrencyCode: "TRY",
		InvoiceID: "INV-1", WalletTransientToken: tok, Name: "Ada", Surname: "Lovelace", BillEmail: "ada@example.com"}); err != nil {
		t.Fatal(err)
	}
	ios, in, out, errOut := iostreams.Test()
	jpath := filepath.Join(t.TempDir(), "state", "paycli", journal.FileName)
	fx := &fixture{in: in, out: out, errOut: errOut, refunds: &refunds, journalPath: jpath}
	fx.opts = &Options{
		Options: moneyop.Options{
			Deps: cmdutil.Deps{
				IO:      ios,
				Config:  func() (*config.Config, error) { return cfg, nil },
				Format:  func() (render.Format, error) { return render.Table, nil },
				Gateway: func() (*gateway.Client, error) { return client, nil },
				CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
					ctx, cancel := context.WithCancel(ctx)
					return ctx, cancel, nil
				},
				Now: time.Now,
			},
			JournalPath:  func() (string, error) { return jpath, nil },
			Journal:      func() (journal.Store, error) { return journal.OpenFile(jpath, time.Now), nil },
			NewAttemptID: func() string { return "attempt-1" },
			Parallel:     4,
		},
		NewRef: func() string { return "RF-TEST-1" },
	}
	return fx
}

// TestConfirmOnTerminal: on a terminal paycli shows the sale, what is
// refunded and what remains, and asks; "n" sends nothing and journals
// nothing, "y" refunds.
func TestConfirmOnTerminal(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			fx := newFixture(t)
			fx.opts.IO.SetStdinTTY(true)
			fx.opts.IO.SetStdoutTTY(true)
			fx.opts.Invoice, fx.opts.Amount = "INV-1", "50.00"
			fx.in.WriteString(answer + "\n")
			err := refundRun(context.Background(), fx.opts)
			stderr := fx.errOut.String()
			for _, want := range []string{"Refund\n  Invoice:  INV-1\n  Sale:     150.00 TRY, ", "\n  Card:     435508******4358\n  Refunded: 0.00 TRY\n  Remains:  150.00 TRY\n  Refund:   50.00 TRY\n  Ref:      RF-TEST-1\n",
				"\nRefund 50.00 TRY of INV-1 (sale 150.00 TRY, 0.00 refunded) to 435508******4358? [y/N] "} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			attempts, _, _ := journal.Read(fx.journalPath)
			if answer == "n" {
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindCancelled || !cmdutil.IsSilent(err) || !strings.HasSuffix(stderr, "[y/N] Cancelled; nothing was sent.\n") {
					t.Errorf("err %v (kind %v), stderr %q; want the cancel said, exit 10", err, k, stderr)
				}
				if fx.refunds.Load() != 0 || len(attempts) != 0 || fx.out.Len() != 0 {
					t.Errorf("declined confirmation: %d refunds, %d attempts journaled, stdout %q", fx.refunds.Load(), len(attempts), fx.out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fx.refunds.Load() != 1 || len(attempts) != 1 || attempts[0].Class() != journal.Succeeded ||
				attempts[0].Intent.Ref != "RF-TEST-1" || attempts[0].Intent.Kind != "refund" ||
				attempts[0].Intent.Amount != "50.00" || attempts[0].Intent.Card != "435508******4358" {
				t.Errorf("%d refunds, attempts %+v", fx.refunds.Load(), attempts)
			}
			if !strings.Contains(fx.out.String(), "\nremaining_amount       100.00\n") {
				t.Errorf("stdout:\n%s", fx.out)
			}
		})
	}
}

// TestWebhookKey: --webhook-key is sent as refund_web_hook_key.
func TestWebhookKey(t *testing.T) {
	fx := newFixture(t)
	fx.opts.Invoice, fx.opts.Amount, fx.opts.DryRun = "INV-1", "1.00", true
	fx.opts.WebhookKey = "https://shop.example/refund-hook"
	if err := refundRun(context.Background(), fx.opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fx.out.String(), `"refund_web_hook_key": "https://shop.example/refund-hook"`) {
		t.Errorf("dry run:\n%s", fx.out)
	}
	if fx.refunds.Load() != 0 {
		t.Errorf("a dry run sent %d refunds", fx.refunds.Load())
	}
}
