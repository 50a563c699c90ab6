package sandboxcmd_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
)

// syncBuffer is a bytes.Buffer safe for a process writing while the test
// reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServeKeepsNoCardNumbers runs `paycli sandbox serve` (with random
// faults, so that it logs), saves cards, pays with them, with card fields
// and through a payment link's page, sends refused card requests, stops
// the server, and reads every byte of its log and of its state folder:
// no card number may be there beyond its first six and last four digits.
func TestServeKeepsNoCardNumbers(t *testing.T) {
	t.Parallel() // its own processes, home and ports
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "sandbox", "serve", "--addr", "127.0.0.1:0", "--state", dir,
		"--faults", "--fault-rate", "0.2", "--fault-seed", "3", "--fault-delay", "1ms")
	cmd.Env = append(os.Environ(), envRunMain+"=1", "HOME="+dir, "XDG_STATE_HOME="+dir)
	var log syncBuffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(log.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "paycli sandbox serving "); ok {
				base = u
			}
		}
	}
	if base == "" {
		t.Fatalf("serve did not start: %s", log.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	// A request may meet an injected fault: each is sent until it is
	// answered with a JSON body (or a page) at least once.
	send := func(path string, body any, form bool) {
		for range 20 {
			var req *http.Request
			if form {
				req, _ = http.NewRequest("POST", base+path, strings.NewReader(body.(url.Values).Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			} else {
				data, _ := json.Marshal(body)
				req, _ = http.NewRequest("POST", base+path, bytes.NewReader(data))
				req.Header.Set("Content-Type", "application/json")
			}
			tok, err := post(client, base+"/api/token", "", map[string]string{"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret})
			if err != nil || tok["data"] == nil {
				continue
			}
			req.Header.Set("Authorization", tok["data"].(map[string]any)["token"].(string))
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			resp.Body.Close()
			if resp.StatusCode == 200 || resp.StatusCode == 400 {
				return
			}
		}
		t.Fatalf("%s was never answered", path)
	}
	hk := func(parts ...string) string {
		h, err := hashkey.Generate(sandbox.AppSecret, strings.Join(parts, "|"))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	cards := []string{"4355084355084358", "5406675406675403", "4355080000000518", "4508034508034509"}
	refused := []string{"4355084355084359", "4111111111111111"} // a bad check digit; a card with an expired date below
	for i, n := range cards {
		cust := "77" + string(rune('0'+i))
		send("/api/saveCard", map[string]string{"merchant_key": sandbox.MerchantKey, "card_holder_name": "A B", "card_number": n,
			"expiry_month": "12", "expiry_year": "2099", "customer_number": cust, "hash_key": hk(sandbox.MerchantKey, cust, "A B", n, "12", "2099")}, false)
		inv := "SEC-2D-" + n[12:]
		send("/api/paySmart2D", map[string]string{"merchant_key": sandbox.MerchantKey, "currency_code": "TRY", "cc_holder_name": "A B",
			"cc_no": n, "expiry_month": "12", "expiry_year": "2099", "cvv": "123", "installments_number": "1", "name": "A", "surname": "B",
			"invoice_id": inv, "total": "10.00", "hash_key": hk("10.00", "1", "TRY", sandbox.MerchantKey, inv)}, false)
		inv = "SEC-3D-" + n[12:]
		send("/api/paySmart3D", url.Values{"merchant_key": {sandbox.MerchantKey}, "currency_code": {"TRY"}, "cc_holder_name": {"A B"},
			"cc_no": {n}, "expiry_month": {"12"}, "expiry_year": {"2099"}, "cvv": {"123"}, "installments_number": {"1"}, "name": {"A"},
			"surname": {"B"}, "invoice_id": {inv}, "total": {"10.00"}, "return_url": {"http://127.0.0.1:1/ok"}, "cancel_url": {"http://127.0.0.1:1/no"},
			"hash_key": {hk("10.00", "1", "TRY", sandbox.MerchantKey, inv)}}, true)
	}
	for _, n := range refused {
		send("/api/saveCard", map[string]string{"merchant_key": sandbox.MerchantKey, "card_holder_name": "A B", "card_number": n,
			"expiry_month": "01", "expiry_year": "2001", "customer_number": "1", "hash_key": hk(sandbox.MerchantKey, "1", "A B", n, "01", "2001")}, false)
	}
	// A payment link paid from its page.
	inv, _ := json.Marshal(map[string]any{"invoice_id": "SEC-LINK", "total": "10.00", "return_url": "http://127.0.0.1:1/ok",
		"cancel_url": "http://127.0.0.1:1/no", "hash_key": hk("10.00", "TRY", sandbox.MerchantKey, "SEC-LINK")})
	var link string
	for range 20 {
		bearer := bearerFor(t, client, base)
		res, err := post(client, base+"/purchase/link", bearer, map[string]string{"merchant_key": sandbox.MerchantKey, "invoice": string(inv),
			"currency_code": "TRY", "name": "A", "surname": "B"})
		if err == nil && res["link"] != nil {
			link = res["link"].(string)
			break
		}
	}
	if link == "" {
		t.Fatal("no payment link")
	}
	for _, n := range append(refused, cards[0]) {
		form := url.Values{"cc_holder_name": {"A B"}, "cc_no": {n}, "expiry_month": {"12"}, "expiry_year": {"2099"}, "cvv": {"123"}, "installments_number": {"1"}}
		for range 20 {
			resp, err := client.PostForm(link, form)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 || resp.StatusCode == 400 {
					break
				}
			}
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	leaks := map[string][]byte{"serve log": []byte(log.String())}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			leaks[path] = data
		}
		return nil
	})
	if !bytes.Contains(leaks[filepath.Join(dir, sandbox.DBFile)], []byte("435508")) {
		t.Fatal("the state file holds no card's first digits: did the requests reach the server?")
	}
	for where, data := range leaks {
		for _, n := range append(cards, refused...) {
			// Anything longer than the last four after the first six, or
			// the first twelve digits, is more than may be kept.
			if bytes.Contains(data, []byte(n[6:])) || bytes.Contains(data, []byte(n[:12])) {
				t.Errorf("%s holds more of %s than its first six and last four digits", where, n)
			}
		}
	}
}
