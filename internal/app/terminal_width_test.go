//go:build unix

package app_test

import (
	"bufio"
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
	"unicode/utf8"

	"github.com/creack/pty"
)

// terminalColumns is the width of the terminal the tables must fit.
const terminalColumns = 80

// desk is a support engineer's machine: a fresh home, a running sandbox
// with a web hook key, and the real paycli (the test binary, as TestMain
// sets it up).
type desk struct {
	t   *testing.T
	bin string
	env []string
	// stderr holds what each onTerminal run wrote on stderr, in order.
	stderr []string
}

func newDesk(t *testing.T) *desk {
	t.Helper()
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "TZ=Europe/Istanbul", raceEnv()}
	bin, err := exec.LookPath("paycli")
	if err != nil {
		t.Skipf("no paycli command on PATH: %v", err)
	}
	return &desk{t: t, bin: bin, env: env}
}

// piped runs paycli with stdout a pipe and returns stdout, failing the
// test on a non-zero exit.
func (d *desk) piped(args ...string) string {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		d.t.Fatalf("paycli %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// serveSandbox starts `paycli sandbox serve` on a free port of the desk's
// home (the --sandbox commands find it), with args, until the test ends.
func (d *desk) serveSandbox(args ...string) {
	d.t.Helper()
	serve := exec.Command(d.bin, append([]string{"sandbox", "serve", "--addr", "127.0.0.1:0"}, args...)...)
	serve.Env = d.env
	serveOut, err := serve.StderrPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() {
		_ = serve.Process.Signal(os.Interrupt)
		_ = serve.Wait()
	})
	lines := bufio.NewScanner(serveOut)
	for lines.Scan() && !strings.Contains(lines.Text(), "http://127.0.0.1:") {
	}
	go func() { _, _ = io.Copy(io.Discard, serveOut) }()
}

// onTerminal runs paycli with stdin and stdout on a pseudo-terminal of
// terminalColumns columns (stderr apart, as it is text, not a table) and
// returns what the terminal received; paycli must exit with code. The
// desk's stderr keeps what paycli wrote there.
func (d *desk) onTerminal(code int, args ...string) string {
	d.t.Helper()
	out, _ := d.typingOnTerminal(code, "", args...)
	return out
}

// typingOnTerminal is onTerminal with typed (if not empty) typed at the
// terminal first: it waits there until paycli reads it. It returns what
// the terminal received and what paycli wrote on stderr.
func (d *desk) typingOnTerminal(code int, typed string, args ...string) (string, string) {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: terminalColumns, Rows: 40})
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
	// Linux ends a pseudo-terminal's reads with EIO once the command has
	// gone and its output is read.
	if _, err := io.Copy(&out, tty); err != nil && !errors.Is(err, syscall.EIO) {
		d.t.Fatal(err)
	}
	err = cmd.Wait()
	if exit := (*exec.ExitError)(nil); err == nil && code != 0 || err != nil && !(errors.As(err, &exit) && exit.ExitCode() == code) {
		d.t.Fatalf("paycli %s on a terminal, %q typed: %v, want exit %d\n%s%s", strings.Join(args, " "), typed, err, code, out.String(), stderr.String())
	}
	d.stderr = append(d.stderr, stderr.String())
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), stderr.String()
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// widest is the widest line of terminal output, in columns (the output
// has no wide characters), and that line.
func widest(out string) (int, string) {
	n, which := 0, ""
	for line := range strings.Lines(out) {
		line = ansiEscape.ReplaceAllString(strings.TrimSuffix(line, "\n"), "")
		if w := utf8.RuneCountInString(line); w > n {
			n, which = w, line
		}
	}
	return n, which
}

