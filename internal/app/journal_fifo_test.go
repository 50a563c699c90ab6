//go:build unix

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
)

// TestJournalFIFORefused: a named pipe where the journal should be makes
// walletpay (one payment and a batch) and `paycli journal` fail at once
// with exit 1, and nothing is sent.
func TestJournalFIFORefused(t *testing.T) {
	// No walletPay answer: one sent fails the test as unexpected.
	srv := newAppGateway(t)
	home := t.TempDir()
	dir := filepath.Join(home, "state", "paycli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, journal.FileName), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": srv.URL + "/ccpayment", "PAYCLI_APP_ID": "app-id",
		"PAYCLI_APP_SECRET": "app-secret-0123456789", "PAYCLI_MERCHANT_KEY": "merchant-key-0123456789",
	}
	batch := filepath.Join(home, "batch.jsonl")
	line := `{"invoice":"F-2","token":"` + walletToken() + `","name":"Ada","surname":"Lovelace","email":"ada@example.com"}` + "\n"
	if err := os.WriteFile(batch, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{payArgs("F-1"), {"walletpay", "--batch", batch, "--yes"}, {"journal"}, {"journal", "--invoice", "F-1"}} {
		ios, _, _, errOut := iostreams.Test()
		done := make(chan int, 1)
		go func() {
			done <- Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		}()
		select {
		case code := <-done:
			if code != 1 || !strings.Contains(errOut.String(), "is a named pipe (FIFO), not a regular file") {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v hangs on a FIFO journal", args)
		}
	}
	if n := srv.Count(walletPayPath); n != 0 {
		t.Errorf("%d walletPay requests sent", n)
	}
}
