package soak

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

func jattempt(class, order string) journal.Attempt {
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Invoice: "INV"}}
	if class != "" {
		a.Outcome = &journal.Entry{Type: journal.TypeOutcome, Invoice: "INV", Outcome: class, OrderNo: order}
	}
	return a
}

// TestReconcile feeds the checker one invoice's three views at a time: a
// consistent story passes, and each kind of disagreement the soak exists
// to catch is reported.
func TestReconcile(t *testing.T) {
	completed := map[string]sandbox.Sale{"INV": {InvoiceID: "INV", OrderID: "VP1", State: sandbox.StateCompleted}}
	failed := map[string]sandbox.Sale{"INV": {InvoiceID: "INV", OrderID: "VP1", State: sandbox.StateFailed}}
	none := map[string]sandbox.Sale{}
	csCompleted := checkStatus{found: true, status: "Completed", orderID: "VP1"}
	csFailed := checkStatus{found: true, status: "Failed", orderID: "VP1"}
	tests := []struct {
		name    string
		procs   []attempt
		journal []journal.Attempt
		sales   map[string]sandbox.Sale
		cs      checkStatus
		want    string // a problem containing this; "" for none
	}{
		{"paid once, duplicates after", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 6}, {exit: 8}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Duplicate, ""), jattempt(journal.NotSent, "")}, completed, csCompleted, ""},
		{"charged while unknown", []attempt{{exit: 7}, {exit: 6}},
			[]journal.Attempt{jattempt(journal.Unknown, ""), jattempt(journal.Duplicate, "")}, completed, csCompleted, ""},
		{"declined", []attempt{{exit: 5}}, []journal.Attempt{jattempt(journal.Declined, "")}, failed, csFailed, ""},
		{"never charged", []attempt{{exit: 8}}, nil, none, checkStatus{}, ""},
		{"two processes paid", []attempt{{exit: 0, orderNo: "VP1"}, {exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, "charged twice: 2 processes"},
		{"two orders", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1"), jattempt(journal.Succeeded, "VP2")}, completed, csCompleted, "charged twice: succeeded with orders"},
		{"answered 100, lost", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, none, checkStatus{}, "answered 100"},
		{"answered 100, stored failed", []attempt{{exit: 0, orderNo: "VP1"}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, failed, csFailed, "answered 100"},
		{"charged, nobody told", []attempt{{exit: 8}},
			[]journal.Attempt{jattempt(journal.NotSent, "")}, completed, csCompleted, "no process exited 0 or 7"},
		{"check status disagrees", []attempt{{exit: 5}},
			[]journal.Attempt{jattempt(journal.Declined, "")}, failed, csCompleted, "check status says"},
		{"check status knows more", nil, nil, none, csCompleted, "the store does not"},
		{"exit and journal disagree", []attempt{{exit: 7}},
			[]journal.Attempt{jattempt(journal.Declined, "")}, failed, csFailed, "1 declined attempts but no process exited 5"},
		{"killed after sending, charged", []attempt{{exit: -1, killed: true}, {exit: 6}},
			[]journal.Attempt{jattempt("", ""), jattempt(journal.Duplicate, "")}, completed, csCompleted, ""},
		{"killed after the outcome line", []attempt{{exit: -1, killed: true}},
			[]journal.Attempt{jattempt(journal.Succeeded, "VP1")}, completed, csCompleted, ""},
		{"killed before the intent", []attempt{{exit: -1, killed: true}}, nil, none, checkStatus{}, ""},
		{"more unknowns than kills allow", []attempt{{exit: -1, killed: true}, {exit: 7}},
			[]journal.Attempt{jattempt("", ""), jattempt(journal.Unknown, ""), jattempt(journal.Unknown, "")}, completed, csCompleted, "but the journal has 3 unknown"},
		{"a process killed by something else", []attempt{{exit: -1}}, nil, none, checkStatus{}, "exited -1"},
		{"unexpected exit", []attempt{{exit: 1, stderr: "error: boom"}}, nil, none, checkStatus{}, "exited 1: error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{report: &Report{}}
			r.reconcile(invoice{id: "INV"}, tt.procs, tt.journal, tt.sales, tt.cs)
			got := strings.Join(r.report.Problems, "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("problems:\n%s\nwant none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}

func TestLuhnComplete(t *testing.T) {
	for _, p := range []string{"435508435508435", "552879123456789", "411111111111111"} {
		if err := sandbox.ValidateCardNumber(luhnComplete(p)); err != nil {
			t.Errorf("%s: %v", luhnComplete(p), err)
		}
	}
	if got := luhnComplete("435508435508435"); got != sandbox.DefaultWalletCard {
		t.Errorf("got %s, want %s", got, sandbox.DefaultWalletCard)
	}
}
