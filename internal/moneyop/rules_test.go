package moneyop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestClassifyError: the gateway's errors read the same for every
// operation. A 5xx from the token call before the operation means it was
// never sent (not_sent, exit 8); one from the operation's own call, or a
// success that contradicts itself, is unknown; refused credentials are
// Refused only for the operation's own call.
func TestClassifyError(t *testing.T) {
	own := gateway.EndpointWalletPay
	code := func(c int) *gateway.APIError {
		return &gateway.APIError{Endpoint: own, HTTPStatus: http.StatusOK, StatusCode: c, HasStatusCode: true, OrderNo: "VP9"}
	}
	for _, c := range []struct {
		name    string
		err     error
		class   string
		refused bool
		order   string
	}{
		{"the token call answered 503", &gateway.APIError{Endpoint: "token", HTTPStatus: 503}, journal.NotSent, false, ""},
		{"its own call answered 503", &gateway.APIError{Endpoint: own, HTTPStatus: 503}, journal.Unknown, false, ""},
		{"declined", code(41), journal.Declined, false, "VP9"},
		{"duplicate invoice", code(3), journal.Duplicate, false, "VP9"},
		{"pending", code(69), journal.Unknown, false, "VP9"},
		{"rejected", code(99), journal.Rejected, false, "VP9"},
		{"its own call answered 401", &gateway.APIError{Endpoint: own, HTTPStatus: 401}, journal.Rejected, true, ""},
		{"the token call answered 401", &gateway.APIError{Endpoint: "token", HTTPStatus: 401}, journal.Rejected, false, ""},
		{"a success that contradicts itself", &gateway.InconsistentError{Endpoint: own, StatusCode: 100, Reasons: []string{"its payment_status is 0, not 1"}, OrderNo: "VP8"},
			journal.Unknown, false, "VP8"},
		{"cut off after sending", sentAfterTheRequestLeft(errors.New("reset")), journal.Unknown, false, ""},
		{"never connected", &gateway.RequestError{Endpoint: own, Err: errors.New("refused")}, journal.NotSent, false, ""},
	} {
		o := ClassifyError(own, c.err)
		if o.Class != c.class || o.Refused != c.refused || o.OrderNo != c.order {
			t.Errorf("%s: %s refused=%v order %q, want %s refused=%v order %q", c.name, o.Class, o.Refused, o.OrderNo, c.class, c.refused, c.order)
		}
	}
	o := ClassifyError(own, code(41))
	if o.StatusCode == nil || *o.StatusCode != 41 {
		t.Errorf("declined: status code %v, want 41", o.StatusCode)
	}
}

// refundOp is fakeOp journaled as a refund, each attempt with its ref.
type refundOp struct{ fakeOp }

func (*refundOp) Kind() string { return "refund" }

// TestUnresolvedRefundNamesItsRetry: a refund of unknown outcome on the
// invoice, whichever command sent it, refuses the next refund with the
// `paycli refund --retry` line that settles it.
func TestUnresolvedRefundNamesItsRetry(t *testing.T) {
	opts, jpath := lockedOptions(t)
	opts.GatewayFlags = []string{"--profile", "live"}
	// The refund's kind as refund declares it: re-sent by its ref.
	opts.Kinds = append(opts.Kinds, journal.Kind{Name: "refund", Resend: cmdutil.RefundRetryCommandLine})
	store := journal.OpenFile(jpath, opts.Now)
	_ = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: testIdentity,
		Attempt: "api-1", Time: opts.Now(), Invoice: "INV-1", Amount: "10.00", Ref: "RF-API"})
	_ = store.Close()
	op := &refundOp{}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage ||
		err.Error() != "invoice INV-1 has a refund whose outcome is unknown (refund_transaction_id RF-API); nothing was sent" ||
		cmdutil.HintOf(err) != "Resolve it first: paycli refund --retry RF-API --profile live --yes" || len(op.sent) != 0 {
		t.Errorf("err %v (kind %v, hint %q), sent %v", err, k, cmdutil.HintOf(err), op.sent)
	}
}

// TestKeyedLineWaitsForItsInvoice: a batch line known by its key is not
// sent while its invoice has an attempt of unknown outcome under another
// key: it is settled first.
func TestKeyedLineWaitsForItsInvoice(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	id := journal.Identity("http://127.0.0.1:1/ccpayment", "app")
	store := journal.OpenFile(jpath, opts.Now)
	_ = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "fake", Gateway: id, Attempt: "x1", Profile: "p", Invoice: "A", Key: "k1"})
	_ = store.Close()
	in.WriteString(`{"invoice":"A","key":"k2"}` + "\n")
	opts.Batch = "-"
	op := &keyedOp{}
	err := RunBatch(context.Background(), opts, pipelineOf(op))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || len(op.sent) != 0 || !strings.Contains(out.String(), `"invoice":"A","outcome":"unknown"`) {
		t.Errorf("err %v (kind %v), sent %v\n%s", err, k, op.sent, out)
	}
}

