package app

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/sandbox"
)

// newRaceSandbox is a refundSandbox whose requests to any of the paths
// ending in suffixes (not only refunds) are counted in arrived and held
// at its gate.
func newRaceSandbox(t *testing.T, suffixes ...string) *refundSandbox {
	t.Helper()
	rs := &refundSandbox{home: t.TempDir(), gatedPaths: suffixes}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Wrap: rs.gated, Gateway: sandbox.Options{Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	rs.baseURL = srv.BaseURL
	return rs
}

// startTogether runs each command line at once, the first to reach the
// gateway held there until every other has finished or reached it too,
// and returns their exit codes and stderr.
func startTogether(t *testing.T, rs *refundSandbox, commands [][]string) (codes []int, stderrs []string) {
	t.Helper()
	n := int32(len(commands))
	var finished atomic.Int32
	allIn := make(chan struct{})
	var once sync.Once
	check := func() {
		if finished.Load()+rs.arrived.Load() >= n {
			once.Do(func() { close(allIn) })
		}
	}
	gate := func(int32) { check(); <-allIn }
	rs.gate.Store(&gate)
	codes, stderrs = make([]int, len(commands)), make([]string, len(commands))
	var wg sync.WaitGroup
	for i, args := range commands {
		wg.Go(func() {
			codes[i], _, stderrs[i] = rs.run(t, args...)
			finished.Add(1)
			check()
		})
	}
	wg.Wait()
	rs.gate.Store(nil)
	return codes, stderrs
}

// oneSent checks that exactly one command exited 0 and every other was
// refused at once, exit 6, naming the process in flight on the invoice.
func oneSent(t *testing.T, codes []int, stderrs []string, invoice string) {
	t.Helper()
	sent := 0
	for i, c := range codes {
		switch {
		case c == ExitOK:
			sent++
		case c == ExitDuplicate && strings.Contains(stderrs[i], " on invoice "+invoice+" is in flight in pid "):
		default:
			t.Errorf("command %d: exit %d\n%s", i, c, stderrs[i])
		}
	}
	if sent != 1 {
		t.Errorf("%d exited 0, want 1", sent)
	}
}

// TestIdenticalCapturesStartedTogetherSendOne (issue 23): 20 identical
// captures of one pre-authorization started together send one; the others
// meet it in flight (exit 6).
func TestIdenticalCapturesStartedTogetherSendOne(t *testing.T) {
	rs := newRaceSandbox(t, "/api/confirmPayment")
	sandboxSale(t, rs.baseURL, sandboxcmd.PayOptions{PreAuth: true, Invoice: "RC-1", Amount: decimal.RequireFromString("100.00")})
	commands := make([][]string, 20)
	for i := range commands {
		commands[i] = []string{"preauth", "capture", "--invoice", "RC-1", "--amount", "40.00", "--yes"}
	}
	codes, stderrs := startTogether(t, rs, commands)
	oneSent(t, codes, stderrs, "RC-1")
	if n := rs.arrived.Load(); n != 1 {
		t.Errorf("%d captures reached the gateway, want 1", n)
	}
	code, stdout, stderr := rs.run(t, "status", "--invoice", "RC-1", "-o", "json")
	var st struct {
		Amount  json.Number `json:"transaction_amount"`
		PreAuth struct {
			Status string `json:"status"`
		} `json:"pre_auth"`
	}
	if code != ExitOK || json.Unmarshal([]byte(stdout), &st) != nil || st.Amount != "40.00" || st.PreAuth.Status != sandbox.PreAuthCaptured {
		t.Errorf("status: exit %d, captured %q (%s)\n%s\n%s", code, st.Amount, st.PreAuth.Status, stdout, stderr)
	}
}

// TestAPIRefundsRacingRefundsSendOne (issue 23): refunds of one invoice
// through `paycli api` and through `paycli refund`, started together, send
// one: an api refund holds the invoice as paycli refund does.
func TestAPIRefundsRacingRefundsSendOne(t *testing.T) {
	rs := newRaceSandbox(t, "/api/refund")
	rs.pay(t, "RA-1", "150.00")
	commands := make([][]string, 20)
	for i := range commands {
		commands[i] = []string{"refund", "--invoice", "RA-1", "--amount", "10.00", "--yes"}
		if i%2 == 0 {
			commands[i] = []string{"api", "POST", "/api/refund", "--credentials", "--merchant-key", "--hash", "refund",
				"-f", "invoice_id=RA-1", "-f", "amount=10.00", "--yes"}
		}
	}
	codes, stderrs := startTogether(t, rs, commands)
	oneSent(t, codes, stderrs, "RA-1")
	total, refunds := rs.status(t, "RA-1")
	if rs.arrived.Load() != 1 || !total.Equal(decimal.RequireFromString("10")) || len(refunds) != 1 {
		t.Errorf("%d reached the gateway; the sale shows %s refunded in %d refunds; want one of 10.00", rs.arrived.Load(), total, len(refunds))
	}
}
