package moneyop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Card numbers used as invoice ids: Luhn-valid, so the masker takes them
// for cards, as it must.
const (
	cardVisa   = "4111111111111111"
	cardMaster = "5555555555554444"
	cardVisa2  = "4012888888881881"
	// order is the gateway's order number; its digits pass the Luhn check
	// by chance, and it is shown whole.
	order = "VP378282246310005"
)

// cardOp repeats its invoice id in everything it says — the summary, the
// prompt, the verdict, the result's fields, a rejection's words — as the
// real operations do: its own sentences put it in as redact.Invoice shows
// it, the summary rows and the fields as it is. It comes to the outcome
// outcomes names for the invoice (a success otherwise).
type cardOp struct {
	fakeOp
	kind     string
	outcomes map[string]Outcome
}

func (o *cardOp) Kind() string { return o.kind }
func (*cardOp) Check(in string) (string, error) {
	if strings.HasPrefix(in, "bad-") {
		return "", &FieldError{Field: "invoice", Err: fmt.Errorf("%q is not an invoice this test takes", in)}
	}
	return strings.TrimSpace(in), nil
}
func (*cardOp) Describe(in string) (Description, gateway.Request) {
	return Description{Title: "Card test", Rows: [][2]string{{"Invoice", in}, {"Payer", "Ada " + cardVisa2}, {"Order", order}},
		Prompt: "Charge invoice " + redact.Invoice(in) + " of order " + order + "?", Amount: "1.00", Currency: "TRY"}, fakeRequest(in)
}
func (o *cardOp) Classify(in string, ans string, err error) Outcome {
	if out, ok := o.outcomes[in]; ok {
		return out
	}
	return o.fakeOp.Classify(in, ans, err)
}
func (o *cardOp) Send(ctx context.Context, r gateway.Request) (string, error) {
	_, err := o.fakeOp.Send(ctx, r)
	return "VP-1", err
}
func (*cardOp) Result(in string, ans string) ([]render.Field, string) {
	return []render.Field{render.StringField("invoice_id", in), render.StringField("order_no", ans)}, "Charged invoice " + redact.Invoice(in) + ", order " + order
}

var _ testOperation = (*cardOp)(nil)

// noCard fails the test when a full card number is in any of texts.
func noCard(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, text := range texts {
		for _, card := range []string{cardVisa, cardMaster, cardVisa2} {
			if strings.Contains(text, card) {
				t.Errorf("%s: the full card number %s is shown:\n%s", what, card, text)
			}
		}
	}
}

// TestCardInvoiceNeverShownSingle: an invoice id that is a card number
// shows masked in the summary, the prompt, the verdict, the result and
// every failure, and the command suggested for an unknown or duplicate
// outcome does not name it (a masked id would look up another invoice).
// The journal keeps it whole.
func TestCardInvoiceNeverShownSingle(t *testing.T) {
	declined := errors.New("declined")
	tests := []struct {
		name, kind string
		outcome    *Outcome
		// hint is what the suggested command must say.
		hint string
	}{
		{name: "success", kind: "fake"},
		{name: "unknown, reconciled by the journal", kind: "walletpay", outcome: &Outcome{Class: journal.Unknown, Why: "the answer was lost"},
			hint: "Find out what happened with: paycli journal reconcile --sandbox"},
		{name: "unknown, looked up by status", kind: "fake", outcome: &Outcome{Class: journal.Unknown, Why: "the answer was lost"},
			hint: "Find out what happened with: paycli status --invoice ID --sandbox, ID being the invoice id as given"},
		{name: "duplicate", kind: "walletpay", outcome: &Outcome{Class: journal.Duplicate},
			hint: "See what happened to it: paycli status --invoice ID --sandbox, ID being"},
		{name: "rejected in the operation's words", kind: "fake", outcome: &Outcome{Class: journal.Rejected, Err: declined, Say: "the gateway has no sale " + redact.Invoice(cardVisa)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, in, out, errOut, jpath := testOptions(t)
			opts.GatewayFlags = []string{"--sandbox"}
			// Confirmation on a terminal: the prompt is shown too.
			opts.Yes = false
			opts.IO.SetStdinTTY(true)
			opts.IO.SetStdoutTTY(true)
			opts.IO.SetStderrTTY(true)
			in.WriteString("y\n")
			op := &cardOp{kind: tt.kind}
			if tt.outcome != nil {
				op.outcomes = map[string]Outcome{cardVisa: *tt.outcome}
			}
			err := RunSingle(context.Background(), opts, pipelineOf(op), cardVisa)
			var msg, hint string
			if err != nil {
				msg, hint = err.Error(), cmdutil.HintOf(err)
			}
			if (tt.outcome == nil) != (err == nil) {
				t.Fatalf("err %v", err)
			}
			noCard(t, "stdout", out.String())
			noCard(t, "stderr", errOut.String())
			noCard(t, "the error", msg, hint)
			if !strings.Contains(errOut.String()+msg+out.String(), "411111******1111") {
				t.Errorf("the invoice is not shown masked:\nstdout %s\nstderr %s\nerror %s", out, errOut, msg)
			}
			if strings.Contains(hint, "411111******1111") {
				t.Errorf("the hint names the masked invoice: %s", hint)
			}
			if !strings.HasPrefix(hint, tt.hint) {
				t.Errorf("hint %q, want it to start %q", hint, tt.hint)
			}
			if !strings.Contains(errOut.String(), "  Payer:   Ada 401288******1881\n  Order:   "+order+"\n") {
				t.Errorf("summary:\n%s", errOut)
			}
			if tt.outcome == nil && (!strings.Contains(errOut.String(), "Charge invoice 411111******1111 of order "+order+"?") ||
				!strings.Contains(errOut.String(), "Charged invoice 411111******1111, order "+order+"\n")) {
				t.Errorf("prompt or verdict not shown masked, or the order not whole:\n%s", errOut)
			}
			attempts, _, _ := journal.Read(jpath)
			if len(attempts) != 1 || attempts[0].Intent.Invoice != cardVisa {
				t.Errorf("the journal does not keep the invoice whole: %+v", attempts)
			}
		})
	}
}

