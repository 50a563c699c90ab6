package refund

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// refundAgain runs `paycli refund --yes` on the fixture's sale for amount
// (or --retry ref), each run with a ref and attempt id of its own, and
// returns its stderr, how many refunds reached the gateway in all, and its
// error.
func (fx *fixture) refundAgain(t *testing.T, amount, retry string) (string, int32, error) {
	t.Helper()
	fx.errOut.Reset()
	fx.out.Reset()
	fx.runs++
	run := fx.runs
	fx.opts.Yes, fx.opts.Invoice, fx.opts.Amount, fx.opts.Retry = true, "INV-1", amount, retry
	if retry != "" {
		fx.opts.Invoice = ""
	}
	fx.opts.NewRef = func() string { return fmt.Sprintf("RF-TEST-%d", run) }
	fx.opts.NewAttemptID = func() string { return fmt.Sprintf("attempt-%d", run) }
	err := refundRun(context.Background(), fx.opts)
	return fx.errOut.String(), fx.refunds.Load(), err
}

// TestAmountUpToWhatRemains: a refund of exactly what remains refundable
// is sent, a cent more is refused (exit 2, saying what remains, nothing
// sent), before and after a partial refund.
func TestAmountUpToWhatRemains(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		amount string
		sent   int32
		refuse string
	}{
		{"150.01", 0, "invalid --amount: 150.01 TRY is more than what remains refundable, 150.00 TRY of the 150.00 TRY sale (0.00 refunded); nothing was sent"},
		{"50.00", 1, ""},
		{"100.01", 1, "invalid --amount: 100.01 TRY is more than what remains refundable, 100.00 TRY of the 150.00 TRY sale (50.00 refunded); nothing was sent"},
		{"100.00", 2, ""},
	} {
		stderr, sent, err := fx.refundAgain(t, c.amount, "")
		k, _ := cmdutil.KindOf(err)
		switch {
		case c.refuse == "" && err != nil:
			t.Errorf("%s: %v, want it refunded\n%s", c.amount, err, stderr)
		case c.refuse != "" && (k != cmdutil.KindUsage || !strings.Contains(err.Error(), c.refuse)):
			t.Errorf("%s: err %v (kind %v), want exit 2: %s", c.amount, err, k, c.refuse)
		case sent != c.sent:
			t.Errorf("%s: %d refunds sent in all, want %d", c.amount, sent, c.sent)
		}
	}
}

// TestAmountHasTheCurrencysDecimals: an amount with more decimals than the
// sale's currency (TRY: 2) is refused, exit 2, nothing sent; as many is
// sent.
func TestAmountHasTheCurrencysDecimals(t *testing.T) {
	fx := newFixture(t)
	_, sent, err := fx.refundAgain(t, "10.005", "")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "invalid --amount: ") ||
		!strings.Contains(err.Error(), "TRY amounts have 2") || sent != 0 {
		t.Errorf("10.005 of a TRY sale: err %v (kind %v), %d sent; want exit 2, nothing sent", err, k, sent)
	}
	if stderr, sent, err := fx.refundAgain(t, "10.5", ""); err != nil || sent != 1 {
		t.Errorf("10.5 of a TRY sale: %v, %d sent\n%s", err, sent, stderr)
	}
}

// TestRetryOfAQueuedRefundRefused: a refund queued for the gateway team's
// approval (101: the sandbox queues an amount ending in .01) is not
// re-sent by --retry: exit 2, saying check status tells when it is made
// or refused, with the status line; nothing more is sent or journaled.
func TestRetryOfAQueuedRefundRefused(t *testing.T) {
	fx := newFixture(t)
	if stderr, sent, err := fx.refundAgain(t, "10.01", ""); err != nil || sent != 1 {
		t.Fatalf("the queued refund: %v, %d sent\n%s", err, sent, stderr)
	}
	if attempts, _, _ := journal.Read(fx.journalPath); len(attempts) != 1 || attempts[0].Class() != journal.Queued {
		t.Fatalf("journaled %+v, want one queued refund", attempts)
	}
	_, sent, err := fx.refundAgain(t, "", "RF-TEST-1")
	k, _ := cmdutil.KindOf(err)
	if k != cmdutil.KindUsage || sent != 1 ||
		!strings.Contains(err.Error(), "invalid --retry: refund RF-TEST-1 is queued for the gateway team's approval; it is not re-sent") ||
		!strings.Contains(cmdutil.HintOf(err), "paycli status --invoice INV-1") {
		t.Errorf("--retry of a queued refund: err %v (kind %v, hint %q), %d sent in all; want exit 2, the status line, nothing more sent",
			err, k, cmdutil.HintOf(err), sent)
	}
	if attempts, _, _ := journal.Read(fx.journalPath); len(attempts) != 1 {
		t.Errorf("journaled %d attempts, want the queued refund only", len(attempts))
	}
}
