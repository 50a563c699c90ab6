package journalcmd

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// fileJournal opens the journal file at path, as the factory does for a
// profile without a shared journal.
func fileJournal(path string) func() (journal.Store, error) {
	return func() (journal.Store, error) { return journal.OpenFile(path, time.Now), nil }
}

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
	declined := entry(journal.TypeOutcome, "a3", "DECL-1", t0.Add(-20*time.Hour))
	code41 := 41
	declined.Outcome, declined.StatusCode, declined.Message = journal.Declined, &code41, `walletPay: status_code 41 "Payment failed"`
	declined.StatusDescription, declined.PaymentReasonCode, declined.PaymentReasonCodeDetail = "Payment failed", "51", "Insufficient funds"
	refundIntent := entry(journal.TypeIntent, "a4", "OLD-1", t0.Add(-30*time.Hour))
	refundIntent.Kind, refundIntent.Ref = "refund", "RF1"
	refunded := refundIntent
	refunded.Type, refunded.Outcome, refunded.StatusCode = journal.TypeOutcome, journal.Succeeded, &code
	for _, e := range []journal.Entry{
		entry(journal.TypeIntent, "a1", "OLD-1", t0.Add(-48*time.Hour)), done,
		refundIntent, refunded,
		entry(journal.TypeIntent, "a3", "DECL-1", t0.Add(-20*time.Hour)), declined,
		entry(journal.TypeIntent, "a2", "CRASH-1", t0.Add(-time.Hour)),
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// runArgs runs `paycli journal ARGS` on the journal of writeJournal, at
// t0 in zone (the user's), and returns stdout and stderr.
func runArgs(t *testing.T, zone *time.Location, format render.Format, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	path := writeJournal(t)
	f := &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Now: func() time.Time { return t0.In(zone) }, JournalPath: func() (string, error) { return path, nil }, Journal: fileJournal(path)}
	cmd := NewCmdJournal(f, func(ctx context.Context, opts *Options) error {
		opts.Format = func() (render.Format, error) { return format, nil }
		return journalRun(ctx, opts)
	})
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func run(t *testing.T, format render.Format, invoice string, since string) (string, string) {
	t.Helper()
	args := []string{}
	if invoice != "" {
		args = append(args, "--invoice", invoice)
	}
	if since != "" {
		args = append(args, "--since", since)
	}
	out, errOut, err := runArgs(t, time.UTC, format, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out, errOut
}

func TestJournalTable(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("TRT", 3*3600)
	defer func() { time.Local = saved }()
	out, errOut := run(t, render.Table, "", "")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "TIME ") {
		t.Fatalf("table:\n%s", out)
	}
	// Newest first; today's attempt (t0's day) by its clock time, older
	// ones by their date.
	if lines[4] != "2026-11-20  live     walletpay  OLD-1    150.00 TRY  435508******4358  succeeded  100   VP1" {
		t.Errorf("row %q", lines[4])
	}
	if lines[1] != "12:00:00    live     walletpay  CRASH-1  150.00 TRY  435508******4358  unknown" {
		t.Errorf("row %q", lines[1])
	}
	if errOut != "1 invoice has an unknown outcome: CRASH-1.\nAsk the gateway and record what it says with: paycli journal reconcile --profile live\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestJournalFilters(t *testing.T) {
	out, _ := run(t, render.JSON, "", "24h")
	if strings.Contains(out, "OLD-1") || !strings.Contains(out, `"invoice": "CRASH-1"`) ||
		!strings.Contains(out, `"outcome_recorded": false`) || !strings.Contains(out, `"finished_at": null`) {
		t.Errorf("--since 24h:\n%s", out)
	}
	out, _ = run(t, render.JSON, "OLD-1", "")
	if !strings.Contains(out, `"order_no": "VP1"`) || strings.Contains(out, "CRASH-1") {
		t.Errorf("--invoice OLD-1:\n%s", out)
	}
	out, errOut := run(t, render.Table, "NONE", "")
	if out != "" || !strings.HasPrefix(errOut, "No payment attempts recorded in ") || !strings.HasSuffix(errOut, " for invoice NONE.\n") {
		t.Errorf("no match: %q %q", out, errOut)
	}
	out, _ = run(t, render.JSON, "NONE", "")
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
		cmd := NewCmdJournal(&cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, JournalPath: func() (string, error) { return "", nil }},
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

// invoicesOf lists the invoices of -o json output, in order.
func invoicesOf(t *testing.T, out string) []string {
	t.Helper()
	var records []struct {
		Invoice string `json:"invoice"`
	}
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, r := range records {
		got = append(got, r.Invoice)
	}
	return got
}

// The journal answers "what failed yesterday": days, dates and durations,
// --until, --outcome and --kind, in the user's zone (the clock's).
func TestJournalTimeAndOutcomeFilters(t *testing.T) {
	plus14 := time.FixedZone("LINT", 14*60*60) // t0 is 2026-11-23 00:00 there
	for _, tt := range []struct {
		zone *time.Location
		args []string
		want []string
	}{
		{time.UTC, nil, []string{"OLD-1", "OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "1d"}, []string{"DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "21h"}, []string{"DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "19h"}, []string{"CRASH-1"}},
		{time.UTC, []string{"--since", "2d1h"}, []string{"OLD-1", "OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "today"}, []string{"CRASH-1"}},
		{time.UTC, []string{"--since", "yesterday"}, []string{"OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "yesterday", "--until", "yesterday"}, []string{"OLD-1", "DECL-1"}},
		{time.UTC, []string{"--until", "today"}, []string{"OLD-1", "OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--until", "2h"}, []string{"OLD-1", "OLD-1", "DECL-1"}},
		{time.UTC, []string{"--since", "2026-11-21"}, []string{"OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "2026-11-21 10:00"}, []string{"DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "2026-11-21T05:00:00+01:00"}, []string{"OLD-1", "DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "2026-11-21T05:00:01+01:00"}, []string{"DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--since", "1d", "--until", "now", "--outcome", "declined"}, []string{"DECL-1"}},
		{time.UTC, []string{"--outcome", "unknown,declined"}, []string{"DECL-1", "CRASH-1"}},
		{time.UTC, []string{"--outcome", "succeeded", "--outcome", "declined"}, []string{"OLD-1", "OLD-1", "DECL-1"}},
		{time.UTC, []string{"--kind", "refund"}, []string{"OLD-1"}},
		{time.UTC, []string{"--kind", "refund", "--outcome", "declined"}, nil},
		// A day is the user's day: at UTC+14, yesterday runs from
		// 2026-11-21 10:00 to 2026-11-22 10:00 UTC.
		{plus14, []string{"--since", "yesterday", "--until", "yesterday"}, []string{"DECL-1", "CRASH-1"}},
		{plus14, []string{"--since", "2026-11-22"}, []string{"DECL-1", "CRASH-1"}},
	} {
		t.Run(strings.Join(tt.args, " ")+" "+tt.zone.String(), func(t *testing.T) {
			out, _, err := runArgs(t, tt.zone, render.JSON, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tt.want)
			slices.Reverse(want) // newest first
			if got := invoicesOf(t, out); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJournalFilterErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--since", "1x"}, `invalid --since "1x": write a duration ago`},
		{[]string{"--since", "-1h"}, `invalid --since "-1h": a duration ago must not be negative`},
		{[]string{"--until", "2026-13-01"}, `invalid --until "2026-13-01"`},
		{[]string{"--since", "today", "--until", "yesterday"}, "--since today is not before --until yesterday"},
		{[]string{"--outcome", "failed"}, `invalid --outcome "failed": use succeeded, queued, declined, duplicate, rejected, unknown, not_sent, not_found`},
		{[]string{"--kind", "pay"}, `invalid --kind "pay": use walletpay, refund,`},
	} {
		_, _, err := runArgs(t, time.UTC, render.Table, tt.args...)
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v (kind %v), want %q", tt.args, err, k, tt.want)
		}
	}
}

// The table shows why an attempt did not succeed; a success has no
// reason. With nothing kept, the message names the filters.
// TestJournalReasonAndEmptyNote: the REASON column shows the gateway's
// words and the decline reason the outcome line kept (payment_reason_code
// 51, Insufficient funds), and -o json has them in fields of their own.
func TestJournalReasonAndEmptyNote(t *testing.T) {
	js, _, err := runArgs(t, time.UTC, render.JSON, "--outcome", "declined")
	if err != nil || !strings.Contains(js, `"payment_reason_code": "51"`) || !strings.Contains(js, `"payment_reason_code_detail": "Insufficient funds"`) ||
		!strings.Contains(js, `"original_bank_error_code": null`) {
		t.Errorf("json (%v):\n%s", err, js)
	}
	out, _, err := runArgs(t, time.UTC, render.Table, "--outcome", "declined,succeeded")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !strings.HasSuffix(lines[0], "ORDER  REASON") || strings.Contains(lines[2]+lines[3], "Payment failed") ||
		!strings.HasSuffix(lines[1], `  41           Payment failed; payment_reason_code 51 (Insufficient funds)`) {
		t.Errorf("table:\n%s", out)
	}
	_, errOut, err := runArgs(t, time.UTC, render.Table, "--kind", "complete", "--outcome", "unknown", "--since", "2026-11-21", "--until", "2026-11-21")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(errOut, " of kind complete, with outcome unknown, since 2026-11-21 00:00:00 +00:00, before 2026-11-22 00:00:00 +00:00.\n") &&
		time.Local == time.UTC {
		t.Errorf("stderr %q", errOut)
	}
}

// JSON shows a moment as the table does: RFC 3339 to the second, in the
// user's zone, never nanoseconds in UTC.
func TestJournalJSONTimes(t *testing.T) {
	out, _, err := runArgs(t, time.UTC, render.JSON, "--invoice", "DECL-1")
	if err != nil {
		t.Fatal(err)
	}
	var records []struct {
		Time       string `json:"time"`
		FinishedAt string `json:"finished_at"`
	}
	if err := json.Unmarshal([]byte(out), &records); err != nil || len(records) != 1 {
		t.Fatalf("%v:\n%s", err, out)
	}
	want := t0.Add(-20 * time.Hour).In(time.Local).Format(time.RFC3339)
	if records[0].Time != want || records[0].FinishedAt != want {
		t.Errorf("time %q, want %q:\n%s", records[0].Time, want, out)
	}
}
