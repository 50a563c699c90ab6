//go:build unix

package app_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestWarningAndNoteWrapAtWordsOnTheTerminal: a warning and a note longer
// than an 80-column terminal are broken at blanks to its width (the
// terminal would break them inside a word), a 'quoted command' kept
// whole; piped, each is one line, byte for byte, for scripts that grep it.
func TestWarningAndNoteWrapAtWordsOnTheTerminal(t *testing.T) {
	t.Parallel()
	const (
		warning = "warning: app_id given on the command line stays in your shell history; next time use: paycli config set app_id -"
		note    = "Default profile is now \"default\" (the config file had no default); choose another with 'paycli config use PROFILE'."
	)
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }

	out := newDesk(t).onWholeTerminal(terminalColumns, "", 0, "config", "set", "app_id", "1001")
	for line := range strings.Lines(out) {
		// A word wider than the terminal (the test's long config path)
		// stands alone: it is never cut.
		if w, _ := widest(line); w > terminalColumns && len(strings.Fields(line)) > 1 {
			t.Errorf("a line is %d columns on an %d-column terminal:\n%s\n%s", w, terminalColumns, line, out)
		}
	}
	shown := words(out)
	if !strings.Contains(shown, warning) || !strings.Contains(shown, note) {
		t.Errorf("the warning or the note lost or cut a word on the terminal:\n%s", out)
	}
	if !strings.Contains(out, "'paycli config use PROFILE'") {
		t.Errorf("the quoted command is broken on the terminal:\n%s", out)
	}

	d := newDesk(t)
	cmd := exec.Command(d.bin, "config", "set", "app_id", "1001")
	cmd.Env = d.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("paycli config set app_id 1001: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), warning+"\n") || !strings.Contains(stderr.String(), "\n"+note+"\n") {
		t.Errorf("piped stderr does not have the warning and the note each on one line:\n%s", stderr.String())
	}
}
