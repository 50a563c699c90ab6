package moneyop

import (
	"context"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// TestConfirmationAnswerDecides: on a terminal without --yes the person's
// answer decides. "n" (or an empty answer) sends nothing, journals
// nothing and is a cancel, said as one on stderr (no "error:") with its
// own exit code (10); "y" sends once.
func TestConfirmationAnswerDecides(t *testing.T) {
	for _, tc := range []struct {
		answer string
		send   bool
	}{
		{"n\n", false},
		{"\n", false},
		{"no\n", false},
		{"y\n", true},
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			opts, in, _, errOut, jpath := testOptions(t)
			opts.Yes = false
			opts.IO.SetStdinTTY(true)
			opts.IO.SetStdoutTTY(true)
			in.WriteString(tc.answer)
			op := &fakeOp{}
			err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
			attempts, _, rerr := journal.Read(jpath)
			if rerr != nil && tc.send {
				t.Fatal(rerr)
			}
			if !strings.Contains(errOut.String(), "Go? [y/N]") {
				t.Errorf("stderr %q: the question was not asked", errOut.String())
			}
			if tc.send {
				if err != nil || len(op.sent) != 1 || len(attempts) != 1 {
					t.Errorf("answered y: err %v, sent %v, journaled %d; want sent once", err, op.sent, len(attempts))
				}
				return
			}
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindCancelled || !cmdutil.IsSilent(err) {
				t.Errorf("answered %q: err %v (kind %v); want a cancel already said, exit 10", tc.answer, err, k)
			}
			if !strings.Contains(errOut.String(), "Cancelled; nothing was sent.") {
				t.Errorf("answered %q: stderr %q does not say it was cancelled", tc.answer, errOut.String())
			}
			if len(op.sent) != 0 || len(attempts) != 0 {
				t.Errorf("answered %q: sent %v, journaled %d attempts; want nothing", tc.answer, op.sent, len(attempts))
			}
		})
	}
}
