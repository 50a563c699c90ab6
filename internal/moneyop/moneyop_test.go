package moneyop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
)

// testOperation is what the test operations implement as methods, so
// that one can change another's (walletOp embeds fakeOp); pipelineOf makes
// the pipeline's Operation of one. Their request is a gateway.Request to
// /api/fake whose body names the invoice, which the client can dry-run;
// Send stands in for the client's call.
type testOperation interface {
	Kind() string
	ParseLine([]byte) (string, error)
	Check(string) (string, error)
	Invoice(string) string
	Prepare(context.Context, *Env, string) (string, error)
	Describe(string) (Description, gateway.Request)
	Send(context.Context, gateway.Request) (string, error)
	Classify(string, string, error) Outcome
	Result(string, string) ([]render.Field, string)
}

// keyedOperation is a testOperation known by keys of its own.
type keyedOperation interface {
	Key(string) string
	Resume(*Env, []journal.Attempt) (journal.ResumeDecision, string, string)
	CheckKeys(*Env, []BatchInput[string], []journal.Attempt) error
}

// answerPrinter is a testOperation that prints its answer.
type answerPrinter interface {
	PrintAnswer(context.Context, string) error
}

// pipeline is a testOperation as the pipeline takes it: its Send stands in
// for the client's call, and kind, when set, replaces its Kind.
type pipeline struct {
	testOperation
	kind string
}

func (p pipeline) Kind() string {
	if p.kind != "" {
		return p.kind
	}
	return p.testOperation.Kind()
}

func (p pipeline) Call(ctx context.Context, _ *gateway.Client, r gateway.Request) (string, error) {
	return p.Send(ctx, r)
}

// The optional interfaces a testOperation has are kept by wrappers.
type (
	keyedPipeline struct {
		pipeline
		keyedOperation
	}
	printingPipeline struct {
		pipeline
		answerPrinter
	}
	keyedPrintingPipeline struct {
		pipeline
		keyedOperation
		answerPrinter
	}
)

func pipelineOf(o testOperation) Operation[string, gateway.Request, string] {
	return pipelineOfKind(o, "")
}

// pipelineOfKind is pipelineOf with the journal kind kind ("": o's own).
func pipelineOfKind(o testOperation, kind string) Operation[string, gateway.Request, string] {
	p := pipeline{testOperation: o, kind: kind}
	k, keyed := o.(keyedOperation)
	a, prints := o.(answerPrinter)
	switch {
	case keyed && prints:
		return keyedPrintingPipeline{p, k, a}
	case keyed:
		return keyedPipeline{p, k}
	case prints:
		return printingPipeline{p, a}
	}
	return p
}

// fakeRequest is the request of a test operation for invoice.
func fakeRequest(invoice string) gateway.Request {
	return gateway.Request{Method: "POST", Path: "/api/fake", Body: fmt.Appendf(nil, `{"invoice_id":%q}`, invoice)}
}

// requestInvoice is the invoice a fakeRequest names.
func requestInvoice(r gateway.Request) string {
	var v struct {
		InvoiceID string `json:"invoice_id"`
	}
	_ = json.Unmarshal(r.Body, &v)
	return v.InvoiceID
}

// fakeOp is an operation whose input is an invoice id; "bad" fails Check,
// "stale" fails Prepare, "offline" and "journal-down" fail it for want of
// the gateway or the journal. It records what Prepare and Send saw.
type fakeOp struct {
	mu       sync.Mutex
	prepared []string
	sent     []string
}

