package moneyop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// kindOp is fakeOp journaled under any kind, with an optional Resend.
type kindOp struct {
	fakeOp
	kind string
}

func (o *kindOp) Kind() string { return o.kind }

// moneyKinds are every kind of money command.
var moneyKinds = []string{"walletpay", "refund", "preauth-capture", "preauth-cancel",
	"complete", "complete-cancel", "api"}

// unsettledStates are the ways an attempt is left unsettled: its process
// killed after it was sent (no outcome line, its lock free), an unknown
// outcome, a refund queued for approval.
var unsettledStates = []string{"killed after sending", journal.Unknown, journal.Queued}

// leaveUnsettled journals an attempt of kind on INV-1 left in state.
func leaveUnsettled(t *testing.T, jpath, kind, state string) {
	t.Helper()
	w, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := journal.Entry{Type: journal.TypeIntent, Kind: kind, Gateway: testIdentity, Attempt: "old-1", Profile: "p",
		Invoice: "INV-1", Amount: "10.00", Currency: "TRY", Ref: "RF-OLD"}
	if err := w.Append(e); err != nil {
		t.Fatal(err)
	}
	if state != "killed after sending" {
		e.Type, e.Outcome = journal.TypeOutcome, state
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryKindBlocksEveryKind: an attempt of any kind on the invoice whose
// outcome is not settled (killed after sending, unknown, queued) refuses a
// money command of every kind on it, exit 2, with nothing sent and nothing
// journaled: a preauth capture of unknown outcome holds back a cancel and
// a refund of the same invoice. The file store refuses the intent on its
// own too (journal.ErrUnsettled), whatever the pipeline did.
func TestEveryKindBlocksEveryKind(t *testing.T) {
	for _, first := range moneyKinds {
		for _, state := range unsettledStates {
			if state == journal.Queued && first != "refund" {
				continue
			}
			for _, next := range moneyKinds {
				t.Run(first+"/"+state+"/"+next, func(t *testing.T) {
					opts, jpath := lockedOptions(t)
					leaveUnsettled(t, jpath, first, state)
					op := &kindOp{kind: next}
					err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
					if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "nothing was sent") ||
						!strings.Contains(err.Error(), "invoice INV-1 has a "+first) {
						t.Errorf("err %v (kind %v), want exit 2 naming the %s", err, k, first)
					}
					if len(op.sent) != 0 || len(op.prepared) != 0 {
						t.Errorf("prepared %v, sent %v", op.prepared, op.sent)
					}
					store := journal.OpenFile(jpath, opts.Now)
					defer store.Close()
					err = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: next, Gateway: testIdentity,
						Attempt: "new-1", Profile: "p", Invoice: "INV-1", Ref: "RF-NEW"})
					if !errors.Is(err, journal.ErrUnsettled) {
						t.Errorf("the store took an intent past the unsettled %s: %v", first, err)
					}
					if attempts, _, _ := journal.Read(jpath); len(attempts) != 1 {
						t.Errorf("journaled %d attempts, want the first only", len(attempts))
					}
				})
			}
		}
	}
}

// TestOtherAccountAndInvoiceNotBlocked: the rule is per invoice and gateway
// account: another invoice, or the same invoice on another account, goes.
func TestOtherAccountAndInvoiceNotBlocked(t *testing.T) {
	opts, jpath := lockedOptions(t)
	leaveUnsettled(t, jpath, "preauth-capture", journal.Unknown)
	op := &kindOp{kind: "preauth-cancel"}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-2"); err != nil {
		t.Errorf("another invoice: %v", err)
	}
	opts.GatewayIdentity = func() (string, error) { return "another-account", nil }
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Errorf("another account: %v", err)
	}
	if len(op.sent) != 2 {
		t.Errorf("sent %v", op.sent)
	}
}

// resendOp is a refund-like operation whose Resend names an attempt of
// the journal (by id), and whose Describe gives ref.
type resendOp struct {
	kindOp
	names string
	ref   string
}

func (o *resendOp) Describe(in string) (Description, gateway.Request) {
	d, r := o.fakeOp.Describe(in)
	d.Ref = o.ref
	return d, r
}

