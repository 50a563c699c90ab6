package journalcmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

// Invoice ids that are card numbers (Luhn-valid).
const (
	cardPaid    = "4111111111111111"
	cardLost    = "5555555555554444"
	cardMissing = "4012888888881881"
)

// cardJournal holds a paid attempt whose invoice id is a card number (its
// outcome message echoes it), an attempt of unknown outcome for another,
// and one for an ordinary invoice.
func cardJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	code := 100
	entry := func(typ, id, invoice string) journal.Entry {
		return journal.Entry{Type: typ, Kind: "walletpay", Attempt: id, Time: t0, Profile: "live", BaseURL: "https://gw/ccpayment",
			Invoice: invoice, Amount: "150.00", Currency: "TRY", Card: "435508******4358", Wallet: "001"}
	}
	done := entry(journal.TypeOutcome, "a1", cardPaid)
	done.Outcome, done.StatusCode, done.OrderNo, done.Message = journal.Succeeded, &code, "VP1", "invoice "+cardPaid+" paid"
	for _, e := range []journal.Entry{
		entry(journal.TypeIntent, "a1", cardPaid), done,
		entry(journal.TypeIntent, "a2", cardLost),
		entry(journal.TypeIntent, "a3", "INV-1"),
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func noCard(t *testing.T, what, text string) {
	t.Helper()
	for _, card := range []string{cardPaid, cardLost, cardMissing} {
		if strings.Contains(text, card) {
			t.Errorf("%s shows the full card number %s:\n%s", what, card, text)
		}
	}
}

// TestJournalMasksCardInvoices: `paycli journal` shows an invoice id that
// is a card number masked in the table, JSON and CSV, in the messages and
// in the footer of unknown outcomes, while --invoice still finds it by the
// whole id; completion never offers it.
func TestJournalMasksCardInvoices(t *testing.T) {
	path := cardJournal(t)
	list := func(format render.Format, invoice string) (string, string) {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		opts := &Options{Deps: cmdutil.Deps{IO: ios, Format: func() (render.Format, error) { return format, nil }, Now: func() time.Time { return t0 }}, MoneyKinds: kindtest.Paycli(),
			Journal: fileJournal(path), Invoice: invoice}
		if err := journalRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		noCard(t, "stdout", out.String())
		noCard(t, "stderr", errOut.String())
		return out.String(), errOut.String()
	}
	for _, format := range []render.Format{render.Table, render.JSON, render.CSV} {
		out, errOut := list(format, "")
		if !strings.Contains(out, "411111******1111") || !strings.Contains(out, "555555******4444") || !strings.Contains(out, "INV-1") {
			t.Errorf("format %v:\n%s", format, out)
		}
		if !strings.Contains(errOut, "2 invoices have an unknown outcome: 555555******4444, INV-1.\n") {
			t.Errorf("format %v: footer %q", format, errOut)
		}
	}
	out, _ := list(render.JSON, cardPaid)
	if !strings.Contains(out, `"invoice": "411111******1111"`) || !strings.Contains(out, `"order_no": "VP1"`) ||
		!strings.Contains(out, `"message": "invoice 411111******1111 paid"`) {
		t.Errorf("--invoice %s:\n%s", cardPaid, out)
	}
	if _, errOut := list(render.Table, cardMissing); !strings.HasSuffix(errOut, " for invoice 401288******1881.\n") {
		t.Errorf("no match: %q", errOut)
	}

	complete := CompleteInvoice(func() (string, error) { return path, nil }, kindtest.Paycli)
	got, _ := complete(&cobra.Command{}, nil, "")
	if len(got) != 1 || !strings.HasPrefix(got[0], "INV-1\t") {
		t.Errorf("completion offers %q, want only INV-1", got)
	}
}

// TestReconcileMasksCardInvoices: `paycli journal reconcile` asks the
// gateway about an invoice id that is a card number by the whole id and
// shows it masked, in its dry run and its results.
func TestReconcileMasksCardInvoices(t *testing.T) {
	for _, dryRun := range []bool{true, false} {
		for _, format := range []render.Format{render.Table, render.JSON, render.CSV} {
			opts, path := reconcileFixture(t, format)
			pay(t, mustClient(t, opts), cardPaid, "10.00")
			j, err := journal.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _ := opts.Config()
			s := journal.ScopeFor("walletpay", cfg.Profile, cfg.BaseURL, journal.Identity(cfg.BaseURL, cfg.AppID), false)
			if err := j.Append(journal.Entry{Type: journal.TypeIntent, Kind: s.Kind, Gateway: s.Gateway, Attempt: "card",
				Time: t0, Profile: cfg.Profile, BaseURL: s.BaseURL, Invoice: cardPaid, Amount: "10.00", Currency: "TRY"}); err != nil {
				t.Fatal(err)
			}
			_ = j.Close()
			opts.DryRun = dryRun
			_ = reconcileRun(context.Background(), opts)
			out := opts.IO.Out.(interface{ String() string }).String()
			errOut := opts.IO.ErrOut.(interface{ String() string }).String()
			noCard(t, "stdout", out)
			noCard(t, "stderr", errOut)
			if !strings.Contains(out, "411111******1111") {
				t.Errorf("dry run %v, format %v: the invoice is not listed masked:\n%s", dryRun, format, out)
			}
			if attempts, _, _ := journal.Read(path); !dryRun && !reconciled(attempts, "card") {
				t.Errorf("format %v: the card invoice's attempt was not reconciled", format)
			}
		}
	}
}

func mustClient(t *testing.T, opts *ReconcileOptions) *gateway.Client {
	t.Helper()
	c, err := opts.Gateway()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func reconciled(attempts []journal.Attempt, id string) bool {
	for _, a := range attempts {
		if a.Intent.Attempt == id {
			return a.Reconciled != nil && a.Class() == journal.Succeeded
		}
	}
	return false
}
