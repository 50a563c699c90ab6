package walletpay

import (
	"bytes"
	"context"
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

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestNewCmdWalletPayFlags(t *testing.T) {
	single := "--invoice I --token T --name N --surname S --email e@x.co"
	tests := []struct {
		args    string
		wantErr string
		check   func(*Options) bool
	}{
		{single, "", func(o *Options) bool {
			return o.Invoice == "I" && o.Token == "T" && !o.Yes && o.Parallel == DefaultParallel
		}},
		{single + " --yes --dry-run", "", func(o *Options) bool { return o.Yes && o.DryRun }},
		{"--invoice I --token T", "missing --name, --surname, --email (or use --batch FILE)", nil},
		{single + " --parallel 2", "--parallel only applies to --batch", nil},
		{"--batch f.jsonl", "--batch needs --yes", nil},
		{"--batch f.jsonl --yes --token T", "--token cannot be used with --batch", nil},
		{"--batch f.jsonl --yes --dry-run", "--dry-run cannot be used with --batch", nil},
		{"--batch f.jsonl --yes --parallel 0", "invalid --parallel 0: use 1 to 32", nil},
		{"--batch f.jsonl --yes --parallel 8", "", func(o *Options) bool { return o.Batch == "f.jsonl" && o.Parallel == 8 }},
		{single + " extra", `unexpected argument "extra"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *Options
			f := &cmdutil.Factory{IOStreams: ios, LookupEnv: func(string) (string, bool) { return "", false }}
			cmd := NewCmdWalletPay(f, func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage && !strings.Contains(tt.wantErr, "unexpected") {
					t.Errorf("kind %v, want usage", k)
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

func TestStatusCommand(t *testing.T) {
	tests := []struct {
		invoice string
		flags   []string
		want    string
	}{
		{"INV-1", nil, "paycli status --invoice INV-1"},
		{"INV 2", []string{"--profile", "live", "--sandbox"}, "paycli status --invoice 'INV 2' --profile live --sandbox"},
		{"it's", []string{"--profile", "a b"}, `paycli status --invoice 'it'\''s' --profile 'a b'`},
	}
	for _, tt := range tests {
		if got := StatusCommand(tt.invoice, tt.flags); got != tt.want {
			t.Errorf("StatusCommand(%q, %q) = %s, want %s", tt.invoice, tt.flags, got, tt.want)
		}
	}
}

// fixture is a sandbox gateway behind httptest, counting walletPay calls,
// and Options wired to it on iostreams.Test().
type fixture struct {
	opts    *Options
	in      *bytes.Buffer
	out     *bytes.Buffer
	errOut  *bytes.Buffer
	pays    *atomic.Int32
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
	var pays atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/api/walletPay") {
			pays.Add(1)
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
	jpath := filepath.Join(t.TempDir(), "state", "paycli", journal.FileName)
	var ids atomic.Int32
	fx := &fixture{in: in, out: out, errOut: errOut, pays: &pays, journal: jpath, store: store}
	fx.opts = &Options{
		Options: moneyop.Options{
			Deps: cmdutil.Deps{
				IO:     ios,
				Config: func() (*config.Config, error) { return cfg, nil },
				Format: func() (render.Format, error) { return render.Table, nil },
				Gateway: func() (*gateway.Client, error) {
					return client, nil
				},
				CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
					ctx, cancel := context.WithCancel(ctx)
					return ctx, cancel, nil
				},
				Now: func() time.Time { return now },
			},
			JournalPath:  func() (string, error) { return jpath, nil },
			Journal:      func() (journal.Store, error) { return journal.OpenFile(jpath, time.Now), nil },
			NewAttemptID: func() string { return fmt.Sprintf("attempt-%d", ids.Add(1)) },
			Parallel:     DefaultParallel,
		},
		Name: "Ada", Surname: "Lovelace", Email: "ada@example.com",
	}
	return fx
}

func sandboxToken(t *testing.T, amount string) string {
	t.Helper()
	tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString(amount), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, now, sandbox.NewTokenID()) // a wallet token pays once
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

const wantSummary = `Wallet payment
  Amount:  150.00 TRY
  Card:    435508******4358
  Wallet:  001
  Invoice: INV-1
  Payer:   Ada Lovelace
  Profile: test
`

// TestConfirmOnTerminal: on a terminal paycli shows the summary and asks;
// "n" sends nothing and journals nothing, "y" pays.
func TestConfirmOnTerminal(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			fx := newFixture(t)
			fx.opts.IO.SetStdinTTY(true)
			fx.opts.IO.SetStdoutTTY(true)
			fx.opts.Invoice, fx.opts.Token = "INV-1", sandboxToken(t, "150.00")
			fx.in.WriteString(answer + "\n")
			err := walletpayRun(context.Background(), fx.opts)
			stderr := fx.errOut.String()
			if !strings.HasPrefix(stderr, wantSummary) ||
				!strings.Contains(stderr, "/ccpayment\nCharge 150.00 TRY to 435508******4358? [y/N] ") {
				t.Errorf("stderr:\n%s", stderr)
			}
			attempts, _, _ := journal.Read(fx.journal)
			if answer == "n" {
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindCancelled || !cmdutil.IsSilent(err) || !strings.HasSuffix(stderr, "[y/N] Cancelled; nothing was sent.\n") {
					t.Errorf("err %v (kind %v), stderr %q; want the cancel said, exit 10", err, k, stderr)
				}
				if fx.pays.Load() != 0 || len(attempts) != 0 || fx.out.Len() != 0 {
					t.Errorf("declined confirmation: %d payments, %d attempts journaled, stdout %q", fx.pays.Load(), len(attempts), fx.out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fx.pays.Load() != 1 || len(attempts) != 1 || attempts[0].Class() != journal.Succeeded {
				t.Errorf("%d payments, attempts %+v", fx.pays.Load(), attempts)
			}
			if !strings.Contains(fx.out.String(), "\norder_no                        VP00000000000000001\n") {
				t.Errorf("stdout:\n%s", fx.out)
			}
			in := attempts[0].Intent
			if in.Profile != "test" || in.Amount != "150.00" || in.Currency != "TRY" || in.Card != "435508******4358" || in.Wallet != "001" {
				t.Errorf("intent %+v", in)
			}
			if o := attempts[0].Outcome; *o.StatusCode != 100 || o.OrderNo != "VP00000000000000001" {
				t.Errorf("outcome %+v", o)
			}
		})
	}
}

// TestNothingSentWithoutAJournal: an intent that cannot be written stops
// the payment before its request exists.
func TestNothingSentWithoutAJournal(t *testing.T) {
	fx := newFixture(t)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fx.opts.Journal = func() (journal.Store, error) {
		return journal.OpenFile(filepath.Join(blocker, journal.FileName), time.Now), nil
	}
	fx.opts.Invoice, fx.opts.Token, fx.opts.Yes = "INV-1", sandboxToken(t, "150.00"), true
	err := walletpayRun(context.Background(), fx.opts)
	if !errors.Is(err, moneyop.ErrJournal) {
		t.Fatalf("err %v", err)
	}
	if fx.pays.Load() != 0 {
		t.Errorf("%d payments sent without a journal", fx.pays.Load())
	}
}

// TestValidationSendsNothing: each bad input is a usage error naming the
// flag, and neither the gateway nor the journal hears of it.
func TestValidationSendsNothing(t *testing.T) {
	tests := []struct {
		mutate func(*Options, *testing.T)
		want   string
	}{
		{func(o *Options, t *testing.T) { o.Invoice = "" }, "invalid --invoice: the invoice id is empty"},
		{func(o *Options, t *testing.T) { o.Invoice = "A|B" }, "invalid --invoice: the invoice id holds '|' (U+007C) at character 2: it separates the fields of a hash_key"},
		{func(o *Options, t *testing.T) { o.Invoice = "A\xffB" }, "invalid --invoice: the invoice id is not valid UTF-8"},
		{func(o *Options, t *testing.T) { o.Invoice = "INV\u200b1" }, "invalid --invoice: the invoice id holds an invisible formatting character (U+200B)"},
		{func(o *Options, t *testing.T) { o.Invoice = "INV-1\u00a0" }, "invalid --invoice: the invoice id holds white space other than a plain space (U+00A0)"},
		{func(o *Options, t *testing.T) { o.Surname = " " }, "invalid --surname: the payer's last name is empty"},
		{func(o *Options, t *testing.T) { o.Email = "Ada <ada@example.com>" }, "invalid --email: not an e-mail address like name@example.com"},
		{func(o *Options, t *testing.T) { o.Token = "a.b" }, "invalid --token: the wallet token is not a JWT"},
		{func(o *Options, t *testing.T) { o.Token = "-" }, "invalid --token: stdin held no token"},
		{func(o *Options, t *testing.T) {
			tok, _ := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("1.00"), Currency: "TRY",
				CardNumber: sandbox.DefaultWalletCard, Wallet: "001", TTL: time.Minute}, now.Add(-time.Hour), "old")
			o.Token = tok
		}, "invalid --token: the wallet token expired at 2026-11-22T09:01:00Z (59m0s ago)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			fx := newFixture(t)
			fx.opts.Invoice, fx.opts.Token, fx.opts.Yes = "INV-1", sandboxToken(t, "150.00"), true
			tt.mutate(fx.opts, t)
			err := walletpayRun(context.Background(), fx.opts)
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err %v (kind %v), want usage %q", err, k, tt.want)
			}
			if _, statErr := os.Stat(fx.journal); fx.pays.Load() != 0 || statErr == nil {
				t.Errorf("%d payments, journal exists: %v", fx.pays.Load(), statErr == nil)
			}
		})
	}
}

