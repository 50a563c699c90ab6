//go:build unix

package moneyop

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// TestOutcomeOnEverySignal: Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed
// terminal) cancel a command's context, as paycli's main does
// (signal.NotifyContext); a request they cut off after it left is
// recorded unknown, though the context has ended, and the command says
// so (exit 7). The signal is really sent, to this process, while the
// request is out.
func TestOutcomeOnEverySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			opts, _, _, _, jpath := testOptions(t)
			withContextStore(opts, jpath)
			ctx, stop := signal.NotifyContext(context.Background(), sig)
			defer stop()
			op := &contractOp{send: func(ctx context.Context, _ string) (string, error) {
				if err := syscall.Kill(os.Getpid(), sig); err != nil {
					t.Error(err)
				}
				<-ctx.Done()
				return "", sentAfterTheRequestLeft(ctx.Err())
			}, outcome: func(_, _ string, err error) Outcome { return ClassifyError(gateway.EndpointWalletPay, err) }}
			err := RunSingle(ctx, opts, pipelineOf(op), "INV-1")
			checkUnknownRecorded(t, sig.String(), err, "interrupted after the request was sent", jpath)
		})
	}
}