func (*fakeOp) Kind() string { return "fake" }
func (*fakeOp) ParseLine(b []byte) (string, error) {
	var v struct{ Invoice string }
	err := json.Unmarshal(b, &v)
	return v.Invoice, err
}
func (*fakeOp) Check(in string) (string, error) {
	if in == "bad" {
		return "", &FieldError{Field: "invoice", Err: errors.New("bad invoice")}
	}
	return strings.TrimSpace(in), nil
}
func (*fakeOp) Invoice(in string) string { return in }
func (o *fakeOp) Prepare(_ context.Context, _ *Env, in string) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.prepared = append(o.prepared, in)
	switch in {
	case "stale":
		return "", errors.New("gone stale")
	case "offline":
		return "", &gateway.RequestError{Endpoint: "checkstatus", Err: errors.New("connection refused")}
	case "journal-down":
		// What a refund's Prepare says when it cannot read the journal.
		return "", fmt.Errorf("%w: %w", ErrJournal, journal.ErrUnavailable)
	}
	return in, nil
}
func (*fakeOp) Describe(in string) (Description, gateway.Request) {
	return Description{Title: "Fake", Rows: [][2]string{{"Invoice", in}}, Prompt: "Go?", Amount: "1.00", Currency: "TRY", Ref: "ref-" + in}, fakeRequest(in)
}
func (o *fakeOp) Send(_ context.Context, r gateway.Request) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	inv := requestInvoice(r)
	o.sent = append(o.sent, inv)
	return "ORD-" + inv, nil
}
func (*fakeOp) Classify(in string, ans string, err error) Outcome {
	if err != nil {
		return ClassifyError("fake", err)
	}
	if in == "lost" {
		return Outcome{Class: journal.Unknown, Why: "the answer was lost", Hint: "Retry with: paycli fake --retry a1"}
	}
	if in == "done" {
		return Outcome{Class: journal.Duplicate, Say: "this fake was already made"}
	}
	code := 100
	return Outcome{Class: journal.Succeeded, StatusCode: &code, OrderNo: ans}
}
func (*fakeOp) Result(in string, ans string) ([]render.Field, string) {
	return []render.Field{{Name: "order_no", JSON: json.RawMessage(`"` + ans + `"`), Text: ans}, {Name: "empty", JSON: json.RawMessage(`""`)}}, "Done " + in
}

var _ testOperation = (*fakeOp)(nil)

func testOptions(t *testing.T) (*Options, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	const base = "http://127.0.0.1:1/ccpayment"
	cfg := &config.Config{Profile: "p", BaseURL: base, AppID: "app", AppSecret: "secret-0123456789", MerchantKey: "mk", Output: "table"}
	client, err := gateway.New(base, gateway.Credentials{AppID: cfg.AppID, AppSecret: cfg.AppSecret, MerchantKey: cfg.MerchantKey},
		gateway.WithClock(time.Now), gateway.WithRandom(bytes.NewReader(bytes.Repeat([]byte{1}, 4096))))
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(t.TempDir(), journal.FileName)
	n := 0
	return &Options{
		Deps: cmdutil.Deps{
			IO:     ios,
			Config: func() (*config.Config, error) { return cfg, nil },
			Format: func() (render.Format, error) { return render.Table, nil },
			Gateway: func() (*gateway.Client, error) {
				return client, nil
			},
			CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, nil
			},
			Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) },
		},
		JournalPath:  func() (string, error) { return jpath, nil },
		Journal:      func() (journal.Store, error) { return journal.OpenFile(jpath, time.Now), nil },
		NewAttemptID: func() string { n++; return fmt.Sprintf("a%d", n) },
		Yes:          true,
		Parallel:     1,
		// Check status settles a walletpay (the fake kinds it does not).
		Kinds: journal.Kinds{{Name: "walletpay", Read: readTaken}},
	}, in, out, errOut, jpath
}