func (o *resendOp) pipeline() Operation[string, gateway.Request, string] {
	resend := resendFunc(func(_ *Env, in string, attempts []journal.Attempt) (string, *journal.Attempt, error) {
		for i, a := range attempts {
			if a.Intent.Attempt == o.names {
				return in, &attempts[i], nil
			}
		}
		return in, nil, nil
	})
	return struct {
		pipeline
		Resender[string]
	}{pipeline{testOperation: o}, resend}
}

// resendFunc is a Resender of a function.
type resendFunc func(*Env, string, []journal.Attempt) (string, *journal.Attempt, error)

func (f resendFunc) Resend(env *Env, in string, attempts []journal.Attempt) (string, *journal.Attempt, error) {
	return f(env, in, attempts)
}

// TestResendOnlyNarrows: an operation may re-send the very attempt that
// blocks the invoice (refund --retry: its kind, its ref), nothing else: a
// Resend naming nothing, naming it but sending another ref or kind, or
// naming it while another attempt is unsettled too, is refused; the store
// refuses the same.
func TestResendOnlyNarrows(t *testing.T) {
	for _, c := range []struct {
		name, kind, names, ref string
		alsoUnknown            string // a second unsettled attempt's kind
		sent                   bool
	}{
		{"the same refund re-sent", "refund", "old-1", "RF-OLD", "", true},
		{"a new refund", "refund", "", "RF-NEW", "", false},
		{"names it, sends another ref", "refund", "old-1", "RF-NEW", "", false},
		{"names it, another kind", "preauth-cancel", "old-1", "RF-OLD", "", false},
		{"the same refund, a capture unknown too", "refund", "old-1", "RF-OLD", "preauth-capture", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts, jpath := lockedOptions(t)
			leaveUnsettled(t, jpath, "refund", journal.Unknown)
			if c.alsoUnknown != "" {
				w, _ := journal.Open(jpath)
				_ = w.Append(journal.Entry{Type: journal.TypeIntent, Kind: c.alsoUnknown, Gateway: testIdentity, Attempt: "old-2",
					Profile: "p", Invoice: "INV-1"})
				_ = w.Close()
			}
			op := &resendOp{kindOp: kindOp{kind: c.kind}, names: c.names, ref: c.ref}
			err := RunSingle(context.Background(), opts, op.pipeline(), "INV-1")
			if c.sent {
				if err != nil || len(op.sent) != 1 {
					t.Errorf("err %v, sent %v; want the refund re-sent", err, op.sent)
				}
				return
			}
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || len(op.sent) != 0 {
				t.Errorf("err %v (kind %v), sent %v; want exit 2, nothing sent", err, k, op.sent)
			}
			store := journal.OpenFile(jpath, opts.Now)
			defer store.Close()
			err = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: c.kind, Gateway: testIdentity,
				Attempt: "new-1", Profile: "p", Invoice: "INV-1", Ref: c.ref})
			if !errors.Is(err, journal.ErrUnsettled) {
				t.Errorf("the store took the intent: %v", err)
			}
		})
	}
}

// uncheckedStore is the journal file without the store's backstop
// (journal.ErrUnsettled): its Append writes an intent past an unsettled
// attempt, so that only the pipeline's own rule stops a send.
type uncheckedStore struct {
	*journal.File
	w *journal.Journal
}

func (s uncheckedStore) Append(_ context.Context, e journal.Entry) error { return s.w.Append(e) }
func (s uncheckedStore) Close() error                                    { return errors.Join(s.w.Close(), s.File.Close()) }

