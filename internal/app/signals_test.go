//go:build unix

package app

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestSIGHUPIsAnInterrupt: a closed terminal (SIGHUP) cancels the command
// like Ctrl-C, so that a payment in flight records its outcome instead of
// the process dying with it.
func TestSIGHUPIsAnInterrupt(t *testing.T) {
	if filepath.Separator == '\\' {
		t.Skip("no SIGHUP")
	}
	ctx, stop := notifySignals()
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the command's context")
	}
}

// paycliBinary is the test binary standing in for paycli (TestMain runs
// app.Main when it is called by that name).
func paycliBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("paycli")
	if err != nil {
		t.Skipf("no paycli command on PATH: %v", err)
	}
	return path
}

// brokenStdoutRun runs the real paycli with its stdout a pipe whose reader
// reads keep lines and then goes away, in a fresh home in sandbox mode, and
// returns the exit code, stderr and the journal's path.
func brokenStdoutRun(t *testing.T, keep int, stdin string, args ...string) (int, string, string) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(paycliBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_STATE_HOME="+filepath.Join(home, "state"), "PAYCLI_SANDBOX=1")
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	for range keep {
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatalf("reading stdout: %v", err)
		}
	}
	_ = out.Close() // like `| head -1` exiting
	err = cmd.Wait()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("paycli was killed by %v; stderr:\n%s", ws.Signal(), stderr.String())
		}
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), filepath.Join(home, "state", "paycli", journal.FileName)
}

func longLivedWalletToken(t *testing.T, jti string) string {
	t.Helper()
	tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("150.00"), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, time.Now(), jti)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPaymentSurvivesABrokenStdout: `paycli walletpay … -o json | true`
// after a successful payment exits 0 with the payment journaled as
// succeeded, and says on stderr that the result could not be printed.
func TestPaymentSurvivesABrokenStdout(t *testing.T) {
	if filepath.Separator == '\\' {
		t.Skip("no SIGPIPE")
	}
	code, stderr, path := brokenStdoutRun(t, 0, "", "walletpay", "--invoice", "PIPE-1", "--token", longLivedWalletToken(t, "pipe-1"),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes", "-o", "json")
	if code != ExitOK {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	attempts, _, err := journal.Read(path)
	if err != nil || len(attempts) != 1 || attempts[0].Class() != journal.Succeeded {
		t.Fatalf("journal %+v, %v; want one succeeded attempt", attempts, err)
	}
	// The reader was gone before the result was written: stderr says where
	// the outcome is.
	if !strings.Contains(stderr, "could not be written to stdout") || !strings.Contains(stderr, "it is in the journal: succeeded, order VP") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestBatchSurvivesHead: `paycli walletpay --batch … | head -1` journals
// every payment it made as succeeded, prints the summary on stderr and
// exits with the batch's own code.
func TestBatchSurvivesHead(t *testing.T) {
	if filepath.Separator == '\\' {
		t.Skip("no SIGPIPE")
	}
	var lines []string
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"invoice":"HEAD-%d","token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`,
			i, longLivedWalletToken(t, fmt.Sprintf("head-%d", i))))
	}
	code, stderr, path := brokenStdoutRun(t, 1, strings.Join(lines, "\n"), "walletpay", "--batch", "-", "--yes", "--parallel", "1")
	if code != ExitOK {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	attempts, _, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		if a.Class() != journal.Succeeded {
			t.Errorf("invoice %s journaled %s, want succeeded", a.Intent.Invoice, a.Class())
		}
	}
	if len(attempts) != 6 || !strings.Contains(stderr, "Batch done: 6 succeeded.\n") {
		t.Errorf("%d attempts; stderr:\n%s", len(attempts), stderr)
	}
}
