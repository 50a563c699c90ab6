package sandboxcmd_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/ports"
	"github.com/paycli/paycli/internal/testkit/tiedproc"
	"github.com/shopspring/decimal"
)

// runServe starts `paycli sandbox serve` on addr over dir with args, tied
// to the test process, and waits until it answers its health check.
func runServe(t *testing.T, addr, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"sandbox", "serve", "--addr", addr, "--state", dir}, args...)...)
	cmd.Env = append(os.Environ(), envRunMain+"=1", "HOME="+dir, "XDG_STATE_HOME="+dir)
	if err := tiedproc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !sandbox.Healthy(ctx, "http://"+addr+sandbox.Base) {
		if ctx.Err() != nil {
			t.Fatalf("serve %v did not start", args)
		}
		time.Sleep(20 * time.Millisecond) // a poll with a deadline
	}
	return cmd
}

// TestEveryAnsweredSaleSurvivesKill loads `paycli sandbox serve` with
// walletPays from 32 connections, kills it with SIGKILL mid-load, and
// checks the state folder: bbolt finds nothing torn in the file, and after
// a restart check status finds every sale that was answered 100, however
// many were. By default serve's commits reach the page cache, not the
// disk, before their answer; that must be enough for kill -9.
func TestEveryAnsweredSaleSurvivesKill(t *testing.T) {
	t.Parallel() // its own processes, home and port
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"durable", []string{"--durable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, addr := t.TempDir(), ports.Addr(t)
			base := "http://" + addr + sandbox.Base
			proc := runServe(t, addr, dir, tc.args...)
			answered := loadUntilKilled(t, proc, base)

			s, err := sandbox.OpenStore(dir, time.Second, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(); err != nil {
				t.Errorf("the state file after kill -9: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			runServe(t, addr, dir, tc.args...)
			client := &http.Client{Timeout: 10 * time.Second}
			defer client.CloseIdleConnections()
			bearer := bearerFor(t, client, base)
			t.Logf("%d walletPays answered 100 before the kill", len(answered))
			for inv, order := range answered {
				hk, _ := hashkey.Generate(sandbox.AppSecret, inv+"|"+sandbox.MerchantKey)
				res, err := post(client, base+"/api/checkstatus", bearer,
					map[string]string{"merchant_key": sandbox.MerchantKey, "invoice_id": inv, "hash_key": hk})
				if err != nil {
					t.Fatal(err)
				}
				if res["transaction_status"] != "Completed" || res["order_id"] != order {
					t.Errorf("%s answered 100 as %s before the kill; after the restart: %v", inv, order, res)
				}
			}
		})
	}
}

// loadUntilKilled pays new invoices from 32 connections until serve has
// answered 200 of them, kills it (SIGKILL) while the payments go on, and
// returns the order id of every invoice answered 100.
func loadUntilKilled(t *testing.T, proc *exec.Cmd, base string) map[string]string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	defer client.CloseIdleConnections()
	bearer := bearerFor(t, client, base)
	var (
		mu       sync.Mutex
		answered = map[string]string{}
		seq      atomic.Int64
		wg       sync.WaitGroup
		enough   = make(chan struct{})
		once     sync.Once
	)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				inv := fmt.Sprintf("DUR-%06d", seq.Add(1))
				tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("42.00"), Currency: "TRY",
					CardNumber: sandbox.DefaultWalletCard, Wallet: "001", TTL: time.Hour}, time.Now(), "dur-"+inv)
				if err != nil {
					t.Error(err)
					return
				}
				hk, _ := hashkey.Generate(sandbox.AppSecret, "42.00|1|TRY|"+sandbox.MerchantKey+"|"+inv)
				res, err := post(client, base+"/api/walletPay", bearer, map[string]string{
					"merchant_key": sandbox.MerchantKey, "hash_key": hk, "invoice_id": inv,
					"wallet_transient_token": tok, "name": "Ali", "surname": "Veli", "bill_email": "ali@example.com",
				})
				if err != nil {
					return // the server is gone: this payment's outcome is unknown, which is allowed
				}
				if res["status_code"] != 100.0 {
					t.Errorf("%s: %v", inv, res)
					return
				}
				mu.Lock()
				answered[inv] = res["data"].(map[string]any)["order_id"].(string)
				if len(answered) >= 200 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		t.Fatal("the server answered too few payments")
	}
	if err := proc.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	wg.Wait()
	_ = proc.Wait()
	mu.Lock()
	defer mu.Unlock()
	return answered
}