// outcomeFailingStore writes intents and fails to write outcomes, as a
// disk that fills up between the two.
type outcomeFailingStore struct{ *journal.File }

func (s outcomeFailingStore) Append(ctx context.Context, e journal.Entry) error {
	if e.Type == journal.TypeOutcome {
		return errors.New("no space left on device")
	}
	return s.File.Append(ctx, e)
}

// TestOutcomeNotWrittenIsSaid: an outcome the journal could not take is
// said on stderr, with the class it was, and the command keeps the exit
// code of what it did; a batch line's order number is in its result.
func TestOutcomeNotWrittenIsSaid(t *testing.T) {
	for _, batch := range []bool{false, true} {
		opts, in, out, errOut, jpath := testOptions(t)
		opts.Journal = func() (journal.Store, error) { return outcomeFailingStore{journal.OpenFile(jpath, opts.Now)}, nil }
		op := &fakeOp{}
		var err error
		want := "warning: the outcome (succeeded) could not be written to the journal: no space left on device"
		if batch {
			opts.Batch = "-"
			in.WriteString(`{"invoice":"INV-1"}` + "\n")
			err = RunBatch(context.Background(), opts, pipelineOf(op))
			want = "warning: line 1: the outcome (succeeded) could not be written to the journal: no space left on device"
			if !strings.Contains(out.String(), `"order_no":"ORD-INV-1"`) {
				t.Errorf("batch result:\n%s", out)
			}
		} else {
			err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
		}
		if err != nil || !strings.Contains(errOut.String(), want) {
			t.Errorf("batch %v: err %v, stderr:\n%s\nwant %q", batch, err, errOut, want)
		}
	}
}

// TestBatchLineLimit: a line of MaxLineBytes is read; one byte more is
// invalid, and the other lines go on.
func TestBatchLineLimit(t *testing.T) {
	opts, in, out, _, _ := testOptions(t)
	opts.Batch = "-"
	fits := fmt.Sprintf(`{"invoice":"A","pad":"%s"}`, strings.Repeat("x", MaxLineBytes-len(`{"invoice":"A","pad":""}`)))
	in.WriteString(fits + "\n" + strings.Replace(fits, `"A"`, `"BB"`, 1) + "\n")
	op := &fakeOp{}
	_ = RunBatch(context.Background(), opts, pipelineOf(op))
	if got := out.String(); !strings.Contains(got, `"invoice":"A","outcome":"succeeded"`) ||
		!strings.Contains(got, `"line":2,"invoice":"","outcome":"invalid"`) || !strings.Contains(got, "longer than 64 KiB") {
		t.Errorf("results:\n%s", got)
	}
}

// TestBatchSummary: the batch's stderr summary counts each outcome once
// and lists the command that settles each unknown one; a decline gives
// the gateway's code, text and payment_reason_code; an empty batch has
// nothing to do.
func TestBatchSummary(t *testing.T) {
	decline := &gateway.APIError{Endpoint: gateway.EndpointWalletPay, HTTPStatus: http.StatusOK, StatusCode: 41, HasStatusCode: true,
		Description: "Insufficient funds", PaymentReasonCode: "51", PaymentReasonCodeDetail: "Not sufficient funds"}
	op := &contractOp{outcome: func(in, ans string, err error) Outcome {
		switch in {
		case "DECL":
			return ClassifyError(gateway.EndpointWalletPay, decline)
		case "LOST":
			return Outcome{Class: journal.Unknown, Why: "the answer was lost"}
		}
		return (&fakeOp{}).Classify(in, ans, err)
	}}
	opts, in, out, errOut, _ := testOptions(t)
	opts.Batch = "-"
	in.WriteString(`{"invoice":"OK1"}` + "\n" + `{"invoice":"DECL"}` + "\n" + `{"invoice":"LOST"}` + "\n" + `{"invoice":"OK2"}` + "\n")
	_ = RunBatch(context.Background(), opts, pipelineOf(op))
	want := "Batch done: 2 succeeded, 1 declined, 1 unknown.\nOutcome unknown for 1 invoice; never retried. Check each with:\n  paycli status --invoice LOST\n"
	if !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end with:\n%s", errOut, want)
	}
	if !strings.Contains(out.String(), `"error":"payment declined: status_code 41 \"Insufficient funds\", payment_reason_code 51 (Not sufficient funds)"`) {
		t.Errorf("results:\n%s", out)
	}

	opts, in, _, errOut, _ = testOptions(t)
	opts.Batch = "-"
	in.WriteString("\n")
	if err := RunBatch(context.Background(), opts, pipelineOf(&fakeOp{})); err != nil || !strings.HasSuffix(errOut.String(), "Batch done: nothing to do.\n") {
		t.Errorf("an empty batch: %v\n%s", err, errOut)
	}
}
