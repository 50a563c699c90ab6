package moneyop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
)

// The pipeline's guarantees, each held against a fake operation and the
// real journal store (journal.File): whatever an operation does, the
// pipeline journals its intent before sending, never sends an input twice,
// records an outcome however the command ends, sends nothing on a dry run,
// keeps secrets out of everything it writes, and refuses a profile without
// the merchant_key before anything exists.

// contractOp is fakeOp whose Send runs send, when set, for each request
// (sent: the invoices it was called for), and whose Classify comes to the
// outcome outcome gives, when set. Its description holds secrets.
type contractOp struct {
	fakeOp
	send    func(ctx context.Context, invoice string) (string, error)
	outcome func(in, ans string, err error) Outcome
}

// Secrets the contract operation's description names: a token and an
// e-mail, as a wallet payment's does.
const (
	secretToken = "tok-0123456789-SECRET"
	secretEmail = "ada.secret@example.com"
)

func (*contractOp) Describe(in string) (Description, gateway.Request) {
	d, req := (&fakeOp{}).Describe(in)
	d.Secrets = []string{secretToken, secretEmail}
	return d, req
}

func (o *contractOp) Send(ctx context.Context, r gateway.Request) (string, error) {
	ans, err := o.fakeOp.Send(ctx, r)
	if o.send != nil {
		return o.send(ctx, requestInvoice(r))
	}
	return ans, err
}

func (o *contractOp) Classify(in, ans string, err error) Outcome {
	if o.outcome != nil {
		return o.outcome(in, ans, err)
	}
	return o.fakeOp.Classify(in, ans, err)
}

// sentAfterTheRequestLeft is what the client returns for a call that moves
// money cut off after its request left: the outcome is unknown.
func sentAfterTheRequestLeft(cause error) error {
	return &gateway.RequestError{Endpoint: gateway.EndpointWalletPay, Sent: true, Err: cause}
}

// contextStore is the journal file as a Store that, like a database,
// honours its context: an append under a context already ended fails.
// The pipeline must record an outcome under a context that Ctrl-C, a
// signal or the time limit cannot end.
type contextStore struct{ *journal.File }

func (s contextStore) Append(ctx context.Context, e journal.Entry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("the store's context ended: %w", err)
	}
	return s.File.Append(ctx, e)
}

func withContextStore(opts *Options, jpath string) {
	opts.Journal = func() (journal.Store, error) { return contextStore{journal.OpenFile(jpath, opts.Now)}, nil }
}

// readJournal is every attempt in the journal at path.
func readJournal(t *testing.T, path string) []journal.Attempt {
	t.Helper()
	attempts, skipped, err := journal.Read(path)
	if err != nil || skipped != 0 {
		t.Fatalf("journal: %d bad lines, %v", skipped, err)
	}
	return attempts
}

// TestIntentDurableBeforeSending: when the request leaves, its intent is
// in the journal file (the store's Append has returned), with its kind,
// invoice, amount, reference and deadline; and when the intent cannot be
// written, nothing is sent — for one operation and for a batch line.
func TestIntentDurableBeforeSending(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	deadline := time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC)
	opts.CommandContext = func(ctx context.Context) (context.Context, context.CancelFunc, error) {
		ctx, cancel := context.WithDeadline(ctx, deadline)
		return ctx, cancel, nil
	}
	var atSend []journal.Attempt
	op := &contractOp{send: func(context.Context, string) (string, error) {
		atSend = readJournal(t, jpath)
		return "ORD-1", nil
	}}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Fatal(err)
	}
	if len(atSend) != 1 {
		t.Fatalf("when the request left, the journal held %d attempts, want its intent", len(atSend))
	}
	if in := atSend[0].Intent; in.Type != journal.TypeIntent || in.Kind != "fake" || in.Invoice != "INV-1" || in.Amount != "1.00" ||
		in.Ref != "ref-INV-1" || !in.Deadline.Equal(deadline) || atSend[0].Outcome != nil {
		t.Errorf("when the request left, the journal held %+v / %+v", in, atSend[0].Outcome)
	}

	for _, batch := range []bool{false, true} {
		opts, in, out, _, jpath := testOptions(t)
		opts.Journal = func() (journal.Store, error) { return failingStore{journal.OpenFile(jpath, opts.Now)}, nil }
		op := &contractOp{}
		var err error
		if batch {
			opts.Batch = "-"
			in.WriteString(`{"invoice":"INV-1"}` + "\n" + `{"invoice":"INV-2"}` + "\n")
			err = RunBatch(context.Background(), opts, pipelineOf(op))
		} else {
			err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
		}
		if !errors.Is(err, ErrJournal) || len(op.sent) != 0 {
			t.Errorf("batch %v, an intent that cannot be written: err %v, sent %v; want ErrJournal and nothing sent", batch, err, op.sent)
		}
		if batch && strings.Count(out.String(), `"outcome":"not_sent"`) != 2 {
			t.Errorf("batch results:\n%s", out)
		}
	}
}

