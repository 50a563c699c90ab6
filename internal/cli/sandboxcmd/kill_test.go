package sandboxcmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/userenv"
	"github.com/shopspring/decimal"
)

// envRunMain makes the test binary run paycli itself, so tests can start
// `paycli sandbox serve` as a real process.
const envRunMain = "PAYCLI_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		os.Exit(app.Main())
	}
	userenv.Clear()
	os.Exit(m.Run())
}

// startServe runs `paycli sandbox serve` on a free port over dir and returns
// the process and its base URL, read from its stderr.
func startServe(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", dir)
	cmd.Env = append(os.Environ(), envRunMain+"=1", "HOME="+dir, "XDG_STATE_HOME="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "paycli sandbox serving "); ok {
			go func() { // keep draining so the server never blocks on stderr
				for sc.Scan() {
				}
			}()
			return cmd, u
		}
	}
	t.Fatalf("serve did not start: %v", sc.Err())
	return nil, ""
}

func post(client *http.Client, url, bearer string, body any) (map[string]any, error) {
	data, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func bearerFor(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	res, err := post(client, base+"/api/token", "", map[string]string{"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret})
	if err != nil {
		t.Fatal(err)
	}
	return res["data"].(map[string]any)["token"].(string)
}

// TestServeSurvivesKill loads a `paycli sandbox serve` process with
// concurrent payments and partial refunds, kills it with SIGKILL mid-load,
// restarts it over the same state and finds every sale and every refund
// that was answered 100, each sale still protected against a second
// payment.
func TestServeSurvivesKill(t *testing.T) {
	t.Parallel() // its own processes, home and ports
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	dir := t.TempDir()
	proc, base := startServe(t, dir)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	defer client.CloseIdleConnections()
	bearer := bearerFor(t, client, base)
	// A wallet token pays once: one per invoice.
	walletFor := func(inv string) string {
		tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("42.00"), Currency: "TRY",
			CardNumber: sandbox.DefaultWalletCard, Wallet: "001", TTL: time.Hour}, time.Now(), "kill-"+inv)
		if err != nil {
			t.Error(err)
		}
		return tok
	}

	var (
		mu       sync.Mutex
		answered = map[string]string{} // invoice -> order_id, for every 100
		refunded = map[string]bool{}   // invoices whose refund of 10.00 was answered 100
		seq      atomic.Int64
		wg       sync.WaitGroup
		enough   = make(chan struct{})
		once     sync.Once
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				inv := fmt.Sprintf("KILL-%05d", seq.Add(1))
				hk, _ := hashkey.Generate(sandbox.AppSecret, "42.00|1|TRY|"+sandbox.MerchantKey+"|"+inv)
				res, err := post(client, base+"/api/walletPay", bearer, map[string]string{
					"merchant_key": sandbox.MerchantKey, "hash_key": hk, "invoice_id": inv,
					"wallet_transient_token": walletFor(inv), "name": "Ali", "surname": "Veli", "bill_email": "ali@example.com",
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
				if len(answered) >= 150 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
				// Refund part of it: an answered refund must survive the kill too.
				rk, _ := hashkey.Generate(sandbox.AppSecret, "10.00|"+inv+"|"+sandbox.MerchantKey)
				res, err = post(client, base+"/api/refund", bearer, map[string]string{"invoice_id": inv, "amount": "10.00",
					"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret, "merchant_key": sandbox.MerchantKey,
					"hash_key": rk, "refund_transaction_id": "R-" + inv})
				if err != nil {
					return
				}
				if res["status_code"] != 100.0 {
					t.Errorf("refund of %s: %v", inv, res)
					return
				}
				mu.Lock()
				refunded[inv] = true
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(30 * time.Second):
		t.Fatal("the server answered too few payments")
	}
	if err := proc.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	wg.Wait()
	_ = proc.Wait()
	client.CloseIdleConnections()

	_, base = startServe(t, dir)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d payments and %d refunds answered 100 before the kill; %d payments attempted", len(answered), len(refunded), seq.Load())
	for inv, order := range answered {
		hk, _ := hashkey.Generate(sandbox.AppSecret, inv+"|"+sandbox.MerchantKey)
		res, err := post(client, base+"/api/checkstatus", bearer, map[string]string{"merchant_key": sandbox.MerchantKey, "invoice_id": inv, "hash_key": hk})
		if err != nil {
			t.Fatal(err)
		}
		// A refund cut off by the kill may or may not have been made; one
		// that was answered was.
		status := res["transaction_status"]
		ok := status == "Partially Refunded" || (status == "Completed" && !refunded[inv])
		if !ok || res["order_id"] != order {
			t.Errorf("%s answered 100 as %s (refund answered: %v), after restart: %v", inv, order, refunded[inv], res)
		}
	}
	// Payments cut off by the kill have a definite state after the restart:
	// completed (answer lost), failed (never reached the provider) or unknown.
	for i := int64(1); i <= seq.Load(); i++ {
		inv := fmt.Sprintf("KILL-%05d", i)
		if _, ok := answered[inv]; ok {
			continue
		}
		hk, _ := hashkey.Generate(sandbox.AppSecret, inv+"|"+sandbox.MerchantKey)
		res, err := post(client, base+"/api/checkstatus", bearer, map[string]string{"merchant_key": sandbox.MerchantKey, "invoice_id": inv, "hash_key": hk})
		if err != nil {
			t.Fatal(err)
		}
		ok := res["status_code"] == 31.0 || res["transaction_status"] == "Completed" || res["transaction_status"] == "Failed"
		if !ok {
			t.Errorf("%s cut off by the kill: %v", inv, res)
		}
	}
	// The request log kept every request answered before the kill: each
	// was written before its answer left the process.
	entries, err := sandbox.ReadRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]int{}
	for _, e := range entries {
		if e.StatusCode != nil && *e.StatusCode == 100 {
			logged[e.Path+" "+e.Invoice]++
		}
	}
	for inv := range answered {
		if logged["/ccpayment/api/walletPay "+inv] != 1 || refunded[inv] && logged["/ccpayment/api/refund "+inv] != 1 {
			t.Errorf("%s answered before the kill, logged %d walletPay, %d refund", inv,
				logged["/ccpayment/api/walletPay "+inv], logged["/ccpayment/api/refund "+inv])
		}
	}
	// Duplicate protection survived too (one sample is enough here; the
	// handler tests cover the rule).
	for inv := range answered {
		hk, _ := hashkey.Generate(sandbox.AppSecret, "42.00|1|TRY|"+sandbox.MerchantKey+"|"+inv)
		res, err := post(client, base+"/api/walletPay", bearer, map[string]string{
			"merchant_key": sandbox.MerchantKey, "hash_key": hk, "invoice_id": inv,
			"wallet_transient_token": walletFor(inv), "name": "Ali", "surname": "Veli", "bill_email": "ali@example.com",
		})
		if err != nil || res["status_code"] != 3.0 {
			t.Errorf("%s paid again after restart: %v %v", inv, res, err)
		}
		break
	}
}
