package sandboxcmd

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
)

// TestPayHelpListsFaultValues: every fault value the sandbox acts out is
// in `sandbox pay --help`.
func TestPayHelpListsFaultValues(t *testing.T) {
	f, _ := testFactory(t, nil)
	long := NewCmdPay(f, nil).Long
	for _, m := range sandbox.MagicFaults {
		if !strings.Contains(long, m.Amount) || !strings.Contains(long, m.Card) || !strings.Contains(strings.Join(strings.Fields(long), " "), m.What) {
			t.Errorf("sandbox pay --help lacks the %s fault (%s, %s)", m.Name, m.Amount, m.Card)
		}
	}
}

// TestOpenAPIServerIsServesDefault: the OpenAPI description's server is
// where `sandbox serve` listens by default.
func TestOpenAPIServerIsServesDefault(t *testing.T) {
	doc, err := sandbox.OpenAPIDocument()
	if err != nil || !strings.Contains(string(doc), `"url": "http://`+DefaultAddr+`"`) {
		t.Errorf("the description's server is not http://%s (%v)", DefaultAddr, err)
	}
}

// TestServeBodies: `serve --bodies` keeps masked bodies in the request
// log, and every answer has an X-Request-Id that the log keeps.
func TestServeBodies(t *testing.T) {
	opts, err := parseServe(t, "--bodies", "--addr", "127.0.0.1:0")
	if err != nil || !opts.Bodies {
		t.Fatalf("--bodies: %v %+v", err, opts)
	}
	_, ios := testFactory(t, nil)
	opts.IO, opts.Now, opts.StateDir, opts.Listen = ios, time.Now, t.TempDir(), net.Listen
	ready := make(chan string, 1)
	opts.Ready = func(u string) { ready <- u }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	base := <-ready
	body := `{"app_id": "` + sandbox.AppID + `", "app_secret": "` + sandbox.AppSecret + `"}`
	req, _ := http.NewRequest("POST", base+"/api/token", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(sandbox.RequestIDHeader, "ci-run-1")
	res, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	entries, err := sandbox.ReadRequestLog(opts.StateDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("log: %v %+v", err, entries)
	}
	e := entries[0]
	if res.Header.Get(sandbox.RequestIDHeader) != "ci-run-1" || e.RequestID != "ci-run-1" || e.RequestBody == "" || e.AnswerBody == "" ||
		strings.Contains(e.RequestBody, sandbox.AppSecret) || !strings.Contains(e.AnswerBody, `"token":"eyJh••••`) {
		t.Errorf("X-Request-Id %q; entry %+v", res.Header.Get(sandbox.RequestIDHeader), e)
	}
}
