package journal

import (
	"path/filepath"
	"testing"
	"time"
)

const (
	liveURL    = "https://app.gw.example/ccpayment"
	sandboxURL = "http://127.0.0.1:4010/ccpayment"
)

// scoped is an attempt of kind walletpay made on profile at baseURL with
// appID; an empty appID makes a legacy attempt (no gateway identity).
func scoped(id, invoice, profile, baseURL, appID string) Entry {
	e := intent(id, invoice)
	e.Kind, e.Profile, e.BaseURL = "walletpay", profile, baseURL
	if appID != "" {
		e.Gateway = Identity(baseURL, appID)
	}
	return e
}

func finished(e Entry, class string) Entry {
	e.Type, e.Outcome = TypeOutcome, class
	return e
}

func writeEntries(t *testing.T, entries ...Entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range entries {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func decisions(t *testing.T, path string, scope Scope, invoices ...string) map[string]ResumeDecision {
	t.Helper()
	attempts, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	states := ByInvoice(attempts, scope)
	out := map[string]ResumeDecision{}
	for _, inv := range invoices {
		out[inv] = states[inv].Resume()
	}
	return out
}

// TestResumeMatchesGatewayIdentity: history from another base URL or
// app_id, or from the --sandbox emulator under the profile name
// "sandbox", is never a reason to skip.
func TestResumeMatchesGatewayIdentity(t *testing.T) {
	a := scoped("a1", "PAID-ELSEWHERE", "live", "https://old.gw.example/ccpayment", "app")
	b := scoped("a2", "OTHER-APP", "live", liveURL, "other-app")
	c := scoped("a3", "SANDBOX-PAID", "sandbox", sandboxURL, "sandbox-app")
	d := scoped("a4", "HERE", "live", liveURL, "app")
	path := writeEntries(t, a, finished(a, Succeeded), b, finished(b, Succeeded), c, finished(c, Succeeded),
		d, finished(d, Succeeded))
	got := decisions(t, path, NewScope("walletpay", "live", liveURL, "app"), "PAID-ELSEWHERE", "OTHER-APP", "HERE")
	if got["PAID-ELSEWHERE"] != ResumeSend || got["OTHER-APP"] != ResumeSend || got["HERE"] != ResumeSkip {
		t.Errorf("live: %v; want only HERE skipped", got)
	}
	// A real profile named "sandbox" on a real gateway.
	got = decisions(t, path, NewScope("walletpay", "sandbox", liveURL, "app"), "SANDBOX-PAID")
	if got["SANDBOX-PAID"] != ResumeSend {
		t.Errorf("real profile named sandbox inherits the --sandbox history: %v", got)
	}
	// Another kind on the same account does not count either.
	got = decisions(t, path, NewScope("refund", "live", liveURL, "app"), "HERE")
	if got["HERE"] != ResumeSend {
		t.Errorf("refund scope: %v", got)
	}
	// The same account spelled differently is the same account.
	for _, spelled := range []string{"HTTPS://user:secret@APP.gw.example/ccpayment/", "https://user:••••@app.gw.example/ccpayment"} {
		got = decisions(t, path, NewScope("walletpay", "live", spelled, "app"), "HERE")
		if got["HERE"] != ResumeSkip {
			t.Errorf("canonical base URL %s: %v", spelled, got)
		}
	}
}

// TestResumeLegacyLines: lines without a gateway identity never make an
// invoice skipped, but an unknown one at the same profile and base URL
// still blocks a re-send.
func TestResumeLegacyLines(t *testing.T) {
	paid := scoped("l1", "LEGACY-PAID", "live", liveURL, "")
	lost := scoped("l2", "LEGACY-UNKNOWN", "live", liveURL, "")
	away := scoped("l3", "LEGACY-UNKNOWN-ELSEWHERE", "live", "https://old.gw.example/ccpayment", "")
	sbx := scoped("l4", "LEGACY-SANDBOX", "sandbox", sandboxURL, "")
	path := writeEntries(t, paid, finished(paid, Succeeded), lost, away, sbx)
	got := decisions(t, path, NewScope("walletpay", "live", liveURL, "app"),
		"LEGACY-PAID", "LEGACY-UNKNOWN", "LEGACY-UNKNOWN-ELSEWHERE")
	want := map[string]ResumeDecision{"LEGACY-PAID": ResumeSend, "LEGACY-UNKNOWN": ResumeUnknown, "LEGACY-UNKNOWN-ELSEWHERE": ResumeSend}
	for inv, w := range want {
		if got[inv] != w {
			t.Errorf("%s: %v, want %v", inv, got[inv], w)
		}
	}
	if got := decisions(t, path, NewScope("walletpay", "sandbox", liveURL, "app"), "LEGACY-SANDBOX"); got["LEGACY-SANDBOX"] != ResumeSend {
		t.Errorf("real profile named sandbox blocked by a legacy --sandbox attempt: %v", got)
	}
}

// TestResumeActsOnReconciliation: reconciled-paid is skipped with the
// order number learned, still pending stays unknown, and so does a
// not_found an older paycli recorded from check status (issue 39: never
// final); one the desk lead settled not made is sendable again.
func TestResumeActsOnReconciliation(t *testing.T) {
	scope := NewScope("walletpay", "live", liveURL, "app")
	var entries []Entry
	for _, inv := range []string{"PAID", "NOT-FOUND", "PENDING", "FAILED", "ABANDONED"} {
		entries = append(entries, scoped("id-"+inv, inv, "live", liveURL, "app"))
	}
	path := writeEntries(t, entries...)
	code := func(c int) *int { return &c }
	for inv, l := range map[string]Learned{
		"PAID":      {Outcome: Succeeded, StatusCode: code(100), OrderNo: "VP9", TransactionStatus: "Completed"},
		"NOT-FOUND": {Outcome: NotFound, StatusCode: code(31)},
		"PENDING":   {Outcome: Pending, StatusCode: code(69)},
		"FAILED":    {Outcome: Declined, StatusCode: code(100), TransactionStatus: "Failed"},
	} {
		got, err := recordLearned(t, path, scope, inv, l, ViaStatus, t0)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: recorded %d, %v", inv, len(got), err)
		}
	}
	if got, err := recordLearned(t, path, scope, "ABANDONED", Learned{Outcome: NotFound}, ViaSettle, t0); err != nil || len(got) != 1 {
		t.Fatalf("ABANDONED: recorded %d, %v", len(got), err)
	}
	got := decisions(t, path, scope, "PAID", "NOT-FOUND", "PENDING", "FAILED", "ABANDONED")
	want := map[string]ResumeDecision{"PAID": ResumeSkip, "NOT-FOUND": ResumeUnknown, "PENDING": ResumeUnknown, "FAILED": ResumeSend, "ABANDONED": ResumeSend}
	for inv, w := range want {
		if got[inv] != w {
			t.Errorf("%s: %v, want %v", inv, got[inv], w)
		}
	}
	attempts, _, _ := Read(path)
	s := ByInvoice(attempts, scope)["PAID"]
	if s.Success.OrderNo() != "VP9" || !s.Success.ReconciledClass() || s.Success.Reconciled.Via != ViaStatus {
		t.Errorf("PAID: %+v", s.Success)
	}
	// Settled attempts are not reconciled again; another scope's are not
	// touched.
	if got, err := recordLearned(t, path, scope, "PAID", Learned{Outcome: NotFound}, ViaReconcile, t0); err != nil || len(got) != 0 {
		t.Errorf("reconciled a settled attempt again: %d, %v", len(got), err)
	}
	other := NewScope("walletpay", "live", liveURL, "other-app")
	if got, err := recordLearned(t, path, other, "PENDING", Learned{Outcome: Succeeded}, ViaReconcile, t0); err != nil || len(got) != 0 {
		t.Errorf("another identity reconciled the attempt: %d, %v", len(got), err)
	}
}

// TestReconcileLegacyUnknown: a legacy unknown attempt that blocks a batch
// can be reconciled from the scope that it blocks.
func TestReconcileLegacyUnknown(t *testing.T) {
	scope := NewScope("walletpay", "live", liveURL, "app")
	path := writeEntries(t, scoped("l1", "OLD", "live", liveURL, ""))
	if got := decisions(t, path, scope, "OLD"); got["OLD"] != ResumeUnknown {
		t.Fatalf("legacy unknown: %v", got)
	}
	if got, err := recordLearned(t, path, scope, "OLD", Learned{Outcome: Declined}, ViaReconcile, t0); err != nil || len(got) != 1 {
		t.Fatalf("recorded %d, %v", len(got), err)
	}
	if got := decisions(t, path, scope, "OLD"); got["OLD"] != ResumeSend {
		t.Errorf("after reconciliation: %v", got)
	}
}

// TestSandboxScope: a sandbox scope matches its own identity whatever
// port the emulator had, legacy --sandbox unknowns (at a loopback address)
// block a sandbox re-send, and a real profile named "sandbox" shares none
// of it.
func TestSandboxScope(t *testing.T) {
	identity := Identity("sandbox:/home/ada/.local/state/paycli/sandbox", "sandbox-app")
	sbx := ScopeFor("walletpay", "sandbox", "http://127.0.0.1:4010/ccpayment", identity, true)
	paid := scoped("s1", "SBX-PAID", "sandbox", "http://127.0.0.1:4010/ccpayment", "")
	paid.Gateway = identity
	legacy := scoped("s2", "SBX-LEGACY", "sandbox", "http://127.0.0.1:4999/ccpayment", "")
	path := writeEntries(t, paid, finished(paid, Succeeded), legacy)
	got := decisions(t, path, sbx, "SBX-PAID", "SBX-LEGACY")
	if got["SBX-PAID"] != ResumeSkip || got["SBX-LEGACY"] != ResumeUnknown {
		t.Errorf("sandbox: %v", got)
	}
	real := ScopeFor("walletpay", "sandbox", liveURL, Identity(liveURL, "app"), false)
	got = decisions(t, path, real, "SBX-PAID", "SBX-LEGACY")
	if got["SBX-PAID"] != ResumeSend || got["SBX-LEGACY"] != ResumeSend {
		t.Errorf("real profile named sandbox: %v", got)
	}
}

// recordLearned appends a reconcile line recording l for each attempt of
// scope for invoice that is unresolved, as status and reconcile do, and
// returns those attempts.
func recordLearned(t *testing.T, path string, scope Scope, invoice string, l Learned, via string, now time.Time) ([]Attempt, error) {
	t.Helper()
	attempts, _, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	open := Unresolved(attempts, scope, invoice)
	j, err := Open(path)
	if err != nil {
		return nil, err
	}
	for _, a := range open {
		if err := j.Append(Reconciliation(a, l, via, now)); err != nil {
			return nil, err
		}
	}
	return open, j.Close()
}

// TestMadeInSandbox: a line made in sandbox mode carries the sandbox's
// identity, whatever port served it; a legacy line (no identity) counts
// when it was made at a loopback address, as a sandbox scope counts it; a
// real profile named "sandbox" is not the sandbox.
func TestMadeInSandbox(t *testing.T) {
	identity := Identity("sandbox:/home/ada/.local/state/paycli/sandbox", "sandbox-app")
	for _, tt := range []struct {
		gateway, baseURL string
		want             bool
	}{
		{identity, "http://127.0.0.1:4010/ccpayment", true},
		{identity, "http://127.0.0.1:4999/ccpayment", true},
		{"", "http://127.0.0.1:4999/ccpayment", true},
		{"", "http://localhost:4999/ccpayment", true},
		{Identity(liveURL, "app"), liveURL, false},
		{Identity("http://127.0.0.1:8080/ccpayment", "app"), "http://127.0.0.1:8080/ccpayment", false},
		{"", liveURL, false},
	} {
		e := Entry{Profile: "sandbox", Gateway: tt.gateway, BaseURL: tt.baseURL}
		if got := e.MadeInSandbox(identity); got != tt.want {
			t.Errorf("gateway %q at %s: %v, want %v", tt.gateway, tt.baseURL, got, tt.want)
		}
	}
}
