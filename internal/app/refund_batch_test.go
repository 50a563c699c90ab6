package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/sandbox"
)

// batch runs `paycli refund --batch` on lines, with args before it.
func (rs *refundSandbox) batch(t *testing.T, lines string, args ...string) (int, string, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "refunds.jsonl")
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	return rs.run(t, append(args, "refund", "--batch", file, "--yes")...)
}

// TestBatchRefundIDNamesOneRefund (issue 23, defect 3): a batch refund id
// already used for another invoice or amount, in the journal or on another
// line of the file, refuses the batch (exit 2, nothing sent) instead of
// reporting it done; a batch run again is resumed by invoice and id.
func TestBatchRefundIDNamesOneRefund(t *testing.T) {
	rs := newRefundSandbox(t)
	for _, inv := range []string{"ID-A", "ID-B", "ID-C", "ID-D"} {
		rs.pay(t, inv, "150.00")
	}
	first := `{"invoice":"ID-A","amount":"20.00","id":"desk-1"}` + "\n"
	if code, stdout, stderr := rs.batch(t, first); code != ExitOK || !strings.Contains(stdout, `"outcome":"succeeded"`) {
		t.Fatalf("first batch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []struct{ name, lines, says string }{
		{"another invoice", `{"invoice":"ID-B","amount":"20.00","id":"desk-1"}`,
			`line 1 gives id "desk-1" to a refund of 20 of invoice ID-B, but the journal holds it for a refund of 20.00 of invoice ID-A`},
		{"another amount", `{"invoice":"ID-A","amount":"30.00","id":"desk-1"}`, `but the journal holds it for a refund of 20.00 of invoice ID-A`},
		{"all that remains", `{"invoice":"ID-A","full":true,"id":"desk-1"}`,
			`gives id "desk-1" to a refund of all that remains of invoice ID-A, but the journal holds it for a refund of 20.00 of invoice ID-A`},
		{"two lines of one file", `{"invoice":"ID-C","amount":"20.00","id":"desk-2"}` + "\n" + `{"invoice":"ID-D","amount":"20.00","id":"desk-2"}`,
			`line 2 gives id "desk-2" to a refund of 20 of invoice ID-D, line 1 to one of 20 of invoice ID-C`},
		{"two amounts of one invoice in one file", `{"invoice":"ID-C","amount":"5.00","id":"desk-4"}` + "\n" + `{"invoice":"ID-C","amount":"6.00","id":"desk-4"}`,
			`line 2 gives id "desk-4" to a refund of 6 of invoice ID-C, line 1 to one of 5 of invoice ID-C`},
	} {
		for run := range 2 {
			code, stdout, stderr := rs.batch(t, c.lines+"\n")
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.says) || !strings.Contains(stderr, "nothing was sent") {
				t.Errorf("%s, run %d: exit %d, want 2 saying %q\n%s\n%s", c.name, run+1, code, c.says, stdout, stderr)
			}
		}
	}
	if n := rs.refunds.Load(); n != 1 {
		t.Errorf("%d refund requests reached the gateway, want 1", n)
	}
	for _, inv := range []string{"ID-B", "ID-C", "ID-D"} {
		if total, _ := rs.status(t, inv); !total.IsZero() {
			t.Errorf("%s shows %s refunded", inv, total)
		}
	}
	// Resumed by invoice and id: the first batch again is skipped.
	if code, stdout, stderr := rs.batch(t, first); code != ExitOK || !strings.Contains(stdout, `"invoice":"ID-A","outcome":"skipped"`) {
		t.Errorf("first batch again: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestBatchRefundID104OnAFirstSend (issue 23, defect 3): a 104 answered to
// the first send of a batch line's id (the id is another refund's, made
// where this journal does not see) is never read as "made": the line is
// a duplicate that refunded nothing, and a batch run again says so again
// rather than skipping it.
func TestBatchRefundID104OnAFirstSend(t *testing.T) {
	rs := newRefundSandbox(t)
	rs.pay(t, "ID-E", "150.00")
	rs.pay(t, "ID-F", "150.00")
	elsewhere := &refundSandbox{baseURL: rs.baseURL, home: t.TempDir()}
	if code, _, stderr := elsewhere.batch(t, `{"invoice":"ID-E","amount":"10.00","id":"desk-3"}`+"\n"); code != ExitOK {
		t.Fatalf("the refund made elsewhere: exit %d\n%s", code, stderr)
	}
	for run := range 2 {
		code, stdout, stderr := rs.batch(t, `{"invoice":"ID-F","amount":"20.00","id":"desk-3"}`+"\n")
		if code != ExitDuplicate || !strings.Contains(stdout, `"invoice":"ID-F","outcome":"duplicate","status_code":104`) ||
			!strings.Contains(stdout, "from a refund this journal does not record") {
			t.Errorf("run %d: exit %d, want 6 with the line a duplicate\n%s\n%s", run+1, code, stdout, stderr)
		}
	}
	if total, _ := rs.status(t, "ID-F"); !total.IsZero() {
		t.Errorf("ID-F shows %s refunded", total)
	}
}

// writeProfiles writes a config file with the profiles given, each with
// the sandbox's account.
func (rs *refundSandbox) writeProfiles(t *testing.T, names ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("profiles:\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %s:\n    base_url: %s\n    app_id: %s\n    app_secret: %s\n    merchant_key: %s\n",
			name, rs.baseURL, sandbox.AppID, sandbox.AppSecret, sandbox.MerchantKey)
	}
	dir := filepath.Join(rs.home, "config", "paycli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRefundScopeIsTheAccount (issue 23, defect 4): the same gateway
// account under a second profile name does not re-send a batch, and its
// refund of unknown outcome blocks a refund under the other name.
func TestRefundScopeIsTheAccount(t *testing.T) {
	rs := newRefundSandbox(t, "reset=after")
	rs.writeProfiles(t, "desk", "desk-copy")
	rs.pay(t, "PR-1", "150.00")
	rs.pay(t, "PR-2", "150.00")
	// The unknown refund first: its connection is cut after it was made.
	if code, _, stderr := rs.run(t, "refund", "--invoice", "PR-2", "--amount", "5.00", "--yes", "--profile", "desk"); code != ExitOutcomeUnknown {
		t.Fatalf("the refund whose answer is lost: exit %d\n%s", code, stderr)
	}
	lines := `{"invoice":"PR-1","amount":"10.00"}` + "\n"
	if code, _, stderr := rs.batch(t, lines, "--profile", "desk"); code != ExitOK {
		t.Fatalf("batch as desk: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := rs.batch(t, lines, "--profile", "desk-copy")
	if code != ExitOK || !strings.Contains(stdout, `"invoice":"PR-1","outcome":"skipped"`) {
		t.Errorf("the same batch as desk-copy: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = rs.run(t, "refund", "--invoice", "PR-2", "--amount", "5.00", "--yes", "--profile", "desk-copy")
	if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") {
		t.Errorf("a refund as desk-copy of the invoice desk left unknown: exit %d\n%s", code, stderr)
	}
	if total, _ := rs.status(t, "PR-1"); !total.Equal(decimal.RequireFromString("10")) {
		t.Errorf("PR-1 shows %s refunded, want 10.00", total)
	}
	if n := rs.refunds.Load(); n != 2 {
		t.Errorf("%d refund requests reached the gateway, want 2", n)
	}
}