// TestCardInvoiceNeverShownBatch: batch results and the stderr summary
// show invoice ids that are card numbers masked — for a success, an
// invoice repeated in the file, an unknown outcome, a line that is not
// valid — while resuming still goes by the whole invoice: run again, the
// paid line is skipped and the unknown one reported, neither sent again.
func TestCardInvoiceNeverShownBatch(t *testing.T) {
	opts, in, out, errOut, jpath := testOptions(t)
	opts.GatewayFlags = []string{"--sandbox"}
	opts.Batch = "-"
	input := strings.Join([]string{
		`{"invoice":"` + cardVisa + `"}`,
		`{"invoice":"` + cardMaster + `"}`,
		`{"invoice":"` + cardVisa + `"}`,
		`{"invoice":"bad-` + cardVisa2 + `"}`,
	}, "\n") + "\n"
	op := &cardOp{kind: "walletpay", outcomes: map[string]Outcome{
		cardMaster: {Class: journal.Unknown, Why: "the answer was lost"},
	}}
	type result struct {
		Invoice, Outcome string
		OrderNo          *string `json:"order_no"`
		Error            *string
	}
	run := func() []result {
		t.Helper()
		out.Reset()
		errOut.Reset()
		in.WriteString(input)
		err := RunBatch(context.Background(), opts, pipelineOf(op))
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown {
			t.Errorf("err %v, want the unknown outcome's exit", err)
		}
		noCard(t, "stdout", out.String())
		noCard(t, "stderr", errOut.String())
		var rs []result
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var r result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	outcomes := func(rs []result) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Invoice+":"+r.Outcome)
		}
		return strings.Join(s, " ")
	}

	first := run()
	if got, want := outcomes(first), "411111******1111:succeeded 555555******4444:unknown 411111******1111:duplicate bad-401288******1881:invalid"; got != want {
		t.Errorf("first run: %s, want %s", got, want)
	}
	if e := first[1].Error; e == nil || !strings.HasSuffix(*e, "; run paycli journal reconcile --sandbox") {
		t.Errorf("the unknown line's error %v, want it to end with the reconcile command", deref(e))
	}
	if e := first[2].Error; e == nil || !strings.Contains(*e, "invoice 411111******1111 is also on line 1") {
		t.Errorf("the duplicate line's error: %v", deref(e))
	}
	if e := first[3].Error; e == nil || !strings.Contains(*e, "bad-401288******1881") {
		t.Errorf("the invalid line's error: %v", deref(e))
	}
	if !strings.Contains(errOut.String(), "Outcome unknown for 1 invoice; never retried. Check each with:\n  paycli journal reconcile --sandbox\n") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !slices.Equal(op.sent, []string{cardVisa, cardMaster}) {
		t.Errorf("sent %v", op.sent)
	}

	op.sent = nil
	second := run()
	if got, want := outcomes(second), "411111******1111:skipped 555555******4444:unknown 411111******1111:duplicate bad-401288******1881:invalid"; got != want {
		t.Errorf("second run: %s, want %s", got, want)
	}
	if o := second[0].OrderNo; o == nil || *o != "VP-1" {
		// The order number is the gateway's reference, kept whole.
		t.Errorf("the skipped line's order_no %v", deref(o))
	}
	if e := second[1].Error; e == nil || !strings.HasSuffix(*e, "not retried: run paycli journal reconcile --sandbox") {
		t.Errorf("the unknown line's error on resume: %v", deref(e))
	}
	if len(op.sent) != 0 {
		t.Errorf("resumed batch sent %v again", op.sent)
	}
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"invoice":"`+cardVisa+`"`) || !strings.Contains(string(data), `"invoice":"`+cardMaster+`"`) {
		t.Errorf("the journal does not keep the invoices whole:\n%s", data)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestOrderNumbersStayWhole: the pipeline's messages mask the invoice, and
// nothing else: an order number the operation or the gateway names, whose
// digits pass the Luhn check by chance, is shown whole in the error of a
// single operation and of a batch line, as a person needs it to look the
// sale up.
func TestOrderNumbersStayWhole(t *testing.T) {
	const luhnOrder = "VP17953766355293785" // 17953766355293785 passes the check
	outcomes := map[string]Outcome{
		"INV-R": {Class: journal.Rejected, Err: errors.New("refused"), Say: "order " + luhnOrder + " is not the order of invoice INV-R"},
		"INV-U": {Class: journal.Unknown, Why: "the gateway answered status_code 100 but its order_no is " + luhnOrder},
	}
	for invoice := range outcomes {
		opts, _, _, _, _ := testOptions(t)
		err := RunSingle(context.Background(), opts, pipelineOf(&cardOp{kind: "fake", outcomes: outcomes}), invoice)
		if err == nil || !strings.Contains(err.Error(), luhnOrder) {
			t.Errorf("%s: the error does not name the order whole: %v", invoice, err)
		}
	}
	opts, in, out, _, _ := testOptions(t)
	opts.Batch = "-"
	in.WriteString(`{"invoice":"INV-R"}` + "\n" + `{"invoice":"INV-U"}` + "\n")
	_ = RunBatch(context.Background(), opts, pipelineOf(&cardOp{kind: "fake", outcomes: outcomes}))
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct{ Invoice, Error string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if !strings.Contains(r.Error, luhnOrder) {
			t.Errorf("batch line %s: the error does not name the order whole: %s", r.Invoice, r.Error)
		}
	}
}

// prepareOp refuses, when it prepares a line, the invoices "usage-…" with a
// usage error quoting the line's amount (a card number typed there) and
// "rejected-…" with a rejection naming the gateway's order number.
type prepareOp struct{ cardOp }

func (o *prepareOp) Prepare(ctx context.Context, env *Env, in string) (string, error) {
	switch {
	case strings.HasPrefix(in, "usage-"):
		return "", cmdutil.UsageErrorf("refund amount %s is more than the sale's remaining 150.00", cardVisa)
	case strings.HasPrefix(in, "rejected-"):
		return "", cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("the gateway's order %s is closed", order), "")
	}
	return o.cardOp.Prepare(ctx, env, in)
}

// TestBatchPrepareErrors: a line refused before it is sent shows a card
// number its own values hold masked (a usage error echoes only the line),
// and the gateway's order number whole.
func TestBatchPrepareErrors(t *testing.T) {
	opts, in, out, errOut, _ := testOptions(t)
	opts.Batch = "-"
	in.WriteString(`{"invoice":"usage-1"}` + "\n" + `{"invoice":"rejected-1"}` + "\n")
	_ = RunBatch(context.Background(), opts, pipelineOf(&prepareOp{cardOp{kind: "walletpay"}}))
	noCard(t, "stdout", out.String())
	noCard(t, "stderr", errOut.String())
	if !strings.Contains(out.String(), "411111******1111") || !strings.Contains(out.String(), order) {
		t.Errorf("batch results:\n%s\nwant the typed card masked and order %s whole", out.String(), order)
	}
}