// TestEveryTableFitsAnEightyColumnTerminal runs every command that prints
// a table, through the real binary, with its stdout on a pseudo-terminal
// of 80 columns: no line is wider (the rule of render/records.go). The same
// commands piped print the whole table, as wide as it is.
func TestEveryTableFitsAnEightyColumnTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox and many commands")
	}
	d := newDesk(t)
	d.serveSandbox("--webhook", "sales=http://127.0.0.1:1/hooks", "--webhook-attempts", "1")

	token := func(amount string) string {
		return strings.TrimSpace(d.piped("sandbox", "wallet-token", "--amount", amount, "--currency", "TRY"))
	}
	payer := []string{"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes", "--sandbox"}
	hashKey := strings.TrimSpace(d.piped("hash", "generate", "--sandbox", "--layout", "payment", "--total", "6000.00",
		"--installment", "1", "--currency-code", "TRY", "--invoice-id", "INV-1001"))
	d.piped("config", "set", "base_url", "https://provisioning.sipay.com.tr/ccpayment")
	d.piped("config", "set", "--profile", "live", "base_url", "https://app.sipay.com.tr/ccpayment")
	// The sales and the failures the desk's commands then show; each
	// money-moving command prints its result as a table of fields.
	for _, args := range [][]string{
		append([]string{"walletpay", "--invoice", "INV-1001", "--token", token("6000.00")}, payer...),
		append([]string{"walletpay", "--invoice", "INV-1002", "--token", token("10.41")}, payer...),
		{"refund", "--sandbox", "--invoice", "INV-1001", "--amount", "4500", "--yes"},
		{"sandbox", "pay", "--amount", "200", "--currency", "TRY", "--preauth", "--invoice", "INV-PA-1"},
		{"preauth", "capture", "--sandbox", "--invoice", "INV-PA-1", "--yes"},
		{"sandbox", "pay", "--amount", "50", "--currency", "TRY", "--3d", "--completed-by", "merchant", "--invoice", "INV-3D-1"},
		{"sandbox", "pay", "--amount", "75", "--currency", "TRY", "--invoice", "INV-WH-1", "--webhook-key", "sales"},
	} {
		code := 0
		if args[0] == "walletpay" && strings.HasSuffix(args[2], "2") {
			code = 5 // 10.41: declined
		}
		if w, line := widest(d.onTerminal(code, args...)); w > terminalColumns {
			t.Errorf("paycli %s: a line is %d columns on an %d-column terminal:\n%s", args[0], w, terminalColumns, line)
		}
	}
	// walletpay, refund and preauth show the card one way in their
	// summaries (render.Card); complete's is checked below.
	cardLine := regexp.MustCompile(`(?m)^  Card: +(.*)$`)
	for i, summary := range d.stderr[:5] {
		if m := cardLine.FindStringSubmatch(summary); i != 3 && (m == nil || m[1] != "435508******4358") {
			t.Errorf("summary %d shows the card as %q:\n%s", i, m, summary)
		}
	}
	d.onTerminal(0, "complete", "--sandbox", "INV-3D-1", "--yes")
	// An unknown outcome (.69 stays pending), for the reconcile table.
	d.onTerminal(7, append([]string{"walletpay", "--invoice", "INV-1003", "--token", token("10.69")}, payer...)...)
	if m := cardLine.FindStringSubmatch(d.stderr[len(d.stderr)-1]); m == nil || m[1] != "435508******4358" {
		t.Errorf("complete shows the card as %q", m)
	}
	for _, args := range [][]string{
		{"installments", "--bin", "552879", "--amount", "6000", "--currency", "TRY", "--sandbox"},
		{"journal", "--all-accounts"},
		{"journal", "--all-accounts", "--since", "1d", "--until", "now", "--outcome", "declined"},
		{"journal", "reconcile", "--sandbox"},
		{"sandbox", "webhooks"},
		{"sandbox", "logs"},
		{"hash", "layouts"},
		{"hash", "validate", "--sandbox", "--layout", "payment", hashKey},
		{"hash", "validate", "--sandbox", hashKey},
		{"status", "--invoice", "INV-1001", "--sandbox"},
		{"status", "--invoice", "INV-PA-1", "--sandbox"},
		{"commissions", "--currency", "TRY", "--sandbox"},
		{"commissions", "--currency", "TRY", "--sandbox", "--amount", "6000"},
		{"commissions", "--currency", "TRY", "--sandbox", "--layout", "long"},
		{"commissions", "--currency", "TRY", "--sandbox", "--layout", "long", "--amount", "6000"},
		{"config", "list"},
		{"config", "list", "--sandbox"},
		{"config", "profiles"},
		{"sandbox", "credentials"},
		{"version"},
	} {
		out := d.onTerminal(0, args...)
		if strings.TrimSpace(out) == "" {
			t.Errorf("paycli %s printed nothing on a terminal", strings.Join(args, " "))
		}
		if w, line := widest(out); w > terminalColumns {
			t.Errorf("paycli %s: a line is %d columns on an %d-column terminal:\n%s\n%s", strings.Join(args, " "), w, terminalColumns, line, out)
		}
	}
	// Piped, a table is whole: the journal's rows are wider than 80.
	if w, _ := widest(d.piped("journal", "--all-accounts")); w <= terminalColumns {
		t.Errorf("piped journal is %d columns: fitted to a terminal it is not on", w)
	}
	if w, _ := widest(d.piped("hash", "layouts")); w <= terminalColumns {
		t.Errorf("piped hash layouts is %d columns: fitted to a terminal it is not on", w)
	}
}
