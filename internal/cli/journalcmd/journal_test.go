package journalcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func writeJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	code := 100
	entry := func(typ, id, invoice string, at time.Time) journal.Entry {
		return journal.Entry{Type: typ, Attempt: id, Time: at, Profile: "live", BaseURL: "https://gw/ccpayment",
			Invoice: invoice, Amount: "150.00", Currency: "TRY", Card: "435508******4358", Wallet: "001"}
	}
	done := entry(journal.TypeOutcome, "a1", "OLD-1", t0.Add(-48*time.Hour+time.Second))
	done.Outcome, done.StatusCode, done.OrderNo = journal.Succeeded, &code, "VP1"
	for _, e := range []journal.Entry{
		entry(journal.TypeIntent, "a1", "OLD-1", t0.Add(-48*time.Hour)), done,
		entry(journal.TypeIntent, "a2", "CRASH-1", t0.Add(-time.Hour)),
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func run(t *testing.T, format render.Format, invoice string, since time.Duration) (string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	path := writeJournal(t)
	opts := &Options{IO: ios, Format: func() (render.Format, error) { return format, nil },
		JournalPath: func() (string, error) { return path, nil }, Now: func() time.Time { return t0 },
		Invoice: invoice, Since: since}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

func TestJournalTable(t *testing.T) {
	out, errOut := run(t, render.Table, "", 0)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME ") {
		t.Fatalf("table:\n%s", out)
	}
	if !strings.HasSuffix(lines[1], "live     walletpay  OLD-1    150.00 TRY  435508******4358  succeeded               100   VP1") {
		t.Errorf("row %q", lines[1])
	}
	if !strings.HasSuffix(lines[2], "live     walletpay  CRASH-1  150.00 TRY  435508******4358  "+UnknownLabel) {
		t.Errorf("row %q", lines[2])
	}
	if errOut != "1 invoice has an unknown outcome: CRASH-1.\nAsk the gateway and record what it says with: paycli journal reconcile --profile live\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestJournalFilters(t *testing.T) {
	out, _ := run(t, render.JSON, "", 24*time.Hour)
	if strings.Contains(out, "OLD-1") || !strings.Contains(out, `"invoice": "CRASH-1"`) ||
		!strings.Contains(out, `"outcome_recorded": false`) || !strings.Contains(out, `"finished_at": null`) {
		t.Errorf("--since 24h:\n%s", out)
	}
	out, _ = run(t, render.JSON, "OLD-1", 0)
	if !strings.Contains(out, `"order_no": "VP1"`) || strings.Contains(out, "CRASH-1") {
		t.Errorf("--invoice OLD-1:\n%s", out)
	}
	out, errOut := run(t, render.Table, "NONE", 0)
	if out != "" || !strings.HasPrefix(errOut, "No payment attempts recorded in ") || !strings.HasSuffix(errOut, " for invoice NONE.\n") {
		t.Errorf("no match: %q %q", out, errOut)
	}
	out, _ = run(t, render.JSON, "NONE", 0)
	if out != "[]\n" {
		t.Errorf("no match as JSON: %q", out)
	}
}

// --invoice follows the invoice rule, as walletpay's and status's do: a
// value with an escape sequence or a line break is refused (exit 2) before
// anything is read or echoed.
func TestJournalInvoiceRule(t *testing.T) {
	for _, id := range []string{"A\x1b[2JB\nC", "", " INV", "INV|1"} {
		ios, _, _, _ := iostreams.Test()
		cmd := NewCmdJournal(&cmdutil.Factory{IOStreams: ios}, func() (string, error) { return "", nil },
			func(context.Context, *Options) error { t.Errorf("%q accepted", id); return nil })
		cmd.SetArgs([]string{"--invoice", id})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "invalid --invoice: the invoice id ") {
			t.Errorf("%q: %v (kind %v)", id, err, k)
		}
	}
}

// Outside text in the messages (the filter, the journal's path) is
// escaped.
func TestJournalNoteEscapes(t *testing.T) {
	opts := &Options{Invoice: "A\x1b[2JB\nC"}
	if got, want := filterNote(opts), ` for invoice A\x1b[2JB\nC`; got != want {
		t.Errorf("filterNote = %q, want %q", got, want)
	}
	if got := unknownFooter([]string{"X\x1b]0;t\x07"}, [][]string{{"--profile", "p\x1b[2J"}, {"--sandbox"}}, []string{"paycli status --invoice \x1b[2J"}); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("footer %q", got)
	}
}
