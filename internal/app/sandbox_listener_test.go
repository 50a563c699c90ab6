//go:build unix

package app_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// background starts paycli ARGS, its stdout written to the file stdout
// (none when ""), and returns the first URL it prints on stderr (where
// listen and serve say where they are); it is stopped with Ctrl-C when the
// test ends.
func (d *desk) background(stdout string, args ...string) string {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if stdout != "" {
		f, err := os.Create(stdout)
		if err != nil {
			d.t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout = f
	}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	url := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+(/ccpayment)?`)
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if u := url.FindString(lines.Text()); u != "" {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return u
		}
	}
	d.t.Fatalf("paycli %s said no address:\n%s", strings.Join(args, " "), strings.Join(said, "\n"))
	return ""
}

// run runs paycli and returns its stdout, stderr and exit code.
func (d *desk) run(args ...string) (string, string, int) {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		d.t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestListenerServeAndPayWorkTogether: `webhook listen --sandbox` needs
// only the sandbox's app_secret and holds no sandbox state, so a `sandbox
// serve` started after it runs, `sandbox pay` pays at it, and the sale's
// webhook reaches the listener with a valid hash. `config list --sandbox`
// shows what --sandbox commands use; `sandbox pay --state DIR` pays at the
// serve of DIR.
func TestListenerServeAndPayWorkTogether(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs three paycli processes")
	}
	d := newDesk(t)
	journal := filepath.Join(t.TempDir(), "webhooks.jsonl")
	// The listener writes one JSON line per webhook to a file we watch.
	listener := d.background(journal, "webhook", "listen", "--sandbox", "--addr", "127.0.0.1:0", "-o", "json")
	base := d.background("", "sandbox", "serve", "--addr", "127.0.0.1:0", "--webhook", "sales="+listener+"/hooks")
	out, errOut, code := d.run("sandbox", "pay", "--amount", "25.00", "--currency", "TRY", "--invoice", "WH-1", "--webhook-key", "sales")
	if code != 0 || !strings.Contains(out, "WH-1") {
		t.Fatalf("sandbox pay beside listen and serve: exit %d\n%s%s", code, out, errOut)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(journal)
		if strings.Contains(string(data), `"invoice_id":"WH-1"`) {
			if !strings.Contains(string(data), `"hash":"valid"`) {
				t.Errorf("the webhook did not check out: %s", data)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no webhook reached the listener: %q", data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, _, _ = d.run("config", "list", "--sandbox", "-o", "csv")
	if !strings.Contains(out, "base_url,"+base+",sandbox\n") || !strings.Contains(out, "app_id,5f8e••••1a3c,sandbox\n") {
		t.Errorf("config list --sandbox:\n%s", out)
	}

	// A second sandbox over its own state folder: pay --state pays there.
	state := t.TempDir()
	other := d.background("", "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", state)
	out, errOut, code = d.run("sandbox", "pay", "--amount", "5.00", "--currency", "TRY", "--invoice", "STATE-1", "--state", state, "-o", "json")
	if code != 0 {
		t.Fatalf("sandbox pay --state: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := d.run("status", "--sandbox", "STATE-1"); code != 4 {
		t.Errorf("the sale was made at the default sandbox too (status exit %d)", code)
	}
	if other == base {
		t.Errorf("both sandboxes at %s", base)
	}
}
