package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/testkit/ports"
	"github.com/paycli/paycli/internal/webhook"
)

// webhookLeakRuns runs `webhook listen --debug` with a forwarding handler
// that echoes what it gets, sends it webhooks that carry the full card
// number and the payer's e-mail (valid, forged, and one the handler
// refuses), then runs `webhook verify --debug` on the same bodies. It
// returns the runs for TestSecretsNeverLeak's scan and the hash_keys sent,
// which must not appear either.
func webhookLeakRuns(t *testing.T, dirs map[string]string, appSecret, pan string) ([]leakRun, []string) {
	t.Helper()
	env := func(k string) (string, bool) { v, ok := dirs[k]; return v, ok }
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "LEAK-WH-REFUSED") {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write(body) // echoed, so that the logged answer holds the secrets too
	}))
	defer handler.Close()

	var bodies []struct{ ct, body string }
	var hashes []string
	for i, inv := range []string{"LEAK-WH-1", "LEAK-WH-REFUSED"} {
		signed, err := webhook.Sign(webhook.Sale, map[string]string{"status": "1", "total": "150.00", "invoice_id": inv,
			"order_id": "VP1", "currency_code": "TRY", "credit_card_no": pan, "bill_email": leakEmail}, appSecret)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, signed["hash_key"])
		ct, b, err := webhook.Encode([]webhook.Encoding{webhook.Form, webhook.JSON}[i], signed)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, struct{ ct, body string }{ct, string(b)})
		forged := strings.Replace(string(b), "LEAK-WH", "LEAK-WH-FORGED", 1)
		bodies = append(bodies, struct{ ct, body string }{ct, forged})
	}

	addr := ports.Addr(t) // free for the listener, and no one else's meanwhile
	args := []string{"webhook", "listen", "--debug", "--addr", addr, "--forward-to", handler.URL + "/hook"}
	ios, _, out, errOut := iostreams.Test()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, ios, env) }()
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := client.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("webhook listen did not start: exit %d", <-done)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, b := range bodies {
		resp, err := client.Post("http://"+addr+"/hook", b.ct, strings.NewReader(b.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cancel()
	code := <-done
	if code != ExitOK {
		t.Errorf("webhook listen: exit %d; stderr:\n%s", code, errOut)
	}
	// The scan is only worth something if the log showed the traffic.
	if n := strings.Count(errOut.String(), "webhook received"); n != len(bodies) {
		t.Errorf("webhook listen --debug logged %d webhooks, want %d:\n%s", n, len(bodies), errOut)
	}
	runs := []leakRun{{args: args, code: code, stdout: out.String(), stderr: errOut.String()}}

	var capture strings.Builder
	for _, b := range bodies {
		capture.WriteString(b.body + "\n")
	}
	for _, format := range []string{"table", "json"} {
		args := []string{"webhook", "verify", "-", "--debug", "-o", format}
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(capture.String())
		code := Run(context.Background(), args, ios, env)
		if code != ExitRejected {
			t.Errorf("webhook verify: exit %d, want %d; stderr:\n%s", code, ExitRejected, errOut)
		}
		runs = append(runs, leakRun{args: args, code: code, stdout: out.String(), stderr: errOut.String()})
	}
	return runs, hashes
}
