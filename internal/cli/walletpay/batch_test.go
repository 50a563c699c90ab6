package walletpay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
)

// TestPlanBatch: what is decided before anything is sent — bad lines,
// invoices repeated within the batch, and resuming from the journal.
func TestPlanBatch(t *testing.T) {
	tok := sandboxToken(t, "150.00")
	// A wallet token pays once: every line that may be sent has its own.
	line := func(invoice string) string {
		return fmt.Sprintf(`{"invoice":%q,"token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, invoice, sandboxToken(t, "150.00"))
	}
	input := strings.Join([]string{
		line("NEW-1"),
		"",
		`{"invoice":"X","token":` + `"` + tok + `","name":"Ada","surname":"Lovelace","e-mail":"ada@example.com"}`,
		`{"invoice":5}`,
		`[1,2]`,
		line("PAID-1"),
		line("UNKNOWN-1"),
		line("DECLINED-1"),
		line("NEW-1"),
		`{"invoice":"BAD-EMAIL","token":"` + tok + `","name":"Ada","surname":"Lovelace","email":"nope"}`,
		line("NEW-2") + " {}",
	}, "\n")
	fx := newFixture(t)
	cfg, _ := fx.opts.Config()
	client, _ := fx.opts.Gateway()
	id := journal.Identity(client.BaseURL(), cfg.AppID)
	code := 100
	writeJournal(t, fx.journal, []journal.Attempt{
		{Intent: journal.Entry{Attempt: "a1", Kind: "walletpay", Gateway: id, Profile: "test", Invoice: "PAID-1"},
			Outcome: &journal.Entry{Outcome: journal.Succeeded, StatusCode: &code, OrderNo: "VP1"}},
		// a later run sent it again and was told it was a duplicate
		{Intent: journal.Entry{Attempt: "a2", Kind: "walletpay", Gateway: id, Profile: "test", Invoice: "PAID-1"},
			Outcome: &journal.Entry{Outcome: journal.Duplicate}},
		{Intent: journal.Entry{Attempt: "a3", Kind: "walletpay", Gateway: id, Profile: "test", Invoice: "UNKNOWN-1"}},
		{Intent: journal.Entry{Attempt: "a4", Kind: "walletpay", Gateway: id, Profile: "test", Invoice: "DECLINED-1"},
			Outcome: &journal.Entry{Outcome: journal.Declined}},
	})
	fx.in.WriteString(input)
	fx.opts.Batch, fx.opts.Yes, fx.opts.Parallel = "-", true, 1
	fx.opts.GatewayFlags = []string{"--sandbox"}
	_ = walletpayRun(t.Context(), fx.opts)
	want := []string{
		"1 NEW-1 send",
		"3 X invalid line 3: unknown key \"e-mail\"; the keys are invoice, token, name, surname, email",
		"4  invalid line 4: \"invoice\" is a JSON number, not the string it should be at byte 12",
		"5  invalid line 5: not a JSON object at byte 0",
		"6 PAID-1 skipped ",
		"7 UNKNOWN-1 unknown the last attempt's outcome is unknown; not retried: run paycli status --invoice UNKNOWN-1 --sandbox",
		"8 DECLINED-1 send",
		"9 NEW-1 duplicate invoice NEW-1 is also on line 1 of this batch; not sent",
		"10 BAD-EMAIL invalid line 10: invalid email: not an e-mail address like name@example.com",
		"11 NEW-2 invalid line 11: text after the JSON object at byte 422",
	}
	results := batchResults(t, fx.out.String())
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(results), len(want), fx.out)
	}
	for i, r := range results {
		got := fmt.Sprintf("%d %s send", r.Line, r.Invoice)
		if r.Outcome != journal.Succeeded {
			msg := ""
			if r.Error != nil {
				msg = *r.Error
			}
			got = fmt.Sprintf("%d %s %s %s", r.Line, r.Invoice, r.Outcome, msg)
		}
		if got != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if o := results[4].OrderNo; o == nil || *o != "VP1" {
		t.Errorf("skipped line lost its order number")
	}
	if fx.pays.Load() != 2 {
		t.Errorf("%d payments sent, want 2 (NEW-1, DECLINED-1)", fx.pays.Load())
	}
}

// writeJournal writes attempts as journal lines.
func writeJournal(t *testing.T, path string, attempts []journal.Attempt) {
	t.Helper()
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, a := range attempts {
		a.Intent.Type = journal.TypeIntent
		if err := j.Append(a.Intent); err != nil {
			t.Fatal(err)
		}
		if a.Outcome != nil {
			o := a.Intent
			o.Type, o.Outcome, o.StatusCode, o.OrderNo = journal.TypeOutcome, a.Outcome.Outcome, a.Outcome.StatusCode, a.Outcome.OrderNo
			if err := j.Append(o); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func batchResults(t *testing.T, out string) []moneyop.BatchResult {
	t.Helper()
	var rs []moneyop.BatchResult
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r moneyop.BatchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("result line %q: %v", l, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestBatchProgressOnlyOnATerminal: the bar goes to stderr when it is a
// terminal; stdout holds only the JSON results either way.
func TestBatchProgressOnlyOnATerminal(t *testing.T) {
	for _, tty := range []bool{false, true} {
		fx := newFixture(t)
		fx.opts.IO.SetStderrTTY(tty)
		fx.opts.Yes = true
		fx.opts.Batch = "-"
		for i := range 3 {
			fmt.Fprintf(fx.in, `{"invoice":"P-%d","token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`+"\n", i, sandboxToken(t, "150.00"))
		}
		if err := walletpayRun(t.Context(), fx.opts); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(fx.out.String(), `"outcome":"succeeded"`); got != 3 || strings.Contains(fx.out.String(), "\r") {
			t.Errorf("tty=%v: stdout %q", tty, fx.out)
		}
		if bar := strings.Contains(fx.errOut.String(), "] 3/3"); bar != tty {
			t.Errorf("tty=%v: progress bar shown: %v; stderr %q", tty, bar, fx.errOut)
		}
		if !strings.HasSuffix(fx.errOut.String(), "Batch done: 3 succeeded.\n") {
			t.Errorf("tty=%v: stderr %q", tty, fx.errOut)
		}
	}
}

// TestBatchLinesAreStrict: a line whose invoice is not valid UTF-8, whose
// keys differ from the names only by case, or that repeats a key is
// invalid and never sent (each was charged before, under a changed or
// last-wins invoice id); a byte order mark before the first line is not.
func TestBatchLinesAreStrict(t *testing.T) {
	fx := newFixture(t)
	rest := func() string {
		return fmt.Sprintf(`"token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, sandboxToken(t, "150.00"))
	}
	fx.in.WriteString("\ufeff" + `{"invoice":"BOM-1",` + rest() + "\n")
	fx.in.WriteString(`{"invoice":"BAD-` + "\xff" + `",` + rest() + "\n")
	fx.in.WriteString(`{"INVOICE":"CASE-1",` + rest() + "\n")
	fx.in.WriteString(`{"invoice":"DUP-1","invoice":"DUP-2",` + rest() + "\n")
	fx.opts.Batch, fx.opts.Yes, fx.opts.Parallel = "-", true, 1
	_ = walletpayRun(t.Context(), fx.opts)
	results := batchResults(t, fx.out.String())
	want := []string{journal.Succeeded, moneyop.OutcomeInvalid, moneyop.OutcomeInvalid, moneyop.OutcomeInvalid}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(results), len(want), fx.out)
	}
	for i, r := range results {
		if r.Outcome != want[i] {
			t.Errorf("line %d (%s): %s, want %s", r.Line, r.Invoice, r.Outcome, want[i])
		}
	}
	if fx.pays.Load() != 1 {
		t.Errorf("%d payments sent, want 1 (BOM-1)", fx.pays.Load())
	}
}
