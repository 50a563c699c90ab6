//go:build unix

package app_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// terminalEscape matches the control sequences bash's line editor writes
// (bracketed paste on and off, cursor moves).
var terminalEscape = regexp.MustCompile(`\x1b\[[?0-9;]*[a-zA-Z@]`)

// TestBashCompletionWithoutBashCompletionPackage types at an interactive
// bash on a terminal (bash --norc: no bash-completion package loaded, as
// on a minimal system or in a container) after sourcing `paycli
// completion bash`, and presses Tab: commands, flag values (also after
// "=") and file names complete, and no Tab prints an error
// ("_get_comp_words_by_ref: command not found").
func TestBashCompletionWithoutBashCompletionPackage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs bash")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash: %v", err)
	}
	d := newDesk(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "desk.yaml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "desk.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i")
	cmd.Dir = work
	cmd.Env = append(d.env, "PS1=$ ", "PATH="+filepath.Dir(d.bin)+":"+os.Getenv("PATH"), "INPUTRC=/dev/null")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: terminalColumns, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	// Each completed line is echoed (Ctrl-A, "echo ", Enter) rather than
	// run, so what Tab wrote on it shows as a line of output.
	const echoLine = "\x01echo \n"
	typed := strings.Join([]string{
		"source <(paycli completion bash)\n",
		"declare -F _init_completion _get_comp_words_by_ref || echo no-bash-completion-package\n",
		"paycli commiss\t" + echoLine,
		"paycli commissions --curren\t" + "TR\t" + echoLine,
		"paycli commissions --currency=EU\t" + echoLine,
		"paycli version --config desk.y\t" + echoLine,
		"exit\n",
	}, "")
	if _, err := io.WriteString(tty, typed); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, tty); err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bash: %v\n%s", err, out.String())
	}
	shown := strings.ReplaceAll(terminalEscape.ReplaceAllString(out.String(), ""), "\r", "")
	if !strings.Contains(shown, "\nno-bash-completion-package\n") {
		t.Fatalf("the bash-completion package is loaded; the test needs a bash without it:\n%s", shown)
	}
	for _, want := range []string{
		"\npaycli commissions\n",
		"\npaycli commissions --currency TRY\n",
		"\npaycli commissions --currency=EUR\n",
		"\npaycli version --config desk.yaml\n",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("Tab did not complete the line to %q:\n%s", strings.TrimSpace(want), shown)
		}
	}
	for _, bad := range []string{"command not found", "not currently executing", "syntax error"} {
		if strings.Contains(shown, bad) {
			t.Errorf("a Tab printed %q:\n%s", bad, shown)
		}
	}
}