// TestPipelineKeepsTheRuleWithoutBackstop: the pipeline keeps the desk's
// rule on its own, on the single path and on every batch line, against a
// store that would take the intent: an attempt of another kind left
// unsettled on INV-1 holds back a command on INV-1 (nothing prepared,
// sent or journaled; a batch line unknown, with the command that settles
// it), and INV-2 goes.
func TestPipelineKeepsTheRuleWithoutBackstop(t *testing.T) {
	for _, first := range moneyKinds {
		for _, state := range unsettledStates {
			if state == journal.Queued && first != "refund" {
				continue
			}
			next := "preauth-cancel"
			if first == next {
				next = "walletpay"
			}
			for _, batch := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/%s/batch=%t", first, state, next, batch), func(t *testing.T) {
					opts, in, out, _, jpath := testOptions(t)
					opts.GatewayIdentity = func() (string, error) { return testIdentity, nil }
					leaveUnsettled(t, jpath, first, state)
					opts.Journal = func() (journal.Store, error) {
						w, err := journal.Open(jpath)
						return uncheckedStore{journal.OpenFile(jpath, opts.Now), w}, err
					}
					op := &kindOp{kind: next}
					var err error
					if batch {
						opts.Batch = "-"
						in.WriteString(`{"invoice":"INV-1"}` + "\n" + `{"invoice":"INV-2"}` + "\n")
						err = RunBatch(context.Background(), opts, pipelineOf(op))
						checkHeldLine(t, out.String(), first)
					} else {
						err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
						if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "invoice INV-1 has a "+first) {
							t.Errorf("err %v (kind %v), want exit 2 naming the %s", err, k, first)
						}
						err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-2")
					}
					if k, _ := cmdutil.KindOf(err); batch && k != cmdutil.KindOutcomeUnknown || !batch && err != nil {
						t.Errorf("err %v (kind %v)", err, k)
					}
					if !slices.Equal(op.prepared, []string{"INV-2"}) || !slices.Equal(op.sent, []string{"INV-2"}) {
						t.Errorf("prepared %v, sent %v; want INV-2 only", op.prepared, op.sent)
					}
					attempts, _, _ := journal.Read(jpath)
					for _, a := range attempts {
						if a.Intent.Invoice == "INV-1" && a.Intent.Attempt != "old-1" {
							t.Errorf("journaled %+v past the unsettled %s", a.Intent, first)
						}
					}
				})
			}
		}
	}
}

// checkHeldLine checks a batch's results: INV-1 held back by the unsettled
// attempt of kind first (unknown, naming it and the command that settles
// it), INV-2 sent.
func checkHeldLine(t *testing.T, out, first string) {
	t.Helper()
	var got []BatchResult
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r BatchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		got = append(got, r)
	}
	if len(got) != 2 || got[0].Outcome != journal.Unknown || got[0].Error == nil || got[1].Outcome != journal.Succeeded {
		t.Fatalf("results:\n%s\nwant INV-1 unknown, INV-2 succeeded", out)
	}
	if msg := *got[0].Error; !strings.Contains(msg, "invoice INV-1 has a "+first) || !strings.Contains(msg, "nothing was sent; run paycli ") {
		t.Errorf("INV-1's error %q, want the unsettled %s and the command that settles it", msg, first)
	}
}

// declineOp is fakeOp answered with a decline that names its reasons.
type declineOp struct{ kindOp }

func (*declineOp) Send(context.Context, gateway.Request) (string, error) {
	return "", &gateway.APIError{Endpoint: "fake", HTTPStatus: 200, StatusCode: 41, HasStatusCode: true, Description: "Payment failed",
		PaymentReasonCode: "51", PaymentReasonCodeDetail: "Insufficient funds", OriginalBankErrorCode: "05", OriginalBankErrorDescription: "Do not honor"}
}

// TestOutcomeKeepsDeclineReasons: the outcome line keeps the gateway's and
// the bank's reason codes and texts, not only status_code 41.
func TestOutcomeKeepsDeclineReasons(t *testing.T) {
	opts, jpath := lockedOptions(t)
	op := &declineOp{kindOp{kind: "walletpay"}}
	_ = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	attempts, _, _ := journal.Read(jpath)
	if len(attempts) != 1 || attempts[0].Outcome == nil {
		t.Fatalf("attempts %+v", attempts)
	}
	o := attempts[0].Outcome
	if o.Outcome != journal.Declined || o.StatusDescription != "Payment failed" || o.PaymentReasonCode != "51" || o.PaymentReasonCodeDetail != "Insufficient funds" ||
		o.OriginalBankErrorCode != "05" || o.OriginalBankErrorDescription != "Do not honor" {
		t.Errorf("outcome %+v", o)
	}
}
