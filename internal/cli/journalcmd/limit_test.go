package journalcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// manyAttempts writes n succeeded walletpay attempts, a minute apart, the
// last at t0, with ids 00000000000000NN and invoices INV-NN.
func manyAttempts(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	code := 100
	for i := range n {
		in := journal.Entry{Type: journal.TypeIntent, Attempt: fmt.Sprintf("%016d", i), Time: t0.Add(time.Duration(i-n+1) * time.Minute),
			Profile: "live", BaseURL: "https://gw/ccpayment", Invoice: fmt.Sprintf("INV-%02d", i), Amount: "1.00", Currency: "TRY",
			Card: "435508****4358"}
		out := in
		out.Type, out.Outcome, out.StatusCode, out.Message = journal.TypeOutcome, journal.Succeeded, &code, "Success"
		for _, e := range []journal.Entry{in, out} {
			if err := j.Append(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

// runCmd runs a journal command built by build on the journal at path,
// at t0, in format.
func runCmd(t *testing.T, path string, format render.Format, build func(*cmdutil.Factory, func() (render.Format, error)) *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Now: func() time.Time { return t0 }, JournalPath: func() (string, error) { return path, nil },
		Journal: fileJournal(path)}
	cmd := build(f, func() (render.Format, error) { return format, nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func listCmd(f *cmdutil.Factory, format func() (render.Format, error)) *cobra.Command {
	return NewCmdJournal(f, func(ctx context.Context, opts *Options) error {
		opts.Format = format
		return journalRun(ctx, opts)
	})
}

func showCmd(f *cmdutil.Factory, format func() (render.Format, error)) *cobra.Command {
	return NewCmdShow(f, func(ctx context.Context, opts *Options) error {
		opts.Format = format
		return showRun(ctx, opts)
	})
}

// TestJournalLimit: the table shows the newest DefaultLimit attempts and
// says on stderr that it left older ones out; JSON lists every one unless
// --limit is given; --limit 0 shows all; a negative one is bad input.
func TestJournalLimit(t *testing.T) {
	path := manyAttempts(t, 25)
	out, errOut, err := runCmd(t, path, render.Table, listCmd)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimRight(out, "\n"), "\n")[1:]
	if len(rows) != DefaultLimit || !strings.Contains(rows[0], "INV-24") || !strings.Contains(rows[DefaultLimit-1], "INV-05") {
		t.Errorf("table without --limit: %d rows, want the newest %d:\n%s", len(rows), DefaultLimit, out)
	}
	if !strings.Contains(errOut, "Showing the newest 20 of 25 attempts; --limit N shows more, --limit 0 all.") {
		t.Errorf("stderr does not say the listing was cut: %q", errOut)
	}
	if strings.Contains(out, "435508****4358") || !strings.Contains(out, "435508******4358") {
		t.Errorf("the card is not shown one way:\n%s", out)
	}
	out, errOut, _ = runCmd(t, path, render.Table, listCmd, "--limit", "0")
	if n := strings.Count(out, "\n"); n != 26 || strings.Contains(errOut, "Showing") {
		t.Errorf("--limit 0: %d lines, stderr %q", n, errOut)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{{nil, 25}, {[]string{"--limit", "3"}, 3}} {
		out, errOut, err := runCmd(t, path, render.JSON, listCmd, tt.args...)
		var records []Record
		if err := json.Unmarshal([]byte(out), &records); err != nil {
			t.Fatal(err)
		}
		if err != nil || len(records) != tt.want || records[0].Invoice != "INV-24" || records[0].Card != "435508******4358" {
			t.Errorf("-o json %v: %d records, want %d, newest first (%v)", tt.args, len(records), tt.want, err)
		}
		if cut := tt.want < 25; cut != strings.Contains(errOut, "Showing the newest") {
			t.Errorf("-o json %v: stderr %q", tt.args, errOut)
		}
	}
	_, _, err = runCmd(t, path, render.Table, listCmd, "--limit", "-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "invalid --limit -1") {
		t.Errorf("--limit -1: %v", err)
	}
}

// TestJournalShow: an invoice's attempts, or one attempt by its id or 6
// or more of its first characters, whole; a prefix several attempts
// share, or one naming nothing, is bad input.
func TestJournalShow(t *testing.T) {
	path := manyAttempts(t, 12)
	out, _, err := runCmd(t, path, render.Table, showCmd, "INV-03")
	if err != nil || !strings.HasPrefix(out, "ATTEMPT      0000000000000003\n") || !strings.Contains(out, "Card         435508******4358\n") ||
		!strings.Contains(out, "Message      Success\n") || !strings.Contains(out, "Time         2026-11-22 ") {
		t.Errorf("show INV-03 (%v):\n%s", err, out)
	}
	out, _, err = runCmd(t, path, render.JSON, showCmd, "0000000000000011")
	var records []Record
	if err != nil || json.Unmarshal([]byte(out), &records) != nil || len(records) != 1 || records[0].Invoice != "INV-11" {
		t.Errorf("show by a whole id (%v):\n%s", err, out)
	}
	for _, tt := range []struct{ arg, want string }{
		{"000000000000001", "2 attempts begin with 000000000000001"},
		{"INV-99", "no invoice or attempt INV-99 in "},
		{"00000", "no invoice or attempt 00000 in "}, // too short to be taken for an attempt
	} {
		_, _, err := runCmd(t, path, render.Table, showCmd, tt.arg)
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("show %s: %v, want a usage error %q", tt.arg, err, tt.want)
		}
	}
}
