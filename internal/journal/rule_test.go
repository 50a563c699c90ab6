package journal

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The rule is kind-blind but for the re-send, so these tests name two
// kinds of their own.
const (
	ruleKind  = "refund"
	otherKind = "preauth-capture"
)

// ruleAttempt is an attempt of kind with ref on INV-1, on account "acct",
// left in class (Unknown: no outcome line).
func ruleAttempt(id, kind, ref, class string) Attempt {
	e := intent(id, "INV-1")
	e.Kind, e.Ref, e.Gateway = kind, ref, "acct"
	a := Attempt{Intent: e}
	if class != Unknown {
		out := e
		out.Type, out.Outcome = TypeOutcome, class
		a.Outcome = &out
	}
	return a
}

// TestMayResend: an intent goes past the invoice's unsettled attempts only
// when it re-sends the very attempt they all are: its kind, its ref, and
// none of them queued. An intent with no ref re-sends nothing, even past
// an attempt with no ref of its kind.
func TestMayResend(t *testing.T) {
	retry := ruleAttempt("a2", ruleKind, "RF1", Unknown).Intent
	for _, c := range []struct {
		name     string
		intent   Entry
		blocking []Attempt
		want     bool
	}{
		{"nothing blocks", retry, nil, true},
		{"nothing blocks an intent without a ref", ruleAttempt("a2", ruleKind, "", Unknown).Intent, nil, true},
		{"the same attempt re-sent", retry, []Attempt{ruleAttempt("a1", ruleKind, "RF1", Unknown)}, true},
		{"the same attempt, twice unknown", retry, []Attempt{ruleAttempt("a0", ruleKind, "RF1", Unknown), ruleAttempt("a1", ruleKind, "RF1", Unknown)}, true},
		{"an intent without a ref", ruleAttempt("a2", ruleKind, "", Unknown).Intent, []Attempt{ruleAttempt("a1", ruleKind, "", Unknown)}, false},
		{"another kind with the ref", retry, []Attempt{ruleAttempt("a1", otherKind, "RF1", Unknown)}, false},
		{"another ref of the kind", retry, []Attempt{ruleAttempt("a1", ruleKind, "RF0", Unknown)}, false},
		{"the same attempt queued", retry, []Attempt{ruleAttempt("a1", ruleKind, "RF1", Queued)}, false},
		{"the same attempt and another kind", retry, []Attempt{ruleAttempt("a1", ruleKind, "RF1", Unknown), ruleAttempt("a0", otherKind, "", Unknown)}, false},
	} {
		if got := MayResend(c.intent, c.blocking); got != c.want {
			t.Errorf("%s: MayResend %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFileRefusesPastUnsettled: the file store keeps the rule on its own
// (checkUnsettled), whatever its caller checked: an intent of any kind on
// an invoice whose account holds an unsettled attempt is refused
// (ErrUnsettled, naming the attempt) and not written; the re-send of that
// very attempt, the attempt's own outcome, and intents on another invoice
// or account are written.
func TestFileRefusesPastUnsettled(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		entry   Entry
		refused bool
	}{
		{"a new attempt of its kind", ruleAttempt("a2", ruleKind, "RF2", Unknown).Intent, true},
		{"another kind", ruleAttempt("a2", otherKind, "", Unknown).Intent, true},
		{"its re-send", ruleAttempt("a2", ruleKind, "RF1", Unknown).Intent, false},
		{"its outcome", *ruleAttempt("a1", ruleKind, "RF1", Declined).Outcome, false},
		{"another invoice", moved(ruleAttempt("a2", otherKind, "", Unknown).Intent, "INV-2", "acct"), false},
		{"another account", moved(ruleAttempt("a2", otherKind, "", Unknown).Intent, "INV-1", "other"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, path := fileStore(t)
			if err := f.Append(ctx, ruleAttempt("a1", ruleKind, "RF1", Unknown).Intent); err != nil {
				t.Fatal(err)
			}
			err := f.Append(ctx, c.entry)
			attempts, _, rerr := Read(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			lines := 0
			for _, a := range attempts {
				lines++
				if a.Outcome != nil {
					lines++
				}
			}
			if !c.refused {
				if err != nil || lines != 2 {
					t.Errorf("err %v, %d lines; want the line written", err, lines)
				}
				return
			}
			var ue *UnsettledError
			if !errors.Is(err, ErrUnsettled) || !errors.As(err, &ue) || len(ue.Blocking) != 1 || ue.Blocking[0].Intent.Attempt != "a1" {
				t.Fatalf("err %v, want ErrUnsettled naming a1", err)
			}
			if !strings.Contains(err.Error(), "(a refund, attempt a1)") || lines != 1 {
				t.Errorf("err %q, %d lines; want the refund named and nothing written", err, lines)
			}
		})
	}
}

// moved is e on invoice and account gateway.
func moved(e Entry, invoice, gateway string) Entry {
	e.Invoice, e.Gateway = invoice, gateway
	return e
}
