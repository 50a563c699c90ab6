package moneyop

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// closingReader is stdout read by a reader that goes away (head -1): the
// first write succeeds, every later one fails as a closed pipe does.
type closingReader struct {
	strings.Builder
	writes int
}

func (w *closingReader) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > 1 {
		return 0, syscall.EPIPE
	}
	return w.Builder.Write(p)
}

// TestBatchWarnsOnlyWhenResultsAreLost: a batch whose every result line
// reached stdout says nothing about unwritten results; one whose stdout
// broke after line 1 says so once, from line 2 on, and still sends and
// journals every line.
func TestBatchWarnsOnlyWhenResultsAreLost(t *testing.T) {
	const warning = "could not be written to stdout"
	t.Run("written", func(t *testing.T) {
		opts, in, out, errOut, _ := testOptions(t)
		for _, inv := range []string{"A", "B", "C"} {
			fmt.Fprintf(in, "{\"invoice\":%q}\n", inv)
		}
		opts.Batch = "-"
		op := &fakeOp{}
		if err := RunBatch(context.Background(), opts, pipelineOf(op)); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "\n"); n != 3 {
			t.Errorf("stdout has %d lines, want 3: %q", n, out.String())
		}
		if strings.Contains(errOut.String(), warning) {
			t.Errorf("every result was written, yet stderr warns: %q", errOut.String())
		}
	})
	t.Run("broken", func(t *testing.T) {
		opts, in, _, errOut, jpath := testOptions(t)
		for _, inv := range []string{"A", "B", "C"} {
			fmt.Fprintf(in, "{\"invoice\":%q}\n", inv)
		}
		stdout := &closingReader{}
		opts.IO.Out = stdout
		opts.Batch = "-"
		op := &fakeOp{}
		if err := RunBatch(context.Background(), opts, pipelineOf(op)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(errOut.String(), warning); got != 1 || !strings.Contains(errOut.String(), "from line 2 on") {
			t.Errorf("stderr %q: want one warning, from line 2 on", errOut.String())
		}
		if !strings.Contains(stdout.String(), `"invoice":"A"`) || strings.Contains(stdout.String(), `"invoice":"B"`) {
			t.Errorf("stdout %q: want line 1's result only", stdout.String())
		}
		attempts, _, err := journal.Read(jpath)
		if err != nil {
			t.Fatal(err)
		}
		if len(op.sent) != 3 || len(attempts) != 3 {
			t.Errorf("sent %v, journaled %d; want every line sent and journaled", op.sent, len(attempts))
		}
	})
}

// TestSingleResultLostNamesTheOrder: a single payment whose result could
// not be written to stdout still tells, on stderr, how it ended and its
// order number, and that it is in the journal.
func TestSingleResultLostNamesTheOrder(t *testing.T) {
	opts, _, _, errOut, _ := testOptions(t)
	opts.IO.Out = &closingReader{writes: 1}
	op := &fakeOp{}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Fatal(err)
	}
	if want := "it is in the journal: succeeded, order ORD-INV-1\n"; !strings.Contains(errOut.String(), want) || len(op.sent) != 1 {
		t.Errorf("stderr %q, sent %v; want %q", errOut.String(), op.sent, want)
	}
}