// TestBatchPreparesOnlyLinesToSend: the journal decides first; a line it
// settles (skipped, unknown) never reaches Prepare, so a check that went
// stale cannot hide what the journal knows.
func TestBatchPreparesOnlyLinesToSend(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	id := journal.Identity("http://127.0.0.1:1/ccpayment", "app")
	j, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []journal.Entry{
		{Type: journal.TypeIntent, Kind: "fake", Gateway: id, Attempt: "x1", Profile: "p", Invoice: "PAID"},
		{Type: journal.TypeOutcome, Kind: "fake", Gateway: id, Attempt: "x1", Profile: "p", Invoice: "PAID", Outcome: journal.Succeeded},
		{Type: journal.TypeIntent, Kind: "fake", Gateway: id, Attempt: "x2", Profile: "p", Invoice: "LOST"},
		// another operation's success on the same invoice is no reason to skip
		{Type: journal.TypeIntent, Kind: "other", Gateway: id, Attempt: "x3", Profile: "p", Invoice: "NEW"},
		{Type: journal.TypeOutcome, Kind: "other", Gateway: id, Attempt: "x3", Profile: "p", Invoice: "NEW", Outcome: journal.Succeeded},
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	for _, inv := range []string{"PAID", "LOST", "NEW", "stale", "bad", "NEW"} {
		fmt.Fprintf(in, "{\"invoice\":%q}\n", inv)
	}
	opts.Batch = "-"
	op := &fakeOp{}
	err = RunBatch(context.Background(), opts, pipelineOf(op))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown {
		t.Errorf("err %v, want the unknown outcome's exit", err)
	}
	if !slices.Equal(op.prepared, []string{"NEW", "stale"}) || !slices.Equal(op.sent, []string{"NEW"}) {
		t.Errorf("prepared %v, sent %v; want prepared [NEW stale], sent [NEW]", op.prepared, op.sent)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r BatchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Invoice+":"+r.Outcome)
	}
	want := "PAID:skipped LOST:unknown NEW:succeeded stale:invalid bad:invalid NEW:duplicate"
	if strings.Join(got, " ") != want {
		t.Errorf("results %s, want %s", strings.Join(got, " "), want)
	}
	attempts, _, _ := journal.Read(jpath)
	last := attempts[len(attempts)-1]
	// The lines of an earlier paycli (PAID, LOST: the app_id's identity)
	// are the account's; a new line names the merchant's account and the
	// app_id's identity beside it.
	account := journal.AccountIdentity("http://127.0.0.1:1/ccpayment", "mk")
	if last.Intent.Kind != "fake" || last.Intent.Gateway != account || last.Intent.AppGateway != id || last.Class() != journal.Succeeded {
		t.Errorf("journaled %+v / %+v", last.Intent, last.Outcome)
	}
}

// TestSingleWritesTheVerdictAndDropsEmptyRows: a success shows the
// verdict on a stderr terminal only, and the table has no empty rows.
func TestSingleWritesTheVerdictAndDropsEmptyRows(t *testing.T) {
	for _, tty := range []bool{false, true} {
		opts, _, out, errOut, _ := testOptions(t)
		opts.IO.SetStderrTTY(tty)
		op := &fakeOp{}
		if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errOut.String(), "Done INV-1\n") != tty {
			t.Errorf("tty=%v: stderr %q", tty, errOut)
		}
		if strings.Contains(out.String(), "empty") || !strings.Contains(out.String(), "ORD-INV-1") {
			t.Errorf("stdout %q", out)
		}
	}
}

// TestCheckFailsBeforeAnything: a bad input is exit 2 naming the flag,
// with nothing prepared, sent or journaled.
func TestCheckFailsBeforeAnything(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	op := &fakeOp{}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "bad")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || err.Error() != "invalid --invoice: bad invoice" {
		t.Errorf("err %v (kind %v)", err, k)
	}
	if attempts, _, _ := journal.Read(jpath); len(op.prepared)+len(op.sent)+len(attempts) != 0 {
		t.Errorf("prepared %v, sent %v, journaled %d", op.prepared, op.sent, len(attempts))
	}
}

// TestDryRunAsJSON: -o json prints the request as one JSON object whose
// body is the request body itself (issue 13.16).
func TestDryRunAsJSON(t *testing.T) {
	var b bytes.Buffer
	dump := gateway.RequestDump{Method: "POST", URL: "http://x/api/walletPay", Header: []string{"Authorization: Bearer ••••"}, Body: "{\n  \"invoice_id\": \"I-1\"\n}"}
	if err := writeDryRun(&b, render.JSON, dump); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Method, URL string
		Headers     []string
		Body        map[string]string
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if got.Method != "POST" || got.Body["invoice_id"] != "I-1" || len(got.Headers) != 1 {
		t.Errorf("%+v", got)
	}
}

