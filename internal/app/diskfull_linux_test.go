package app

import (
	"errors"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestWalletPayOnAFullDisk runs the real paycli with a file-size limit
// (RLIMIT_FSIZE), the way a full disk fails its writes: EFBIG, and a
// SIGXFSZ that must not kill it (Go's runtime takes that signal, so the
// write just fails). A walletpay that cannot write its intent sends
// nothing and exits 1; one that writes its intent but not its outcome
// keeps the payment's exit code, says the outcome is not in the journal,
// and leaves an open intent (listed as unknown) whose torn outcome line
// does not swallow the next attempt's line. The chaos soak does the same
// at random (docs/reliability.md).
func TestWalletPayOnAFullDisk(t *testing.T) {
	bin := paycliBinary(t)
	store, err := sandbox.OpenStore(t.TempDir(), 10*time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"PAYCLI_SANDBOX=", "PAYCLI_BASE_URL="+srv.URL+sandbox.Base, "PAYCLI_APP_ID="+sandbox.AppID,
		"PAYCLI_APP_SECRET="+sandbox.AppSecret, "PAYCLI_MERCHANT_KEY="+sandbox.MerchantKey)
	path := filepath.Join(home, "state", "paycli", journal.FileName)
	size := func() int64 {
		info, err := os.Stat(path)
		if err != nil {
			return 0
		}
		return info.Size()
	}

	// pay runs walletpay for invoice, its file size limited to the
	// journal's size plus slack (no limit when slack < 0). The wallet
	// token comes on stdin, after the limit is set, so the process cannot
	// reach its journal before.
	pay := func(invoice string, slack int64, stdout *os.File) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, "walletpay", "--invoice", invoice, "--token", "-",
			"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes", "-o", "json")
		cmd.Env = env
		if stdout != nil {
			cmd.Stdout = stdout
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		limit := size() + slack
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if slack >= 0 {
			if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: uint64(limit), Max: uint64(limit)}, nil); err != nil {
				_ = cmd.Process.Kill()
				t.Fatal(err)
			}
		}
		_, _ = stdin.Write([]byte(longLivedWalletToken(t, "full-"+invoice) + "\n"))
		stdin.Close()
		err = cmd.Wait()
		var exitErr *exec.ExitError
		switch {
		case errors.As(err, &exitErr):
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("paycli was killed by %v; stderr:\n%s", ws.Signal(), stderr.String())
			}
			return exitErr.ExitCode(), stderr.String()
		case err != nil:
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	sale := func(invoice string) (sandbox.Sale, bool) {
		t.Helper()
		s, ok, err := store.Get(invoice)
		if err != nil {
			t.Fatal(err)
		}
		return s, ok
	}

	// A first payment with room, so that the journal and token cache exist.
	if code, stderr := pay("FULL-0", -1, nil); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}

	// No room for the intent: nothing sent.
	code, stderr := pay("FULL-1", 0, nil)
	if code != ExitError || !strings.Contains(stderr, "cannot record the attempt in the payment journal; nothing was sent") ||
		!strings.Contains(stderr, "file too large") {
		t.Errorf("no room for the intent: exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if _, ok := sale("FULL-1"); ok {
		t.Error("no room for the intent, but the payment was sent")
	}

	// Room for the intent (about 350 bytes) but not the outcome: the
	// payment goes through and says its outcome is not in the journal.
	code, stderr = pay("FULL-2", 600, nil)
	if code != ExitOK || !strings.Contains(stderr, "warning: the outcome (succeeded) could not be written to the journal") {
		t.Errorf("no room for the outcome: exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if s, ok := sale("FULL-2"); !ok || s.State != sandbox.StateCompleted {
		t.Errorf("no room for the outcome: sale %+v, %v; want a completed sale", s, ok)
	}

	// The same with stdout full as well: the warning does not send the
	// user to the journal for a result that is not there.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	code, stderr = pay("FULL-4", 600, full)
	if code != ExitOK || !strings.Contains(stderr, "could not be written to stdout") ||
		!strings.Contains(stderr, "it is not in the journal either: succeeded, order VP") {
		t.Errorf("no room for the outcome nor the result: exit %d, want 0; stderr:\n%s", code, stderr)
	}

	// With room again, the next attempt's lines read whole.
	if code, stderr := pay("FULL-3", -1, nil); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	attempts, skipped, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]string{}
	for _, a := range attempts {
		classes[a.Intent.Invoice] = a.Class()
	}
	want := map[string]string{"FULL-0": journal.Succeeded, "FULL-2": journal.Unknown, "FULL-4": journal.Unknown, "FULL-3": journal.Succeeded}
	if !maps.Equal(classes, want) {
		t.Errorf("journal: %v, want %v", classes, want)
	}
	// An outcome line cut short is taken back, not left torn.
	if skipped != 0 {
		t.Errorf("%d unreadable lines, want 0 (the cut-short outcomes of FULL-2 and FULL-4 are taken back)", skipped)
	}
}
