//go:build unix

package app

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pause"
)

// command is the real paycli (the test binary standing in for it) run
// with args against the sandbox in the shared home.
func (rs *refundSandbox) command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(paycliBinary(t), args...)
	cmd.Env = os.Environ()
	for k, v := range rs.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// start starts the real paycli against the sandbox in the shared home.
func (rs *refundSandbox) start(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := rs.command(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// waitFor waits until ch is closed or sent on, failing the test after a
// minute.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("waited a minute for %s", what)
	}
}

// refunded waits until the sale shows want refunded (the gateway finishing
// a refund it holds), failing after a minute.
func (rs *refundSandbox) refunded(t *testing.T, invoice string, want string) []map[string]any {
	t.Helper()
	for range 600 {
		total, refunds := rs.status(t, invoice)
		if total.Equal(decimal.RequireFromString(want)) {
			return refunds
		}
		_ = pause.For(t.Context(), 100*time.Millisecond)
	}
	t.Fatalf("%s never showed %s refunded", invoice, want)
	return nil
}

// TestKilledRefundIsNotSentAgain (issue 23, defects 1 and 2): a refund
// whose process is killed (kill -9) after its request left, while the
// gateway is still working on it, is never sent a second time:
//
//   - while the process lives, the same refund again is refused at once
//     (exit 6, in flight in its pid) and `journal reconcile` skips it;
//   - once it is killed, the same refund again is refused as unknown
//     (exit 2, with the --retry line), and `journal reconcile` does not
//     record it as not made while the gateway may still make it;
//   - the gateway makes it; `paycli status` records it as made, and
//     --retry is refused: one refund.
func TestKilledRefundIsNotSentAgain(t *testing.T) {
	rs := newRefundSandbox(t)
	rs.pay(t, "RK-1", "150.00")
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	gate := func(n int32) {
		if n == 1 {
			arrived <- struct{}{}
			<-release
		}
	}
	rs.gate.Store(&gate)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	refund := []string{"refund", "--invoice", "RK-1", "--amount", "50.00", "--yes"}
	cmd := rs.start(t, append(refund, "--timeout", "2m")...)
	waitFor(t, arrived, "the refund to reach the gateway")

	code, _, stderr := rs.run(t, refund...)
	if code != ExitDuplicate || !strings.Contains(stderr, fmt.Sprintf("a refund on invoice RK-1 is in flight in pid %d since ", cmd.Process.Pid)) {
		t.Errorf("the same refund while the first is in flight: exit %d, want 6 naming pid %d\n%s", code, cmd.Process.Pid, stderr)
	}
	code, stdout, stderr := rs.run(t, "journal", "reconcile")
	if code != ExitOutcomeUnknown || !strings.Contains(stdout, "skipped: a refund on invoice RK-1 is in flight in pid") {
		t.Errorf("journal reconcile while the refund is in flight: exit %d\n%s\n%s", code, stdout, stderr)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	attempts := rs.journal(t)
	lost := attempts[len(attempts)-1]
	if lost.Intent.Kind != "refund" || lost.Recorded() || lost.Intent.Deadline.IsZero() {
		t.Fatalf("the killed refund's journal: %+v", lost)
	}
	retry := "paycli refund --retry " + lost.Intent.Ref + " --yes"
	code, _, stderr = rs.run(t, refund...)
	if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") || !strings.Contains(stderr, retry) {
		t.Errorf("the same refund after the kill: exit %d, want 2 with %q\n%s", code, retry, stderr)
	}
	code, stdout, stderr = rs.run(t, "journal", "reconcile")
	if code != ExitOutcomeUnknown || !strings.Contains(stdout, "may still be in flight, run again after") {
		t.Errorf("journal reconcile while the gateway works on it: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if a := rs.journal(t)[len(attempts)-1]; a.Class() != journal.Unknown || a.Reconciled != nil {
		t.Errorf("reconcile settled the refund the gateway is making: %s %+v", a.Class(), a.Reconciled)
	}

	close(release)
	// paycli status, asked until the gateway shows the refund, records it
	// as made.
	rs.refunded(t, "RK-1", "50")
	if a := rs.journal(t)[len(attempts)-1]; a.Class() != journal.Succeeded || !a.ReconciledClass() {
		t.Errorf("the refund made is %s in the journal, want succeeded by its reconciliation", a.Class())
	}
	code, _, stderr = rs.run(t, "refund", "--retry", lost.Intent.Ref, "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "is known (succeeded)") {
		t.Errorf("--retry of the refund made: exit %d, want 2\n%s", code, stderr)
	}
	if total, refunds := rs.status(t, "RK-1"); !total.Equal(decimal.RequireFromString("50")) || len(refunds) != 1 {
		t.Errorf("the sale shows %s refunded in %d refunds, want one of 50.00", total, len(refunds))
	}
	if n := rs.arrived.Load(); n != 1 {
		t.Errorf("%d refund requests reached the gateway, want 1", n)
	}
}

// TestIdenticalRefundsStartedTogetherSendOne (issue 23): 20 identical
// refunds of one invoice started together send one. The first to take the
// invoice's lock is held at the gateway until every other has finished or
// reached the gateway too, so they all meet it in flight: one is sent,
// the others exit 6.
func TestIdenticalRefundsStartedTogetherSendOne(t *testing.T) {
	rs := newRefundSandbox(t)
	rs.pay(t, "RI-1", "150.00")
	commands := make([][]string, 20)
	for i := range commands {
		commands[i] = []string{"refund", "--invoice", "RI-1", "--amount", "10.00", "--yes"}
	}
	codes, stderrs := startTogether(t, rs, commands)
	oneSent(t, codes, stderrs, "RI-1")
	total, refunds := rs.status(t, "RI-1")
	if rs.arrived.Load() != 1 || !total.Equal(decimal.RequireFromString("10")) || len(refunds) != 1 {
		t.Errorf("%d reached the gateway; the sale shows %s refunded in %d refunds; want one of each", rs.arrived.Load(), total, len(refunds))
	}
}
