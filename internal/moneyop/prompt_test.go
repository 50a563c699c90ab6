package moneyop

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// answering is a person at the prompt: while they are asked, meanwhile
// runs (another operator), then they answer y.
type answering struct {
	meanwhile func()
	done      bool
}

func (a *answering) Read(p []byte) (int, error) {
	if a.done {
		return 0, io.EOF
	}
	a.done = true
	if a.meanwhile != nil {
		a.meanwhile()
	}
	return copy(p, "y\n"), nil
}

// TestPromptDoesNotHoldTheInvoice: an operator at the confirmation prompt
// does not hold the invoice's lock: another operator's command on it goes
// meanwhile. The first, once confirmed, looks again under the lock: the
// invoice changed, so it is refused (exit 6) and sends nothing. Had
// nothing changed, it is sent.
func TestPromptDoesNotHoldTheInvoice(t *testing.T) {
	for _, other := range []bool{true, false} {
		opts, jpath := lockedOptions(t)
		opts.Yes = false
		opts.IO.SetStdinTTY(true)
		opts.IO.SetStdoutTTY(true)
		var otherErr error
		otherOp := &kindOp{kind: "preauth-cancel"}
		person := &answering{}
		if other {
			person.meanwhile = func() {
				o, _ := lockedOptions(t)
				o.Journal, o.JournalPath = opts.Journal, opts.JournalPath
				otherErr = RunSingle(context.Background(), o, pipelineOf(otherOp), "INV-1")
			}
		}
		opts.IO.In = person
		op := &kindOp{kind: "preauth-capture"}
		err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
		if !other {
			if err != nil || len(op.sent) != 1 {
				t.Errorf("nothing changed: err %v, sent %v; want it sent", err, op.sent)
			}
			continue
		}
		if otherErr != nil || len(otherOp.sent) != 1 {
			t.Errorf("the other operator was held off by the prompt: %v, sent %v", otherErr, otherOp.sent)
		}
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || !strings.Contains(err.Error(), "changed in the journal while the confirmation was asked") || len(op.sent) != 0 {
			t.Errorf("err %v (kind %v), sent %v; want exit 6, nothing sent", err, k, op.sent)
		}
		if attempts, _, _ := journal.Read(jpath); len(attempts) != 1 {
			t.Errorf("journaled %d attempts, want the other operator's only", len(attempts))
		}
	}
}
