package status

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
)

// TestStatusMasksCardInvoice: `paycli status` asks about an invoice id
// that is a card number by the whole id, and shows it masked: in the
// fields (table and JSON), the pending and not-found errors, the --watch
// progress lines and the journal note; the suggested command does not name
// it. The journal's reconcile line is found by the whole id.
func TestStatusMasksCardInvoice(t *testing.T) {
	const card, missing = "5555555555554444", "4012888888881881"
	for _, format := range []render.Format{render.Table, render.JSON} {
		fx := newFixture(t, format)
		client, _ := fx.opts.Gateway()
		pay(t, client, card, "10.69", fx.clock.Now())
		cfg, _ := fx.opts.Config()
		path := filepath.Join(t.TempDir(), journal.FileName)
		fx.opts.Now = fx.clock.Now
		fx.opts.Journal = fileJournal(path, fx.clock.Now)
		fx.opts.Flags = []string{"--sandbox"}
		scope := journal.ScopeFor("walletpay", cfg.Profile, cfg.BaseURL, journal.Identity(cfg.BaseURL, cfg.AppID), true)
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(journal.Entry{Type: journal.TypeIntent, Kind: scope.Kind, Gateway: scope.Gateway, Attempt: "a1",
			Time: t0, Profile: cfg.Profile, BaseURL: scope.BaseURL, Invoice: card, Amount: "10.69", Currency: "TRY"}); err != nil {
			t.Fatal(err)
		}
		_ = j.Close()

		var shown []string
		fx.opts.Invoice = card
		err = statusRun(context.Background(), fx.opts) // still pending: exit 7
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown {
			t.Fatalf("pending: %v", err)
		}
		if h := cmdutil.HintOf(err); !strings.HasPrefix(h, "Check again later, or watch it with: paycli status --invoice ID --sandbox --watch, ID being") {
			t.Errorf("hint %q", h)
		}
		shown = append(shown, err.Error(), cmdutil.HintOf(err))
		fx.opts.Watch = true
		if err := statusRun(context.Background(), fx.opts); err != nil {
			t.Fatal(err)
		}
		fx.opts.Invoice, fx.opts.Watch = missing, false
		err = statusRun(context.Background(), fx.opts)
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected || err.Error() != "no transaction with invoice 401288******1881" {
			t.Errorf("not found: %v", err)
		}
		shown = append(shown, err.Error(), fx.out.String(), fx.errOut.String())
		for _, text := range shown {
			if strings.Contains(text, card) || strings.Contains(text, missing) {
				t.Errorf("format %v: a full card number is shown:\n%s", format, text)
			}
		}
		for _, want := range []string{"Invoice 555555******4444 is pending; checking again in 1s…\n",
			"Recorded in the journal: invoice 555555******4444 succeeded (its outcome was unknown).\n"} {
			if !strings.Contains(fx.errOut.String(), want) {
				t.Errorf("format %v: stderr lacks %q:\n%s", format, want, fx.errOut)
			}
		}
		if !strings.Contains(fx.out.String(), "555555******4444") {
			t.Errorf("format %v: invoice_id not shown masked:\n%s", format, fx.out)
		}
		attempts, _, _ := journal.Read(path)
		if len(attempts) != 1 || attempts[0].Reconciled == nil || attempts[0].Intent.Invoice != card {
			t.Errorf("format %v: journal %+v", format, attempts)
		}
	}
}
