//go:build unix

package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// getenv is the value of key in the desk's environment.
func (d *desk) getenv(key string) string {
	for _, kv := range d.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// bodyLines are the lines of a table's output after its header.
func bodyLines(out string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[1:]
}

var (
	clockTime = regexp.MustCompile(`^\d\d:\d\d:\d\d  `)
	dateOnly  = regexp.MustCompile(`^\d{4}-\d\d-\d\d  `)
)

// TestJournalListingIsOneLinePerAttempt: on an 80-column terminal `paycli
// journal` is one line per attempt, newest first, today's by clock time
// and older ones by date, the reason shortened; --limit cuts it and says
// so on stderr; `journal show` gives what was shortened whole; the card is
// masked one way on every line; `sandbox logs -n 5` is five lines.
func TestJournalListingIsOneLinePerAttempt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox and many commands")
	}
	d := newDesk(t)
	d.serveSandbox()
	token := func(amount string) string {
		return strings.TrimSpace(d.piped("sandbox", "wallet-token", "--amount", amount, "--currency", "TRY"))
	}
	payer := []string{"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes", "--sandbox"}
	for _, step := range []struct {
		code int
		args []string
	}{
		{0, append([]string{"walletpay", "--invoice", "INV-1001", "--token", token("6000.00")}, payer...)},
		{5, append([]string{"walletpay", "--invoice", "INV-1002", "--token", token("10.41")}, payer...)},
		{0, []string{"refund", "--sandbox", "--invoice", "INV-1001", "--amount", "4500", "--yes"}},
		{0, []string{"sandbox", "pay", "--amount", "200", "--currency", "TRY", "--preauth", "--invoice", "INV-PA-1"}},
		{0, []string{"preauth", "capture", "--sandbox", "--invoice", "INV-PA-1", "--yes"}},
		{7, append([]string{"walletpay", "--invoice", "INV-1003", "--token", token("10.69")}, payer...)},
	} {
		d.onTerminal(step.code, step.args...)
	}
	// An attempt of an older day, as the journal wrote the decline's, and
	// a capture's line as paycli wrote it before one masking (the
	// gateway's four asterisks).
	path := filepath.Join(d.getenv("XDG_STATE_HOME"), "paycli", "journal.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, `"invoice":"INV-1002"`) {
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			e["attempt"], e["invoice"], e["time"] = "0123456789abcdef", "INV-OLD-1", "2026-01-05T09:00:00Z"
			if e["type"] == "intent" {
				e["kind"], e["card"] = "preauth-capture", "435508****4358"
			} else {
				e["kind"] = "preauth-capture"
			}
			b, _ := json.Marshal(e)
			old = append(old, string(b)+"\n")
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(old, "")); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()

	out := d.onTerminal(0, "journal")
	rows := bodyLines(out)
	if len(rows) != 6 {
		t.Fatalf("journal on 80 columns: %d lines for 6 attempts:\n%s", len(rows), out)
	}
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("journal: a line of %d columns:\n%s", w, line)
	}
	for i, inv := range []string{"INV-1003", "INV-PA-1", "INV-1001", "INV-1002", "INV-1001", "INV-OLD-1"} {
		row := ansiEscape.ReplaceAllString(rows[i], "")
		if !strings.Contains(row, " "+inv+" ") {
			t.Errorf("row %d is not %s's (newest first):\n%s", i+1, inv, out)
		}
		if want := clockTime; inv == "INV-OLD-1" && !dateOnly.MatchString(row) || inv != "INV-OLD-1" && !want.MatchString(row) {
			t.Errorf("row %d's time is not today's clock time or an older day's date: %q", i+1, row)
		}
	}
	if !strings.Contains(ansiEscape.ReplaceAllString(rows[3], ""), "Payment failed") || !strings.Contains(rows[3], "…") {
		t.Errorf("the decline's reason is not shortened on its line: %q", rows[3])
	}

	// Piped, the table is whole: one masking of the card on every line.
	piped := d.piped("journal")
	if strings.Contains(piped, "435508****4358") || strings.Count(piped, "435508******4358") != 6 {
		t.Errorf("journal masks the card two ways:\n%s", piped)
	}

	out = d.onTerminal(0, "journal", "--limit", "2")
	if rows := bodyLines(out); len(rows) != 2 || !strings.Contains(rows[0], "INV-1003") {
		t.Errorf("journal --limit 2:\n%s", out)
	}
	if errOut := d.stderr[len(d.stderr)-1]; !strings.Contains(errOut, "Showing the newest 2 of 6 attempts; --limit N shows more") {
		t.Errorf("journal --limit 2 does not say it cut the listing:\n%s", errOut)
	}

	out = d.onTerminal(0, "journal", "show", "INV-1002")
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("journal show: a line of %d columns:\n%s", w, line)
	}
	plain := strings.Join(strings.Fields(ansiEscape.ReplaceAllString(out, "")), " ")
	for _, want := range []string{"Payment failed", "Reason code 51 Insufficient funds", "Status code 41", "Card 435508******4358"} {
		if !strings.Contains(plain, want) {
			t.Errorf("journal show INV-1002 lacks %q:\n%s", want, out)
		}
	}
	out = d.onTerminal(0, "journal", "show", "0123456")
	if plain := ansiEscape.ReplaceAllString(out, ""); !strings.Contains(plain, "INV-OLD-1") || !strings.Contains(plain, "435508******4358") {
		t.Errorf("journal show by an attempt id's prefix:\n%s", out)
	}
	d.onTerminal(2, "journal", "show", "INV-NONE")

	out = d.onTerminal(0, "sandbox", "logs", "-n", "5")
	if rows := bodyLines(out); len(rows) != 5 {
		t.Errorf("sandbox logs -n 5 on 80 columns: %d lines for 5 requests:\n%s", len(rows), out)
	}
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("sandbox logs: a line of %d columns:\n%s", w, line)
	}
	for _, row := range bodyLines(out) {
		if !clockTime.MatchString(ansiEscape.ReplaceAllString(row, "")) {
			t.Errorf("sandbox logs: today's request not by its clock time: %q", row)
		}
	}
}