// failingStore is the journal file whose appends fail, as on a full disk.
type failingStore struct{ *journal.File }

func (failingStore) Append(context.Context, journal.Entry) error {
	return errors.New("no space left on device")
}

// TestNeverResent: an attempt whose outcome is unknown is sent once, and
// never again by the pipeline: not by itself, not by the same command run
// again (refused, exit 2, with the command that settles it), not by a
// batch run again (reported unknown). Credentials refused (HTTP 401) are
// exit 3, the call made once.
func TestNeverResent(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	lost := &contractOp{send: func(ctx context.Context, _ string) (string, error) {
		return "", sentAfterTheRequestLeft(errors.New("connection reset by peer"))
	}}
	op := pipelineOfKind(lost, "walletpay") // a kind the journal's rule holds back
	err := RunSingle(context.Background(), opts, op, "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || len(lost.sent) != 1 {
		t.Fatalf("err %v (kind %v), sent %v; want exit 7, sent once", err, k, lost.sent)
	}
	err = RunSingle(context.Background(), opts, op, "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "whose outcome is unknown") || len(lost.sent) != 1 {
		t.Errorf("the same again: err %v (kind %v), sent %v; want exit 2, nothing sent", err, k, lost.sent)
	}
	opts.Batch = "-"
	in.WriteString(`{"invoice":"INV-1"}` + "\n")
	err = RunBatch(context.Background(), opts, op)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || len(lost.sent) != 1 || !strings.Contains(out.String(), `"outcome":"unknown"`) {
		t.Errorf("a batch of it: err %v (kind %v), sent %v\n%s", err, k, lost.sent, out)
	}
	if attempts := readJournal(t, jpath); len(attempts) != 1 || attempts[0].Class() != journal.Unknown {
		t.Errorf("journal: %+v", attempts)
	}

	opts, _, _, _, _ = testOptions(t)
	refused := &contractOp{send: func(context.Context, string) (string, error) {
		return "", &gateway.TokenRefusedError{Err: &gateway.APIError{Endpoint: gateway.EndpointWalletPay, HTTPStatus: 401}}
	}, outcome: func(_, _ string, err error) Outcome { return ClassifyError(gateway.EndpointWalletPay, err) }}
	err = RunSingle(context.Background(), opts, pipelineOf(refused), "INV-2")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindAuth || len(refused.sent) != 1 {
		t.Errorf("refused credentials: err %v (kind %v), sent %v; want exit 3, sent once", err, k, refused.sent)
	}
}

// TestOutcomeOnTimeLimit: a request the time limit cuts off after it left
// is recorded unknown, though the command's context has ended.
func TestOutcomeOnTimeLimit(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	withContextStore(opts, jpath)
	opts.CommandContext = func(ctx context.Context) (context.Context, context.CancelFunc, error) {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		return ctx, cancel, nil
	}
	op := &contractOp{send: func(ctx context.Context, _ string) (string, error) {
		<-ctx.Done()
		return "", sentAfterTheRequestLeft(ctx.Err())
	}, outcome: func(_, _ string, err error) Outcome { return ClassifyError(gateway.EndpointWalletPay, err) }}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	checkUnknownRecorded(t, "time limit", err, "the time limit ran out after the request was sent", jpath)
}

