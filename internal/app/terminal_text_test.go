//go:build unix

package app_test

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/paycli/paycli/internal/app"
	"github.com/spf13/cobra"
)

// onWholeTerminal runs paycli as onTerminal does, but with stderr on the
// terminal too, as a person's shell has it, and typed (if not empty)
// typed at the terminal: the prose paycli writes there (errors, prompts)
// is what is checked. It returns what the terminal showed.
func (d *desk) onWholeTerminal(columns uint16, typed string, code int, args ...string) string {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: columns, Rows: 40})
	if err != nil {
		d.t.Fatal(err)
	}
	defer tty.Close()
	if typed != "" {
		if _, err := io.WriteString(tty, typed); err != nil {
			d.t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, tty); err != nil && !errors.Is(err, syscall.EIO) {
		d.t.Fatal(err)
	}
	err = cmd.Wait()
	if exit := (*exec.ExitError)(nil); err == nil && code != 0 || err != nil && !(errors.As(err, &exit) && exit.ExitCode() == code) {
		d.t.Fatalf("paycli %s on a terminal: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	shown := strings.ReplaceAll(out.String(), "\r\n", "\n")
	// The terminal echoes what was typed; it is not paycli's.
	return strings.Replace(shown, strings.TrimSuffix(typed, "\n"), "", 1)
}

// helpPaths is every command and help topic a user can ask the help of,
// by its words after "paycli" (the root's is empty).
func helpPaths() [][]string {
	var paths [][]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		paths = append(paths, strings.Fields(c.CommandPath())[1:])
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(app.NewCommandTree())
	return paths
}

// usageWithin is how many lines of a command's help come before its
// Usage: the one-line description and a blank line.
const usageWithin = 3

// TestEveryHelpReadsOnAnEightyColumnTerminal runs every command's --help
// through the real binary on an 80-column terminal: no line is wider (a
// terminal would break it wherever the columns end, inside a word), and
// Usage comes first, before the long guide, on the first screen.
func TestEveryHelpReadsOnAnEightyColumnTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs paycli once per command")
	}
	d := newDesk(t)
	for _, path := range helpPaths() {
		name := strings.Join(append([]string{"paycli"}, path...), " ")
		out := d.onTerminal(0, append(path, "--help")...)
		if w, line := widest(out); w > terminalColumns {
			t.Errorf("%s --help: a line is %d columns on an %d-column terminal:\n%s", name, w, terminalColumns, line)
		}
		lines := strings.Split(out, "\n")
		at := -1
		for i, line := range lines {
			if line == "Usage:" {
				at = i + 1
				break
			}
		}
		topic := at < 0 && !strings.Contains(out, "Flags:")
		if !topic && (at < 0 || at > usageWithin) {
			t.Errorf("%s --help: Usage is at line %d of %d, not within the first %d:\n%s", name, at, len(lines), usageWithin, out)
		}
	}
}

// TestHelpWrapsAtWordsOnANarrowTerminal: on a terminal narrower than the
// 80 columns the help is written to, its prose and flag help are wrapped
// again, at blanks, to the terminal's width; only a word wider than its
// room is wider.
func TestHelpWrapsAtWordsOnANarrowTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs paycli")
	}
	d := newDesk(t)
	const columns = 60
	out := d.onWholeTerminal(columns, "", 0, "refund", "--help")
	for line := range strings.Lines(out) {
		// A word wider than the room it has (a URL in the flags' column)
		// stands alone: it is never cut.
		if w, _ := widest(line); w > columns && len(strings.Fields(line)) > 1 {
			t.Errorf("refund --help: a line is %d columns on a %d-column terminal:\n%s\n%s", w, columns, line, out)
		}
	}
	// The guide's words are all there, in order, one blank apart.
	piped := d.piped("refund", "--help")
	words := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, " \\\n", " ")), " ") }
	if words(out) != words(piped) {
		t.Errorf("refund --help on a %d-column terminal is not the piped help rewrapped:\n%s", columns, out)
	}
}

// TestRootCommandListFitsEightyColumns: each command's description in
// `paycli --help` is wrapped under itself (the sandbox's broke "wallet").
func TestRootCommandListFitsEightyColumns(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	out := d.onTerminal(0, "--help")
	if !strings.Contains(out, "\n  sandbox      Run a local emulator of the gateway, and make test sales and\n               wallet tokens\n") {
		t.Errorf("paycli --help does not wrap the sandbox's description under itself:\n%s", out)
	}
}

// TestErrorAndPromptWrapAtWordsOnTheTerminal: an error longer than the
// terminal, and the confirmation of a refund, are broken at blanks to its
// width, never inside a word or the card number; answering no sends
// nothing.
func TestErrorAndPromptWrapAtWordsOnTheTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox")
	}
	d := newDesk(t)
	d.piped("sandbox", "pay", "--amount", "6000", "--currency", "TRY", "--invoice", "INV-WRAP-1")

	out := d.onWholeTerminal(terminalColumns, "", 2, "refund", "--sandbox", "--invoice", "INV-WRAP-1", "--amount", "99999", "--yes")
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("the error has a line of %d columns on an %d-column terminal:\n%s", w, terminalColumns, line)
	}
	if !strings.Contains(out, "error: invalid --amount: 99,999.00 TRY is more than what remains refundable,") ||
		!strings.Contains(out, "6,000.00 TRY") {
		t.Errorf("the error is not shown whole:\n%s", out)
	}

	out = d.onWholeTerminal(terminalColumns, "n\n", 10, "refund", "--sandbox", "--invoice", "INV-WRAP-1", "--amount", "50")
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("the refund's confirmation has a line of %d columns on an %d-column terminal:\n%s\n%s", w, terminalColumns, line, out)
	}
	prompt := out[strings.Index(out, "Refund 50.00 TRY"):]
	if !strings.Contains(prompt, "435508******4358?") || !strings.Contains(prompt, "[y/N]") {
		t.Errorf("the confirmation does not show the card whole:\n%s", out)
	}
	if !strings.Contains(out, "nothing was sent") {
		t.Errorf("answering no does not say nothing was sent:\n%s", out)
	}
}
