package walletpay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// TestPlanBatch: what is decided before anything is sent — bad lines,
// invoices repeated within the batch, and resuming from the journal.
func TestPlanBatch(t *testing.T) {
	tok := sandboxToken(t, "150.00")
	line := func(invoice string) string {
		return fmt.Sprintf(`{"invoice":%q,"token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, invoice, tok)
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
	code := 100
	states := journal.ByInvoice([]journal.Attempt{
		{Intent: journal.Entry{Profile: "p", Invoice: "PAID-1"}, Outcome: &journal.Entry{Outcome: journal.Succeeded, StatusCode: &code, OrderNo: "VP1"}},
		// a later run sent it again and was told it was a duplicate
		{Intent: journal.Entry{Profile: "p", Invoice: "PAID-1"}, Outcome: &journal.Entry{Outcome: journal.Duplicate}},
		{Intent: journal.Entry{Profile: "p", Invoice: "UNKNOWN-1"}},
		{Intent: journal.Entry{Profile: "p", Invoice: "DECLINED-1"}, Outcome: &journal.Entry{Outcome: journal.Declined}},
	}, journal.Scope{Kind: journal.KindWalletPay, Profile: "p"})
	fx := newFixture(t)
	p, err := newPayer(fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	lines := planBatch([]byte(input), p, states, []string{"--sandbox"})
	want := []string{
		"1 NEW-1 send",
		"3 X invalid line 3: unknown key \"e-mail\"; the keys are invoice, token, name, surname, email",
		"4  invalid line 4: invoice must be a string",
		"5  invalid line 5: not a JSON object",
		"6 PAID-1 skipped ",
		"7 UNKNOWN-1 unknown the last attempt's outcome is unknown; not retried: run paycli status --invoice UNKNOWN-1 --sandbox",
		"8 DECLINED-1 send",
		"9 NEW-1 duplicate invoice NEW-1 is also on line 1 of this batch; not sent",
		"10 BAD-EMAIL invalid line 10: invalid email: not an e-mail address like name@example.com",
		"11 NEW-2 invalid line 11: more than one JSON value on the line",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines planned, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		got := fmt.Sprintf("%d %s send", l.result.Line, l.result.Invoice)
		if l.payment == nil {
			msg := ""
			if l.result.Error != nil {
				msg = *l.result.Error
			}
			got = fmt.Sprintf("%d %s %s %s", l.result.Line, l.result.Invoice, l.result.Outcome, msg)
		}
		if got != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if o := lines[4].result.OrderNo; o == nil || *o != "VP1" {
		t.Errorf("skipped line lost its order number")
	}
}

func TestMostSerious(t *testing.T) {
	tests := []struct {
		outcomes []string
		want     cmdutil.Kind
		some     bool
	}{
		{[]string{"succeeded", "skipped"}, 0, false},
		{[]string{"duplicate", "succeeded"}, cmdutil.KindDuplicate, true},
		{[]string{"duplicate", "invalid"}, cmdutil.KindRejected, true},
		{[]string{"rejected", "declined", "duplicate"}, cmdutil.KindDeclined, true},
		{[]string{"declined", "unknown", "not_sent"}, cmdutil.KindOutcomeUnknown, true},
		{[]string{"declined", "not_sent"}, cmdutil.KindUnavailable, true},
	}
	for _, tt := range tests {
		var lines []*batchLine
		for _, o := range tt.outcomes {
			lines = append(lines, &batchLine{result: BatchResult{Outcome: o}})
		}
		if k, ok := mostSerious(lines); k != tt.want || ok != tt.some {
			t.Errorf("%v: %v %v, want %v %v", tt.outcomes, k, ok, tt.want, tt.some)
		}
	}

	// Refused credentials (a rejection with HTTP 401 / status_code 30) rank
	// just below an unknown outcome: nothing was processed, and every line
	// meets the same refusal until the profile is fixed.
	refused := []*batchLine{{result: BatchResult{Outcome: "declined"}}, {result: BatchResult{Outcome: "rejected"}, refused: true}}
	if k, _ := mostSerious(refused); k != cmdutil.KindAuth {
		t.Errorf("refused credentials: %v, want KindAuth", k)
	}
	if k, _ := mostSerious(append(refused, &batchLine{result: BatchResult{Outcome: "unknown"}})); k != cmdutil.KindOutcomeUnknown {
		t.Errorf("refused credentials and an unknown outcome: %v, want KindOutcomeUnknown", k)
	}
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
		if err := Run(t.Context(), fx.opts); err != nil {
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