func TestMostSerious(t *testing.T) {
	tests := []struct {
		outcomes []string
		want     cmdutil.Kind
		some     bool
	}{
		{[]string{"succeeded", "skipped"}, 0, false},
		{[]string{"duplicate", "succeeded"}, cmdutil.KindDuplicate, true},
		{[]string{"duplicate", "invalid"}, cmdutil.KindRejected, true},
		{[]string{"rejected", "declined", "duplicate"}, cmdutil.KindDeclined, true},
		{[]string{"declined", "unknown", "not_sent"}, cmdutil.KindOutcomeUnknown, true},
		{[]string{"declined", "not_sent"}, cmdutil.KindUnavailable, true},
	}
	for _, tt := range tests {
		if k, ok := MostSerious(tt.outcomes, nil); k != tt.want || ok != tt.some {
			t.Errorf("%v: %v %v, want %v %v", tt.outcomes, k, ok, tt.want, tt.some)
		}
	}
	// Refused credentials (a rejection with HTTP 401 / status_code 30) rank
	// just below an unknown outcome: nothing was processed, and every line
	// meets the same refusal until the profile is fixed.
	if k, _ := MostSerious([]string{"declined", "rejected"}, []bool{false, true}); k != cmdutil.KindAuth {
		t.Errorf("refused credentials: %v, want KindAuth", k)
	}
	if k, _ := MostSerious([]string{"declined", "rejected", "unknown"}, []bool{false, true, false}); k != cmdutil.KindOutcomeUnknown {
		t.Errorf("refused credentials and an unknown outcome: %v, want KindOutcomeUnknown", k)
	}
}

// TestOperationWords: an operation's own words (Say, Hint) replace the
// pipeline's for its outcomes, and its Ref is journaled with the intent.
func TestOperationWords(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	err := RunSingle(context.Background(), opts, pipelineOf(&fakeOp{}), "lost")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown ||
		err.Error() != "outcome unknown for invoice lost: the answer was lost; it was not retried" ||
		cmdutil.HintOf(err) != "Retry with: paycli fake --retry a1" {
		t.Errorf("unknown: %v / %q (kind %v)", err, cmdutil.HintOf(err), k)
	}
	err = RunSingle(context.Background(), opts, pipelineOf(&fakeOp{}), "done")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || err.Error() != "this fake was already made" {
		t.Errorf("duplicate: %v (kind %v)", err, k)
	}
	attempts, _, _ := journal.Read(jpath)
	if len(attempts) != 2 || attempts[0].Intent.Ref != "ref-lost" || attempts[0].Intent.Kind != "fake" {
		t.Errorf("journal %+v", attempts)
	}
}

// printingOp prints the answer itself (PrintAnswer), as `paycli api` does.
type printingOp struct {
	fakeOp
	printed []string
}

func (o *printingOp) PrintAnswer(_ context.Context, ans string) error {
	o.printed = append(o.printed, ans)
	return nil
}

// TestAnswerPrinterPrintsEveryOutcome: an operation that prints its answer
// gets it after the outcome is journaled, for a success (instead of the
// fields) and for a failure (with the failure's exit code unchanged).
func TestAnswerPrinterPrintsEveryOutcome(t *testing.T) {
	opts, _, out, _, jpath := testOptions(t)
	op := &printingOp{}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !slices.Equal(op.printed, []string{"ORD-INV-1"}) {
		t.Errorf("success: stdout %q, printed %v", out, op.printed)
	}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "done")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || !slices.Equal(op.printed, []string{"ORD-INV-1", "ORD-done"}) {
		t.Errorf("duplicate: err %v, printed %v", err, op.printed)
	}
	attempts, _, _ := journal.Read(jpath)
	if len(attempts) != 2 || attempts[1].Class() != journal.Duplicate {
		t.Errorf("journal: %+v", attempts)
	}
}

// keyedOp is fakeOp known to the journal by a key of its own: the line's
// text after "|" ("INV|k1"), not its invoice.
type keyedOp struct{ fakeOp }