// checkUnknownRecorded checks that err is exit 7 saying why, and that the
// journal recorded the attempt's outcome as unknown.
func checkUnknownRecorded(t *testing.T, what string, err error, why, jpath string) {
	t.Helper()
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || !strings.Contains(err.Error(), why) {
		t.Errorf("%s: err %v (kind %v), want exit 7 saying %q", what, err, k, why)
	}
	attempts := readJournal(t, jpath)
	if len(attempts) != 1 || attempts[0].Outcome == nil || attempts[0].Outcome.Outcome != journal.Unknown {
		t.Errorf("%s: the journal holds %d attempts, the last without its outcome: %+v", what, len(attempts), attempts)
	}
}

// TestDryRunNeverSends: a dry run prints the request the client would
// sign, secrets redacted, and sends, journals and locks nothing.
func TestDryRunNeverSends(t *testing.T) {
	for _, format := range []render.Format{render.Table, render.JSON} {
		opts, _, out, errOut, jpath := testOptions(t)
		opts.DryRun = true
		opts.Format = func() (render.Format, error) { return format, nil }
		op := &contractOp{}
		if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
			t.Fatal(err)
		}
		if len(op.sent) != 0 {
			t.Errorf("%s: sent %v", format, op.sent)
		}
		if !strings.Contains(out.String(), "/api/fake") || !strings.Contains(out.String(), "INV-1") ||
			strings.Contains(out.String(), "secret-0123456789") || !strings.Contains(errOut.String(), "Dry run: nothing was sent.") {
			t.Errorf("%s: stdout\n%s\nstderr\n%s", format, out, errOut)
		}
		if _, err := os.Stat(jpath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the dry run wrote the journal (%v)", format, err)
		}
		if entries, _ := os.ReadDir(jpath + journal.LocksSuffix); len(entries) != 0 {
			t.Errorf("%s: a lock is left: %v", format, entries)
		}
	}
}

// TestSecretsScrubbed: whatever the gateway's words an outcome carries,
// the secrets the operation names (Description.Secrets) appear in no
// error, no stderr line, no batch result and no journal line, for every
// class of outcome.
func TestSecretsScrubbed(t *testing.T) {
	leak := "the gateway echoed token=" + secretToken + " email=" + secretEmail
	code := 41
	outcomes := map[string]Outcome{
		"INV-OK":   {Class: journal.Succeeded, OrderNo: "VP1", Message: leak},
		"INV-LOST": {Class: journal.Unknown, Err: errors.New(leak), Why: leak},
		"INV-DECL": {Class: journal.Declined, StatusCode: &code, Err: &gateway.APIError{Endpoint: "fake", StatusCode: 41, HasStatusCode: true, Description: leak}},
		"INV-SAY":  {Class: journal.Rejected, Err: errors.New(leak), Say: leak},
		"INV-REJ":  {Class: journal.Rejected, Err: errors.New(leak)},
		"INV-DUP":  {Class: journal.Duplicate, Err: errors.New(leak), Say: leak},
	}
	op := &contractOp{outcome: func(in, _ string, _ error) Outcome { return outcomes[in] }}
	var texts []string
	for invoice := range outcomes {
		opts, _, out, errOut, jpath := testOptions(t)
		opts.IO.SetStderrTTY(true)
		err := RunSingle(context.Background(), opts, pipelineOf(op), invoice)
		if err != nil {
			texts = append(texts, err.Error(), cmdutil.HintOf(err))
		}
		data, _ := os.ReadFile(jpath)
		texts = append(texts, out.String(), errOut.String(), string(data))
	}
	opts, in, out, errOut, jpath := testOptions(t)
	opts.Batch = "-"
	for invoice := range outcomes {
		fmt.Fprintf(in, "{\"invoice\":%q}\n", invoice)
	}
	_ = RunBatch(context.Background(), opts, pipelineOf(op))
	data, _ := os.ReadFile(jpath)
	texts = append(texts, out.String(), errOut.String(), string(data))
	all := strings.Join(texts, "\n")
	for _, secret := range []string{secretToken, secretEmail} {
		if strings.Contains(all, secret) {
			t.Errorf("%s is written:\n%s", secret, all)
		}
	}
	if !strings.Contains(all, "the gateway echoed token=•••") {
		t.Errorf("the gateway's words are not shown at all:\n%s", all)
	}
}

