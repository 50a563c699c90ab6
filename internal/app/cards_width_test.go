//go:build unix

package app_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestCardsListFitsAnEightyColumnTerminal: `cards list` on a terminal of
// 80 columns fits it (too narrow for the token, number, expiry, bank and
// program side by side, each card is a block of lines), and keeps every
// card's token, masked number, bank and program; piped, it is the whole
// table.
func TestCardsListFitsAnEightyColumnTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox")
	}
	d := newDesk(t)
	for _, card := range []string{"4508034508034509", "5406675406675403"} {
		cmd := exec.Command(d.bin, "--sandbox", "cards", "save", "--customer-number", "5070", "--holder", "Ada Lovelace", "--expiry", "12/2097")
		cmd.Env = d.env
		cmd.Stdin = strings.NewReader(card + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cards save: %v\n%s", err, out)
		}
	}
	piped := d.piped("--sandbox", "cards", "list", "--customer-number", "5070")
	if w, _ := widest(piped); w <= terminalColumns {
		t.Fatalf("the piped table is %d columns: the test needs one wider than the terminal\n%s", w, piped)
	}
	out := d.onTerminal(0, "--sandbox", "cards", "list", "--customer-number", "5070")
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("a line is %d columns on an %d-column terminal:\n%s", w, terminalColumns, line)
	}
	for _, want := range []string{"450803******4509", "540667******5403", "12/2097", "TOKEN", "MAXIMUM", "WORLD", "T. IS BANKASI A.S."} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal's table lacks %q:\n%s", want, out)
		}
	}
	for line := range strings.Lines(piped) {
		if token, _, _ := strings.Cut(line, " "); token != "TOKEN" && !strings.Contains(out, token) {
			t.Errorf("the terminal's table lacks the token %s:\n%s", token, out)
		}
	}
	if strings.Contains(out+piped, "4508034508034509") {
		t.Errorf("a full number is shown:\n%s", out)
	}
}

// TestCardsSavePromptsWithEchoOff: on a terminal, `cards save` asks for
// the card number with echo off: what is typed never comes back on the
// terminal, and the card is saved.
func TestCardsSavePromptsWithEchoOff(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	cmd := exec.Command(d.bin, "--sandbox", "cards", "save", "--customer-number", "5071", "--holder", "Ada Lovelace", "--expiry", "12/2097")
	cmd.Env = d.env
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: terminalColumns, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	prompted, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			out.Write(buf[:n])
			if strings.Contains(out.String(), "Card number (not shown): ") {
				select {
				case <-prompted:
				default:
					close(prompted)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-prompted:
	case <-done:
		_ = cmd.Wait()
		t.Fatalf("cards save ended without asking for the number:\n%s", out.String())
	}
	waitEchoOff(t, tty)
	if _, err := tty.Write([]byte("4508034508034509\r")); err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	<-done // Linux ends the reads with EIO once the command has gone
	if werr != nil {
		t.Fatalf("cards save: %v\n%s", werr, out.String())
	}
	if got := d.piped("--sandbox", "cards", "list", "--customer-number", "5071"); !strings.Contains(got, "450803******4509") {
		t.Errorf("the card was not saved:\n%s", got)
	}
	if strings.Contains(out.String(), "4508034508034509") {
		t.Errorf("the number was echoed on the terminal:\n%s", out.String())
	}
}