// TestTokenFromStdinAndFile: - reads stdin, @path a file; white space is
// trimmed either way.
func TestTokenFromStdinAndFile(t *testing.T) {
	fx := newFixture(t)
	tok := sandboxToken(t, "150.00")
	fx.in.WriteString("\n  " + tok + "\n\n")
	fx.opts.Token = "-"
	if got, err := readToken(context.Background(), fx.opts); err != nil || got != tok {
		t.Errorf("stdin: %q, %v", got, err)
	}
	path := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(path, []byte(tok+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fx.opts.Token = "@" + path
	if got, err := readToken(context.Background(), fx.opts); err != nil || got != tok {
		t.Errorf("file: %q, %v", got, err)
	}
}

// TestDeclineAndDuplicateOutcomes checks the errors and journal lines of
// the outcomes that are not a success.
func TestDeclineAndDuplicateOutcomes(t *testing.T) {
	fx := newFixture(t)
	fx.opts.Yes = true
	fx.opts.GatewayFlags = []string{"--profile", "test"}
	pay := func(invoice, amount string) error {
		fx.opts.Invoice, fx.opts.Token = invoice, sandboxToken(t, amount)
		return walletpayRun(context.Background(), fx.opts)
	}
	err := pay("D-1", "10.41")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDeclined ||
		err.Error() != `payment declined: status_code 41 "Payment failed", payment_reason_code 51 (Insufficient funds); nothing was charged` {
		t.Errorf("decline: %v (kind %v)", err, k)
	}
	err = pay("D-1", "10.00")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate ||
		err.Error() != "invoice D-1 was already processed or is in flight; this call charged nothing" ||
		cmdutil.HintOf(err) != "See what happened to it: paycli status --invoice D-1 --profile test" {
		t.Errorf("duplicate: %v / %q (kind %v)", err, cmdutil.HintOf(err), k)
	}
	err = pay("P-1", "10.69")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown ||
		cmdutil.HintOf(err) != "Find out what happened with: paycli status --invoice P-1 --profile test" {
		t.Errorf("pending: %v (kind %v)", err, k)
	}
	attempts, _, _ := journal.Read(fx.journal)
	var got []string
	for _, a := range attempts {
		got = append(got, fmt.Sprintf("%s:%s:%d:%s", a.Intent.Invoice, a.Class(), *a.Outcome.StatusCode, a.Outcome.OrderNo))
	}
	want := "D-1:declined:41:VP00000000000000001 D-1:duplicate:3: P-1:unknown:69:VP00000000000000002" // a refused duplicate uses no order id
	if strings.Join(got, " ") != want {
		t.Errorf("journal %s, want %s", strings.Join(got, " "), want)
	}
}
