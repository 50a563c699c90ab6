package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// refundSandbox is an in-process sandbox whose refund requests get the
// faults faults hands out in turn (then none), with one home shared by
// every run: one journal, as on a support desk's machine.
type refundSandbox struct {
	baseURL string
	home    string
	// refunds counts the refund requests that reached the sandbox.
	refunds atomic.Int32
	// gate, when set, is called with the number of each refund request
	// (from 1), its body read, before the sandbox handles it: the gateway
	// still working on it while gate has not returned.
	gate    atomic.Pointer[func(n int32)]
	arrived atomic.Int32
	// gatedPaths are the endpoints gate holds (by the end of their path):
	// refunds, unless told.
	gatedPaths []string
	// journalURL, when set, is the desk's shared journal its runs use
	// (PAYCLI_JOURNAL) instead of the home's journal file.
	journalURL string
}

func newRefundSandbox(t *testing.T, faults ...string) *refundSandbox {
	t.Helper()
	rs := &refundSandbox{home: t.TempDir(), gatedPaths: []string{"/api/refund"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var next atomic.Int32
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Wrap: rs.gated, Gateway: sandbox.Options{Now: time.Now,
		Faults: true,
		PickFault: func(r *http.Request) string {
			if !strings.HasSuffix(r.URL.Path, "/api/refund") {
				return ""
			}
			rs.refunds.Add(1)
			if i := int(next.Add(1)) - 1; i < len(faults) {
				return faults[i]
			}
			return ""
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	rs.baseURL = srv.BaseURL
	return rs
}

// gated holds each request to rs.gatedPaths, its body read, in rs.gate.
func (rs *refundSandbox) gated(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slices.ContainsFunc(rs.gatedPaths, func(p string) bool { return strings.HasSuffix(r.URL.Path, p) }) {
			n := rs.arrived.Add(1)
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if gate := rs.gate.Load(); gate != nil {
				(*gate)(n)
			}
		}
		h.ServeHTTP(w, r)
	})
}

// env is the environment of a paycli run against the sandbox in the
// shared home.
func (rs *refundSandbox) env() map[string]string {
	return map[string]string{
		"HOME": rs.home, "XDG_CONFIG_HOME": filepath.Join(rs.home, "config"), "XDG_CACHE_HOME": filepath.Join(rs.home, "cache"),
		"XDG_STATE_HOME": filepath.Join(rs.home, "state"), "PAYCLI_BASE_URL": rs.baseURL, "PAYCLI_APP_ID": sandbox.AppID,
		"PAYCLI_APP_SECRET": sandbox.AppSecret, "PAYCLI_MERCHANT_KEY": sandbox.MerchantKey, "PAYCLI_JOURNAL": rs.journalURL,
	}
}

// run runs paycli against the sandbox in the shared home.
func (rs *refundSandbox) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	env := rs.env()
	ios, _, out, errOut := iostreams.Test()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = Run(ctx, append(args, "--timeout", "10s"), ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, out.String(), errOut.String()
}

func (rs *refundSandbox) journal(t *testing.T) []journal.Attempt {
	t.Helper()
	attempts, skipped, err := journal.Read(filepath.Join(rs.home, "state", "paycli", journal.FileName))
	if err != nil || skipped != 0 {
		t.Fatalf("journal: %d bad lines, %v", skipped, err)
	}
	return attempts
}

// age moves every time in the journal back by d, as if its attempts had
// been made d earlier: their requests are then long over.
func (rs *refundSandbox) age(t *testing.T, d time.Duration) {
	t.Helper()
	path := filepath.Join(rs.home, "state", "paycli", journal.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e journal.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		e.Time = e.Time.Add(-d)
		if !e.Deadline.IsZero() {
			e.Deadline = e.Deadline.Add(-d)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// pay makes a 150.00 TRY sale of invoice.
func (rs *refundSandbox) pay(t *testing.T, invoice, amount string) {
	t.Helper()
	code, _, stderr := rs.run(t, "walletpay", "--invoice", invoice, "--token", sandboxWalletToken(t, amount),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes")
	if code != ExitOK {
		t.Fatalf("walletpay: exit %d\n%s", code, stderr)
	}
}

// status returns the sale's check status with refund info, as JSON.
func (rs *refundSandbox) status(t *testing.T, invoice string) (total decimal.Decimal, refunds []map[string]any) {
	t.Helper()
	code, stdout, stderr := rs.run(t, "status", "--invoice", invoice, "-o", "json")
	if code != ExitOK {
		t.Fatalf("status: exit %d\n%s", code, stderr)
	}
	var s struct {
		Total   json.Number      `json:"total_refunded_amount"`
		Refunds []map[string]any `json:"refund_info"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("status: %v\n%s", err, stdout)
	}
	return decimal.RequireFromString(s.Total.String()), s.Refunds
}

// TestRefundRetryAfterDrop: a refund whose connection drops after the
// sandbox made it exits 7 with the --retry line; a new refund of that
// invoice is refused until then (exit 2); --retry re-sends the same
// refund_transaction_id, which the sandbox answers 104 (exit 6), which
// settles nothing (issue 39); status, listing it, settles it; the sale
// shows one refund, never two; then the invoice can be refunded again.
func TestRefundRetryAfterDrop(t *testing.T) {
	for _, fault := range []string{"reset=after", "truncate=10"} {
		t.Run(fault, func(t *testing.T) {
			rs := newRefundSandbox(t, fault)
			rs.pay(t, "RD-1", "150.00")
			code, _, stderr := rs.run(t, "refund", "--invoice", "RD-1", "--amount", "50.00", "--yes")
			if code != ExitOutcomeUnknown {
				t.Fatalf("exit %d, want 7\n%s", code, stderr)
			}
			attempts := rs.journal(t)
			first := attempts[len(attempts)-1]
			ref := first.Intent.Ref
			if first.Intent.Kind != "refund" || !strings.HasPrefix(ref, "RF") || first.Class() != journal.Unknown {
				t.Fatalf("journal: %+v", first)
			}
			retry := "paycli refund --retry " + ref + " --yes"
			if !strings.Contains(stderr, retry) {
				t.Errorf("stderr does not name %q:\n%s", retry, stderr)
			}

			code, _, stderr = rs.run(t, "refund", "--invoice", "RD-1", "--amount", "10.00", "--yes")
			if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") || !strings.Contains(stderr, retry) {
				t.Errorf("a new refund while one is unknown: exit %d\n%s", code, stderr)
			}
			if n := rs.refunds.Load(); n != 1 {
				t.Fatalf("%d refund requests reached the sandbox, want 1", n)
			}

			// Issue 39: the 104 says the id is the gateway's, made or
			// queued; it settles nothing, and says to run status.
			code, _, stderr = rs.run(t, "refund", "--retry", ref, "--yes")
			if code != ExitDuplicate || !strings.Contains(stderr, "made or is queued for approval") || !strings.Contains(stderr, "paycli status --invoice RD-1") {
				t.Errorf("--retry: exit %d, want 6\n%s", code, stderr)
			}
			attempts = rs.journal(t)
			last := attempts[len(attempts)-1]
			if last.Intent.Ref != ref || last.Intent.Amount != "50.00" || last.Class() != journal.Duplicate {
				t.Errorf("the retry's journal lines: %+v %+v", last.Intent, last.Outcome)
			}
			if code, _, stderr = rs.run(t, "refund", "--invoice", "RD-1", "--amount", "10.00", "--yes"); code != ExitUsage {
				t.Errorf("a new refund after the 104: exit %d, want 2\n%s", code, stderr)
			}
			total, refunds := rs.status(t, "RD-1") // lists the refund: settles the first
			if !total.Equal(decimal.RequireFromString("50")) || len(refunds) != 1 || refunds[0]["refund_transaction_id"] != ref {
				t.Errorf("the sale shows %s refunded in %v", total, refunds)
			}

			// Resolved: --retry again is refused, a new refund goes through.
			if code, _, stderr = rs.run(t, "refund", "--retry", ref, "--yes"); code != ExitUsage || !strings.Contains(stderr, "is known") {
				t.Errorf("a second --retry: exit %d\n%s", code, stderr)
			}
			if code, _, stderr = rs.run(t, "refund", "--invoice", "RD-1", "--amount", "10.00", "--yes"); code != ExitOK {
				t.Errorf("a new refund after the retry: exit %d\n%s", code, stderr)
			}
			if total, _ := rs.status(t, "RD-1"); !total.Equal(decimal.RequireFromString("60")) {
				t.Errorf("refunded %s, want 60.00", total)
			}
		})
	}
}

// TestRefundRetryNotSent: when the drop came before the sandbox handled
// the refund, --retry makes it, once.
func TestRefundRetryNotSent(t *testing.T) {
	rs := newRefundSandbox(t, "status=500,body=html")
	rs.pay(t, "RD-2", "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RD-2", "--full", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7\n%s", code, stderr)
	}
	attempts := rs.journal(t)
	ref := attempts[len(attempts)-1].Intent.Ref
	// --retry names the attempt as well as its refund_transaction_id.
	if code, stdout, stderr := rs.run(t, "refund", "--retry", attempts[len(attempts)-1].Intent.Attempt, "--yes", "-o", "json"); code != ExitOK ||
		!strings.Contains(stdout, `"refund_transaction_id": "`+ref+`"`) || !strings.Contains(stdout, `"amount": 150.00`) {
		t.Fatalf("--retry: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if total, refunds := rs.status(t, "RD-2"); !total.Equal(decimal.RequireFromString("150")) || len(refunds) != 1 {
		t.Errorf("the sale shows %s refunded in %d refunds", total, len(refunds))
	}
}

// TestRefundRetryRefusals: --retry re-sends only a refund of unknown
// outcome, of this profile and gateway.
func TestRefundRetryRefusals(t *testing.T) {
	rs := newRefundSandbox(t)
	rs.pay(t, "RD-3", "20.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RD-3", "--amount", "5", "--yes"); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	attempts := rs.journal(t)
	for _, c := range []struct{ name, want string }{
		{attempts[0].Intent.Attempt, "is a walletpay, not a refund"},
		{attempts[1].Intent.Ref, "is known (succeeded)"},
		{"RF000", "has no attempt or refund"},
	} {
		if code, _, stderr := rs.run(t, "refund", "--retry", c.name, "--yes"); code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("--retry %s: exit %d, want 2 saying %q\n%s", c.name, code, c.want, stderr)
		}
	}
	if code, _, stderr := rs.run(t, "refund", "--retry", attempts[1].Intent.Ref, "--yes", "--profile", "other"); code != ExitUsage {
		t.Errorf("--retry on another profile: exit %d\n%s", code, stderr)
	}
	if n := rs.refunds.Load(); n != 1 {
		t.Errorf("%d refund requests reached the sandbox, want 1", n)
	}
}

// TestRefundRace: 20 refunds of 10.00 from one 150.00 sale, at once, each
// through app.Run with its own journal writer: at most 15 succeed, the
// sale's refunded total is 10.00 × successes, never above 150.00, and the
// others exit 4 (refused locally or by the gateway's 49) or 6.
func TestRefundRace(t *testing.T) {
	rs := newRefundSandbox(t)
	rs.pay(t, "RACE-1", "150.00")
	codes := make([]int, 20)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i], _, _ = rs.run(t, "refund", "--invoice", "RACE-1", "--amount", "10.00", "--yes")
		})
	}
	wg.Wait()
	ok := 0
	for i, c := range codes {
		switch c {
		case ExitOK:
			ok++
		case ExitRejected, ExitDuplicate:
		default:
			t.Errorf("refund %d: exit %d", i, c)
		}
	}
	total, refunds := rs.status(t, "RACE-1")
	if ok > 15 || ok == 0 || !total.Equal(decimal.NewFromInt(int64(10*ok))) || len(refunds) != ok {
		t.Errorf("%d refunds succeeded; the sale shows %s refunded in %d refunds", ok, total, len(refunds))
	}
	succeeded := 0
	for _, a := range rs.journal(t) {
		if a.Intent.Kind == "refund" && a.Class() == journal.Succeeded {
			succeeded++
		}
	}
	if succeeded != ok {
		t.Errorf("the journal holds %d succeeded refunds, the exit codes say %d", succeeded, ok)
	}
	t.Logf("%d of 20 refunds succeeded, %s refunded", ok, total)
}

// TestRefundReconcile: an unknown refund is settled by check status's
// refund_info: `paycli journal reconcile` records a refund the gateway
// lists as succeeded, and one it does not list as not_found once its
// request is over — before that, the gateway may still be making it, and
// reconcile says so and records nothing (issue 23, defect 2); either way
// the invoice can be refunded again, and --retry refuses a settled refund.
func TestRefundReconcile(t *testing.T) {
	rs := newRefundSandbox(t, "reset=after", "status=500,body=html")
	rs.pay(t, "RC-1", "150.00")
	rs.pay(t, "RC-2", "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RC-1", "--amount", "40.00", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("RC-1: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RC-2", "--amount", "40.00", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("RC-2: exit %d\n%s", code, stderr)
	}
	attempts := rs.journal(t)
	ref1, ref2 := attempts[2].Intent.Ref, attempts[3].Intent.Ref

	code, stdout, stderr := rs.run(t, "journal", "reconcile", "-o", "json")
	if code != ExitOutcomeUnknown || !strings.Contains(stdout, "refund "+ref1+": succeeded") ||
		!strings.Contains(stdout, "refund "+ref2+": unknown: may still be in flight, run again after ") {
		t.Fatalf("journal reconcile while RC-2's request may still be processed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if a := rs.journal(t)[3]; a.Class() != journal.Unknown || a.Reconciled != nil {
		t.Fatalf("RC-2's refund was settled while it may still be made: %s, %+v", a.Class(), a.Reconciled)
	}
	// An hour later the sandbox still does not list RC-2's refund: that is
	// never final (issue 39), nothing is recorded, and reconcile names the
	// re-send that settles it.
	rs.age(t, time.Hour)
	code, stdout, stderr = rs.run(t, "journal", "reconcile", "-o", "json")
	if code != ExitOutcomeUnknown || !strings.Contains(stdout, `"invoice": "RC-2"`) ||
		!strings.Contains(stdout, "refund "+ref2+": unknown: check status does not find it") || !strings.Contains(stdout, "paycli refund --retry "+ref2) {
		t.Fatalf("journal reconcile an hour later: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if a := rs.journal(t)[3]; a.Class() != journal.Unknown || a.Reconciled != nil {
		t.Fatalf("RC-2's refund after reconcile did not find it: %s, %+v", a.Class(), a.Reconciled)
	}
	if code, _, stderr = rs.run(t, "refund", "--retry", ref2, "--yes"); code != ExitOK {
		t.Fatalf("--retry of RC-2's refund: exit %d\n%s", code, stderr)
	}
	if open := journal.UnresolvedAll(rs.journal(t)); len(open) != 0 {
		t.Errorf("unresolved after RC-2's retry was made: %+v", open)
	}
	if a := rs.journal(t)[2]; a.Intent.Ref != ref1 || a.Class() != journal.Succeeded {
		t.Errorf("refund %s is %s in the journal, want succeeded", a.Intent.Ref, a.Class())
	}
	if code, _, stderr = rs.run(t, "refund", "--retry", ref1, "--yes"); code != ExitUsage || !strings.Contains(stderr, "is known (succeeded)") {
		t.Errorf("--retry of a settled refund: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = rs.run(t, "refund", "--invoice", "RC-2", "--amount", "40.00", "--yes"); code != ExitOK {
		t.Errorf("a new refund of RC-2: exit %d\n%s", code, stderr)
	}
	if total, refunds := rs.status(t, "RC-1"); !total.Equal(decimal.RequireFromString("40")) || len(refunds) != 1 {
		t.Errorf("RC-1 shows %s refunded in %d refunds", total, len(refunds))
	}
}

// TestRefundStatusSettles: `paycli status` settles an unknown refund of
// the invoice it checks.
func TestRefundStatusSettles(t *testing.T) {
	rs := newRefundSandbox(t, "truncate=5")
	rs.pay(t, "RS-1", "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RS-1", "--full", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	_, _, stderr := rs.run(t, "status", "--invoice", "RS-1")
	if !strings.Contains(stderr, "Recorded in the journal: refund RF") || !strings.Contains(stderr, " of invoice RS-1 succeeded") {
		t.Errorf("status did not record the refund:\n%s", stderr)
	}
	if a := rs.journal(t)[1]; a.Class() != journal.Succeeded || !a.ReconciledClass() {
		t.Errorf("the refund is %s in the journal", a.Class())
	}
	if code, _, stderr := rs.run(t, "refund", "--invoice", "RS-1", "--amount", "1", "--yes"); code != ExitRejected {
		t.Errorf("a refund of the fully refunded sale: exit %d\n%s", code, stderr)
	}
}

// TestRefundTokenRefused: an HTTP 401 to the refund is refused credentials
// (exit 3): nothing was processed, the refund is not repeated, and it can
// simply be run again.
func TestRefundTokenRefused(t *testing.T) {
	rs := newRefundSandbox(t, "status=401")
	rs.pay(t, "RT-1", "150.00")
	code, _, stderr := rs.run(t, "refund", "--invoice", "RT-1", "--amount", "10.00", "--yes")
	if code != ExitAuth || rs.refunds.Load() != 1 {
		t.Fatalf("exit %d, %d refund requests; want 3 and 1\n%s", code, rs.refunds.Load(), stderr)
	}
	if code, _, stderr = rs.run(t, "refund", "--invoice", "RT-1", "--amount", "10.00", "--yes"); code != ExitOK {
		t.Errorf("run again: exit %d\n%s", code, stderr)
	}
	if total, _ := rs.status(t, "RT-1"); !total.Equal(decimal.RequireFromString("10")) {
		t.Errorf("refunded %s, want 10.00", total)
	}
}
