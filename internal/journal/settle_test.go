package journal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// answer is a check-status answer for invoice INV-1 with the fields given
// (JSON, without braces) beside status_code 100.
func answer(t *testing.T, fields string) *gateway.CheckStatusResult {
	t.Helper()
	var r gateway.CheckStatusResult
	if err := json.Unmarshal([]byte(`{"status_code":100,"status_description":"ok","order_id":"VP1"`+fields+`}`), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestUnresolved is the one rule for an attempt whose outcome is unknown
// and still to be settled: what `paycli journal` lists, `journal
// reconcile` checks, and the guards refuse to go past.
func TestUnresolved(t *testing.T) {
	id := Identity(liveURL, "app")
	at := func(attempt, invoice, kind, ref string) Entry {
		e := intent(attempt, invoice)
		e.Kind, e.Ref, e.Gateway, e.Profile, e.BaseURL = kind, ref, id, "live", liveURL
		return e
	}
	out := func(e Entry, class string, code int) Entry {
		o := e
		o.Type, o.Outcome = TypeOutcome, class
		if code != 0 {
			o.StatusCode = &code
		}
		return o
	}
	reconciled := func(e Entry, class string) Entry {
		r := e
		r.Type, r.Outcome, r.Via = TypeReconcile, class, ViaReconcile
		return r
	}
	byLead := func(e Entry, class string) Entry {
		r := reconciled(e, class)
		r.Via, r.Reason = ViaSettle, "the gateway's support says it was never made"
		return r
	}
	lost := at("s1", "SALE-DUP", "walletpay", "")
	dup := at("s2", "SALE-DUP", "walletpay", "")
	lost2 := at("s3", "SALE-PAID", "walletpay", "")
	paid := at("s4", "SALE-PAID", "walletpay", "")
	r1 := at("r1", "REF-1", "refund", "RF1")
	r1retry := at("r2", "REF-1", "refund", "RF1")
	r3 := at("r3", "REF-2", "refund", "RF3")
	r4 := at("r4", "REF-3", "refund", "RF4")
	r4retry := at("r5", "REF-3", "refund", "RF4")
	r6 := at("r6", "REF-4", "refund", "RF6")
	r7 := at("r7", "REF-4", "refund", "RF7") // another refund of the invoice
	r8 := at("r8", "REF-5", "refund", "RF8")
	r8retry := at("r9", "REF-5", "refund", "RF8")
	r10 := at("r10", "REF-6", "refund", "RF10")
	r10retry := at("r11", "REF-6", "refund", "RF10")
	r12 := at("r12", "REF-7", "refund", "RF12")
	r12retry := at("r13", "REF-7", "refund", "RF12")
	r14 := at("r14", "REF-8", "refund", "RF14")
	r14retry := at("r15", "REF-8", "refund", "RF14")
	r16 := at("r16", "REF-9", "refund", "RF16")
	r16retry := at("r17", "REF-9", "refund", "RF16")
	r18 := at("r18", "REF-10", "refund", "RF18")
	r19 := at("r19", "REF-11", "refund", "RF19")
	r20 := at("r20", "REF-12", "refund", "RF20")
	lost3 := at("s5", "SALE-DECLINED", "walletpay", "")
	declined := at("s6", "SALE-DECLINED", "walletpay", "")
	elsewhere := at("e1", "SALE-DUP", "walletpay", "")
	elsewhere.Gateway = Identity("https://other.example/ccpayment", "app")
	// Lines from before lines carried an identity: an account is a profile
	// and a base URL.
	legacy := func(attempt, profile, baseURL string) Entry {
		e := at(attempt, "LEGACY-1", "walletpay", "")
		e.Gateway, e.Profile, e.BaseURL = "", profile, baseURL
		return e
	}
	l1 := legacy("l1", "live", liveURL)
	l2 := legacy("l2", "other", liveURL)                            // another profile: another account
	l3 := legacy("l3", "live", "https://old.gw.example/ccpayment")  // another gateway
	l4 := at("l4", "LEGACY-1", "walletpay", "")                     // with an identity: not known to be the same
	l5 := legacy("l5", "live", "https://APP.gw.example/ccpayment/") // the same, spelled otherwise
	l6 := legacy("l6", "live", liveURL)
	path := writeEntries(t,
		lost, dup, out(dup, Duplicate, 3), // a later duplicate: the first reached the gateway
		lost2, paid, out(paid, Succeeded, 100), // a later success: the first never took the invoice
		r1, out(r1, Unknown, 0), r1retry, out(r1retry, Duplicate, 104), // its --retry answered 104: the ref may be queued; tells nothing
		r3, reconciled(r3, Succeeded), // settled by reconcile
		r4, out(r4, Unknown, 0), r4retry, out(r4retry, NotSent, 0), // the retry never left: still unknown
		r6, out(r6, Unknown, 0), r7, out(r7, Succeeded, 100), // another refund tells nothing of this one
		r8, out(r8, Unknown, 0), r8retry, out(r8retry, Succeeded, 100), // its --retry made it
		r10, out(r10, Unknown, 0), r10retry, out(r10retry, Declined, 0), // its --retry was declined: tells nothing
		r12, out(r12, Unknown, 0), r12retry, out(r12retry, Rejected, 30), // refused credentials: nothing processed, still unknown
		r14, out(r14, Unknown, 0), r14retry, out(r14retry, Rejected, 110), // refused with a reason: tells nothing
		// Issue 39, defect 1: a re-send refused 49 ("too soon", "more
		// than refundable": what the first refund being made causes).
		r16, out(r16, Unknown, 0), r16retry, out(r16retry, Rejected, 49),
		r18, out(r18, Unknown, 0), reconciled(r18, NotFound), // an older paycli's not_found from check status: open again
		r19, out(r19, Unknown, 0), byLead(r19, NotFound), // the desk lead abandoned it: settled
		r20, out(r20, Queued, 101), byLead(r20, Succeeded), // the lead settled a queued refund made
		lost3, declined, out(declined, Declined, 0), // a later decline tells nothing
		elsewhere, out(elsewhere, Succeeded, 100), // another account's success tells nothing
		l1, l2, out(l2, Succeeded, 100), l3, out(l3, Succeeded, 100), l4, out(l4, Succeeded, 100),
		l5, l6, out(l6, Succeeded, 100), // l6 tells l1's story and l5's
	)
	attempts, _, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kind := range []string{"walletpay", "refund"} {
		for _, a := range Unresolved(attempts, NewScope(kind, "live", liveURL, "app"), "") {
			got = append(got, a.Intent.Attempt)
		}
	}
	if want := "s1 s5 r1 r4 r6 r10 r12 r14 r16 r18"; strings.Join(got, " ") != want {
		t.Errorf("unresolved %v, want %s", got, want)
	}
	var legacyOpen []string
	for _, a := range UnresolvedAll(attempts) {
		if a.Intent.Invoice == "LEGACY-1" {
			legacyOpen = append(legacyOpen, a.Intent.Attempt)
		}
	}
	if len(legacyOpen) != 0 {
		t.Errorf("legacy attempts unresolved: %v, want none", legacyOpen)
	}
	attemptsBefore := func(id string) []Attempt {
		for i, a := range attempts {
			if a.Intent.Attempt == id {
				return attempts[:i+1]
			}
		}
		return nil
	}
	// Before l6 answered, l1 and l5 were still open: l2, l3 and l4 were
	// other accounts' (or not known to be the same).
	legacyOpen = nil
	for _, a := range UnresolvedAll(attemptsBefore("l5")) {
		if a.Intent.Invoice == "LEGACY-1" {
			legacyOpen = append(legacyOpen, a.Intent.Attempt)
		}
	}
	if want := "l1 l5"; strings.Join(legacyOpen, " ") != want {
		t.Errorf("legacy attempts unresolved before l6: %v, want %s", legacyOpen, want)
	}
	// The rule is the same whatever scope reads it, and per invoice.
	var all []string
	for _, a := range UnresolvedAll(attempts) {
		if a.Intent.Invoice != "LEGACY-1" {
			all = append(all, a.Intent.Attempt)
		}
	}
	if want := "s1 r1 r4 r6 r10 r12 r14 r16 r18 s5"; strings.Join(all, " ") != want {
		t.Errorf("unresolved in the whole journal %v, want %s", all, want)
	}
	if got := Unresolved(attempts, NewScope("refund", "live", liveURL, "app"), "REF-4"); len(got) != 1 || got[0].Intent.Attempt != "r6" {
		t.Errorf("REF-4: %v", got)
	}
	for _, a := range attempts {
		switch a.Intent.Attempt {
		case "r18":
			if a.Class() != Unknown || a.SettledByLead() {
				t.Errorf("r18, reconciled not_found by check status: %s (by lead %v), want unknown", a.Class(), a.SettledByLead())
			}
		case "r19", "r20":
			if !a.SettledByLead() || a.Unsettled() {
				t.Errorf("%s, settled by the lead: %s (by lead %v)", a.Intent.Attempt, a.Class(), a.SettledByLead())
			}
		}
	}
	// A resumed batch and a guard see the same.
	states := ByInvoice(attempts, NewScope("walletpay", "live", liveURL, "app"))
	if states["SALE-DUP"].Resume() != ResumeUnknown || states["SALE-PAID"].Resume() != ResumeSkip {
		t.Errorf("resume: SALE-DUP %v, SALE-PAID %v", states["SALE-DUP"].Resume(), states["SALE-PAID"].Resume())
	}
}

// TestScopeIsTheAccountNotTheProfile: the same gateway account under a
// second profile name is the same scope (issue 23, defect 4): its
// successes skip, its unknowns block.
func TestScopeIsTheAccountNotTheProfile(t *testing.T) {
	paid := scoped("p1", "PAID", "desk", liveURL, "app")
	lost := scoped("p2", "LOST", "desk", liveURL, "app")
	path := writeEntries(t, paid, finished(paid, Succeeded), lost)
	got := decisions(t, path, NewScope("walletpay", "desk-copy", liveURL, "app"), "PAID", "LOST")
	if got["PAID"] != ResumeSkip || got["LOST"] != ResumeUnknown {
		t.Errorf("under another profile name: %v", got)
	}
	refund := scoped("p3", "PAID", "desk", liveURL, "app")
	refund.Kind, refund.Ref = "refund", "RF1"
	path = writeEntries(t, refund)
	attempts, _, _ := ReadAll(path)
	if got := Unresolved(attempts, NewScope("refund", "desk-copy", liveURL, "app"), "PAID"); len(got) != 1 {
		t.Errorf("a refund of unknown outcome under another profile name: %v", got)
	}
}