func (*keyedOp) ParseLine(b []byte) (string, error) {
	var v struct{ Invoice, Key string }
	err := json.Unmarshal(b, &v)
	return v.Invoice + "|" + v.Key, err
}
func (*keyedOp) Invoice(in string) string { inv, _, _ := strings.Cut(in, "|"); return inv }
func (*keyedOp) Key(in string) string     { _, k, _ := strings.Cut(in, "|"); return k }
func (*keyedOp) Resume(_ *Env, attempts []journal.Attempt) (journal.ResumeDecision, string, string) {
	switch attempts[len(attempts)-1].Class() {
	case journal.Succeeded:
		return journal.ResumeSkip, "ORD-old", ""
	case journal.Unknown:
		return journal.ResumeUnknown, "", "run paycli fake --retry"
	}
	return journal.ResumeSend, "", ""
}

func (*keyedOp) CheckKeys(*Env, []BatchInput[string], []journal.Attempt) error { return nil }

var _ keyedOperation = (*keyedOp)(nil)

// TestBatchResumesByKey: a Keyed operation's lines are resumed by their
// key (written in the intent), not by their invoice: an invoice with a
// success under another key is sent again; a key done is skipped, one
// unknown reported with the operation's hint. Invoices repeated in the
// file are still duplicates.
func TestBatchResumesByKey(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	id := journal.Identity("http://127.0.0.1:1/ccpayment", "app")
	j, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []journal.Entry{
		{Type: journal.TypeIntent, Kind: "fake", Gateway: id, Attempt: "x1", Profile: "p", Invoice: "A", Key: "k1"},
		{Type: journal.TypeOutcome, Kind: "fake", Gateway: id, Attempt: "x1", Profile: "p", Invoice: "A", Key: "k1", Outcome: journal.Succeeded},
		{Type: journal.TypeIntent, Kind: "fake", Gateway: id, Attempt: "x2", Profile: "p", Invoice: "B", Key: "k3"},
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	for _, l := range []string{`{"invoice":"A","key":"k1"}`, `{"invoice":"C","key":"k2"}`, `{"invoice":"B","key":"k3"}`, `{"invoice":"C","key":"k4"}`} {
		fmt.Fprintln(in, l)
	}
	in2 := `{"invoice":"A","key":"k9"}`
	opts.Batch = "-"
	op := &keyedOp{}
	_ = RunBatch(context.Background(), opts, pipelineOf(op))
	if !slices.Equal(op.sent, []string{"C|k2"}) {
		t.Errorf("sent %v, want [C|k2]", op.sent)
	}
	if got := out.String(); !strings.Contains(got, `"invoice":"A","outcome":"skipped","status_code":null,"order_no":"ORD-old"`) ||
		!strings.Contains(got, `"invoice":"B","outcome":"unknown"`) || !strings.Contains(got, "run paycli fake --retry") ||
		!strings.Contains(got, `"invoice":"C","outcome":"duplicate"`) {
		t.Errorf("results:\n%s", got)
	}
	attempts, _, _ := journal.Read(jpath)
	if last := attempts[len(attempts)-1]; last.Intent.Key != "k2" || last.Intent.Invoice != "C" {
		t.Errorf("the intent holds key %q, invoice %q", last.Intent.Key, last.Intent.Invoice)
	}

	// The same invoice under a new key is sent.
	out.Reset()
	fmt.Fprintln(in, in2)
	op.sent = nil
	if err := RunBatch(context.Background(), opts, pipelineOf(op)); err != nil || !slices.Equal(op.sent, []string{"A|k9"}) {
		t.Errorf("err %v, sent %v; want A sent", err, op.sent)
	}
}

// TestPrepareGatewayErrors: a Prepare that cannot reach the gateway is not
// bad input. A single input keeps the gateway's error (exit 8, not 2); a
// batch line is not_sent, not invalid, and sets the exit code to 8.
func TestPrepareGatewayErrors(t *testing.T) {
	opts, _, _, _, _ := testOptions(t)
	err := RunSingle(context.Background(), opts, pipelineOf(&fakeOp{}), "offline")
	if _, hasKind := cmdutil.KindOf(err); hasKind || !errors.Is(err, gateway.ErrUnavailable) {
		t.Errorf("single: %v, want the gateway's unavailable error as it is", err)
	}
	opts, in, out, _, _ := testOptions(t)
	in.WriteString("{\"invoice\":\"offline\"}\n{\"invoice\":\"stale\"}\n")
	opts.Batch = "-"
	op := &fakeOp{}
	err = RunBatch(context.Background(), opts, pipelineOf(op))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable {
		t.Errorf("batch: %v, want the unavailable exit", err)
	}
	if !strings.Contains(out.String(), `"invoice":"offline","outcome":"not_sent"`) || !strings.Contains(out.String(), `"invoice":"stale","outcome":"invalid"`) {
		t.Errorf("batch results:\n%s", out)
	}
	if len(op.sent) != 0 {
		t.Errorf("sent %v", op.sent)
	}
}

// TestPrepareJournalErrors: a Prepare that cannot read the journal (a
// shared journal's database lost) is not bad input either: a single input
// keeps the journal's error (exit 8, not 2); a batch line is not_sent, not
// invalid, and no later line is sent.
func TestPrepareJournalErrors(t *testing.T) {
	opts, _, _, _, _ := testOptions(t)
	err := RunSingle(context.Background(), opts, pipelineOf(&fakeOp{}), "journal-down")
	if _, hasKind := cmdutil.KindOf(err); hasKind || !errors.Is(err, journal.ErrUnavailable) {
		t.Errorf("single: %v, want the journal's unavailable error as it is", err)
	}
	opts, in, out, _, _ := testOptions(t)
	in.WriteString("{\"invoice\":\"journal-down\"}\n{\"invoice\":\"FREE\"}\n")
	opts.Batch, opts.Parallel = "-", 1
	op := &fakeOp{}
	err = RunBatch(context.Background(), opts, pipelineOf(op))
	if !errors.Is(err, journal.ErrUnavailable) {
		t.Errorf("batch: %v, want the journal unavailable", err)
	}
	if !strings.Contains(out.String(), `"invoice":"journal-down","outcome":"not_sent"`) {
		t.Errorf("batch results:\n%s", out)
	}
	if len(op.sent) != 0 {
		t.Errorf("sent %v", op.sent)
	}
}

// TestBaseURLPasswordNeverShownOrJournaled: a base_url with a user name and
// password shows masked in the summary, the batch banner and the journal
// (a password in base_url leaked into all three).
func TestBaseURLPasswordNeverShownOrJournaled(t *testing.T) {
	for _, batch := range []bool{false, true} {
		opts, in, _, errOut, jpath := testOptions(t)
		client, err := gateway.New("http://ops:hunter2@127.0.0.1:1/ccpayment", gateway.Credentials{AppID: "app", AppSecret: "secret-0123456789", MerchantKey: "merchant-key-0123456789"},
			gateway.WithClock(time.Now))
		if err != nil {
			t.Fatal(err)
		}
		opts.Gateway = func() (*gateway.Client, error) { return client, nil }
		if batch {
			in.WriteString("{\"invoice\":\"INV-2\"}\n")
			opts.Batch = "-"
			err = RunBatch(context.Background(), opts, pipelineOf(&fakeOp{}))
		} else {
			err = RunSingle(context.Background(), opts, pipelineOf(&fakeOp{}), "INV-1")
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(jpath)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"stderr": errOut.String(), "journal": string(data)} {
			if strings.Contains(text, "hunter2") {
				t.Errorf("batch %v: the password in %s:\n%s", batch, what, text)
			}
		}
		if !strings.Contains(errOut.String(), "127.0.0.1:1/ccpayment") {
			t.Errorf("batch %v: the gateway is not named:\n%s", batch, errOut)
		}
	}
}

// readTaken is a reading of the tests' own, a sale operation's stand-in
// (the pipeline only asks whether a kind has one): taken → Succeeded.
func readTaken(_ journal.Attempt, c journal.Check) journal.Finding {
	if f, ok := c.Unanswered(); ok {
		return f
	}
	if c.Sale.Taken() {
		return journal.Finding{Outcome: journal.Succeeded}
	}
	return c.NotUnderstood()
}