// TestMissingMerchantKeyRefusedBeforeAnything: a profile without the
// merchant_key every money call is signed with is refused before anything
// exists: nothing prepared, locked, journaled or sent, one operation or a
// batch.
func TestMissingMerchantKeyRefusedBeforeAnything(t *testing.T) {
	for _, batch := range []bool{false, true} {
		opts, in, _, _, jpath := testOptions(t)
		const base = "http://127.0.0.1:1/ccpayment"
		client, err := gateway.New(base, gateway.Credentials{AppID: "app", AppSecret: "secret-0123456789"},
			gateway.WithClock(time.Now), gateway.WithRandom(bytes.NewReader(bytes.Repeat([]byte{1}, 4096))))
		if err != nil {
			t.Fatal(err)
		}
		opts.Gateway = func() (*gateway.Client, error) { return client, nil }
		opts.Config = func() (*config.Config, error) {
			return &config.Config{Profile: "p", BaseURL: base, AppID: "app", AppSecret: "secret-0123456789", Output: "table"}, nil
		}
		op := &contractOp{}
		if batch {
			opts.Batch = "-"
			in.WriteString(`{"invoice":"INV-1"}` + "\n")
			err = RunBatch(context.Background(), opts, pipelineOf(op))
		} else {
			err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
		}
		if !errors.Is(err, gateway.ErrNoMerchantKey) || len(op.prepared)+len(op.sent) != 0 {
			t.Errorf("batch %v: err %v, prepared %v, sent %v; want ErrNoMerchantKey and nothing done", batch, err, op.prepared, op.sent)
		}
		if _, err := os.Stat(jpath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("batch %v: the journal was written (%v)", batch, err)
		}
		if _, err := os.Stat(jpath + journal.LocksSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("batch %v: an invoice was locked (%v)", batch, err)
		}
	}
}

// TestBatchInterruptedRecordsWhatWasSent: Ctrl-C during a batch lets the
// call in flight finish and record its outcome, and sends no other line
// (not_sent, exit 130).
func TestBatchInterruptedRecordsWhatWasSent(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	withContextStore(opts, jpath)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var once sync.Once
	op := &contractOp{send: func(ctx context.Context, invoice string) (string, error) {
		once.Do(interrupt)
		if ctx.Err() != nil {
			return "", sentAfterTheRequestLeft(ctx.Err())
		}
		return "ORD-" + invoice, nil
	}}
	opts.Batch, opts.Parallel = "-", 1
	in.WriteString(`{"invoice":"INV-1"}` + "\n" + `{"invoice":"INV-2"}` + "\n" + `{"invoice":"INV-3"}` + "\n")
	err := RunBatch(ctx, opts, pipelineOf(op))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindInterrupted || len(op.sent) != 1 {
		t.Fatalf("err %v (kind %v), sent %v; want exit 130 with the first line sent", err, k, op.sent)
	}
	if !strings.Contains(out.String(), `"invoice":"INV-1","outcome":"succeeded"`) || strings.Count(out.String(), `"outcome":"not_sent"`) != 2 {
		t.Errorf("results:\n%s", out)
	}
	if attempts := readJournal(t, jpath); len(attempts) != 1 || attempts[0].Class() != journal.Succeeded {
		t.Errorf("journal: %+v", attempts)
	}
}
