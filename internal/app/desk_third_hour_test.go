//go:build unix

package app_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// exits runs paycli piped, which must exit with code, and returns its
// stdout and stderr.
func (d *desk) exits(code int, args ...string) (string, string) {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit := (*exec.ExitError)(nil); err == nil && code != 0 || err != nil && !(errors.As(err, &exit) && exit.ExitCode() == code) {
		d.t.Fatalf("paycli %s: %v, want exit %d\n%s%s", strings.Join(args, " "), err, code, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// answering is onTerminal with answer typed at the terminal (the
// confirmation's reply); it returns what paycli wrote on stderr.
func (d *desk) answering(code int, answer string, args ...string) string {
	d.t.Helper()
	_, stderr := d.typingOnTerminal(code, answer, args...)
	return stderr
}

// TestTheDesksThirdHour (issue 34, part 2) runs, as a support engineer
// would at an 80-column terminal, what tripped a first day: a refusal
// that read twice, a cancel that read as an error, filters that named
// nothing yet printed nothing and exited 0, config path without the
// journal, a hint line of 125 columns, and api's last line.
func TestTheDesksThirdHour(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox and many commands")
	}
	d := newDesk(t)
	d.serveSandbox("--no-partial-refunds")
	d.piped("sandbox", "pay", "--amount", "20.00", "--currency", "TRY", "--invoice", "TH-1")
	// Each part fails on its own: the desk reports to the part's test.
	run := func(name string, part func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			parent := d.t
			d.t = t
			defer func() { d.t = parent }()
			part(t)
		})
	}

	run("a refusal reads once", func(t *testing.T) {
		d.onTerminal(4, "refund", "--sandbox", "--invoice", "TH-1", "--amount", "5.00", "--yes")
		stderr := d.stderr[len(d.stderr)-1]
		errLine, hint := "", ""
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "error: ") && i+1 < len(lines) {
				errLine, hint = l, lines[i+1]
			}
		}
		want := `error: the gateway refused the refund: this merchant may not refund part of a sale (status_code 110 "Partial refund is not allowed for this merchant"); nothing was refunded`
		if errLine != want || strings.Count(stderr, "Partial refund is not allowed") != 1 {
			t.Errorf("the refusal reads:\n%s\nwant the line\n%s", stderr, want)
		}
		if wantHint := "Refund all that remains instead: paycli refund --invoice TH-1 --sandbox --full"; hint != wantHint {
			t.Errorf("what to do: %q, want %q", hint, wantHint)
		}
	})

	run("answering no cancels", func(t *testing.T) {
		stderr := d.answering(10, "n\n", "refund", "--sandbox", "--invoice", "TH-1", "--full")
		if !strings.Contains(stderr, "[y/N] Cancelled; nothing was sent.\n") || strings.Contains(stderr, "error:") {
			t.Errorf("a cancel reads:\n%s", stderr)
		}
		// Only the refused refund is journaled; the cancelled one is not.
		out := d.piped("journal", "--sandbox", "--invoice", "TH-1", "-o", "json", "--jq", "length")
		if strings.TrimSpace(out) != "1" {
			t.Errorf("the journal holds %s attempts on TH-1, want the refused one alone", out)
		}
	})

	run("a filter naming nothing is bad input", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			err  string
			hint string
		}{
			{[]string{"commissions", "--sandbox", "--currency", "TRY", "--program", "nosuch"},
				`error: invalid --program: no card program's name in the gateway's TRY table contains "nosuch"`, "Its programs: Advantage, Axess, "},
			{[]string{"commissions", "--sandbox", "--currency", "TRY", "--installments", "13"},
				"error: invalid --installments: the gateway's TRY table lists no installment count 13", "It lists 1-12."},
			{[]string{"installments", "--sandbox", "--currency", "TRY", "--bin", "435508", "--amount", "100", "--installments", "13"},
				"error: invalid --installments: the gateway offers no installment count 13 for this card and amount", "It offers 1-12."},
			{[]string{"sandbox", "logs", "--path", "nosuch"},
				`error: invalid --path "nosuch": no request in the sandbox's request log went to it`, "The log holds requests to /ccpayment/"},
		} {
			stdout, stderr := d.exits(2, c.args...)
			lines := strings.SplitN(stderr, "\n", 3)
			if stdout != "" || len(lines) < 2 || lines[0] != c.err || !strings.HasPrefix(lines[1], c.hint) {
				t.Errorf("paycli %s: stdout %q, stderr:\n%s\nwant %q then %q…", strings.Join(c.args, " "), stdout, stderr, c.err, c.hint)
			}
		}
		// Filters that each exist but match nothing together say so.
		stdout, stderr := d.exits(0, "journal", "--sandbox", "--invoice", "TH-1", "--outcome", "succeeded")
		if stdout != "" || !strings.Contains(stderr, "No payment attempts recorded") {
			t.Errorf("an empty listing: stdout %q, stderr %q", stdout, stderr)
		}
	})

	run("config path names the journal", func(t *testing.T) {
		out := d.onTerminal(0, "config", "path")
		stderr := d.stderr[len(d.stderr)-1]
		home := strings.TrimPrefix(d.env[0], "HOME=")
		if want := "Journal file: " + filepath.Join(home, "state", "paycli", "journal.jsonl") + "\n"; !strings.Contains(stderr, want) {
			t.Errorf("config path on a terminal: stdout %q, stderr %q; want %q", out, stderr, want)
		}
		if piped := d.piped("config", "path"); strings.Count(piped, "\n") != 1 {
			t.Errorf("config path piped is not the path alone: %q", piped)
		}
	})

	run("no line wider than the terminal", func(t *testing.T) {
		d.onTerminal(0, "sandbox", "webhooks")
		stderr := d.stderr[len(d.stderr)-1]
		if !strings.Contains(stderr, "No webhook deliveries.") {
			t.Fatalf("sandbox webhooks with none: %q", stderr)
		}
		for line := range strings.Lines(stderr) {
			if w := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); w > terminalColumns {
				t.Errorf("a line of %d columns: %s", w, line)
			}
		}
	})

	run("api ends its output with a newline on a terminal", func(t *testing.T) {
		for _, args := range [][]string{
			{"api", "--sandbox", "POST", "/api/commissions", "-f", "currency_code=TRY"},
			{"api", "--sandbox", "POST", "/api/commissions", "-f", "currency_code=TRY", "--jq", ".status_code"},
		} {
			if out := d.onTerminal(0, args...); !strings.HasSuffix(out, "\n") {
				t.Errorf("paycli %s on a terminal ends %q", strings.Join(args, " "), out[max(0, len(out)-20):])
			}
		}
	})
}
