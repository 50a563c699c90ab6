package moneyop

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// hungClose is the run's journal whose Close hangs until released, as a
// shared journal's database that stopped answering may.
type hungClose struct {
	journal.Store
	closing chan struct{} // closed when Close is called
	release chan struct{}
}

func (h *hungClose) Close() error {
	close(h.closing)
	<-h.release
	return h.Store.Close()
}

// TestBatchCloseIsBounded (issue 39, defect 12): a --batch run's final
// close of the journal is bounded as a single command's is
// (CleanupGrace): a journal whose Close hangs does not hold the batch's
// exit.
func TestBatchCloseIsBounded(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	opts.GatewayIdentity = func() (string, error) { return testIdentity, nil }
	hung := &hungClose{closing: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(hung.release) })
	opts.Journal = func() (journal.Store, error) {
		hung.Store = journal.OpenFile(jpath, time.Now)
		return hung, nil
	}
	fmt.Fprint(in, "{\"invoice\":\"INV-1\"}\n")
	opts.Batch = "-"
	op := &walletOp{path: jpath}
	done := make(chan error, 1)
	go func() { done <- RunBatch(context.Background(), opts, pipelineOf(op)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(CleanupGrace + 30*time.Second): // the bound, and far more than a loaded machine needs
		t.Fatal("the batch is still waiting for the journal's close")
	}
	select {
	case <-hung.closing:
	default:
		t.Error("the batch never closed the journal")
	}
	if !strings.Contains(out.String(), `"invoice":"INV-1","outcome":"succeeded"`) {
		t.Errorf("results:\n%s", out)
	}
}
