package moneyop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// walletOp is fakeOp journaled as walletpay, a kind check status settles
// (Options.Kinds), so that the pipeline's guard applies to it. While it
// sends, it tries the invoice's lock as another process would.
type walletOp struct {
	fakeOp
	path       string
	lockedSend []error
	// account is the gateway identity of the run when not testIdentity.
	account string
	// onSend runs before each request is sent.
	onSend func(invoice string)
}

func (*walletOp) Kind() string { return "walletpay" }
func (o *walletOp) Send(ctx context.Context, r gateway.Request) (string, error) {
	_, err := journal.OpenFile(o.path, time.Now).Lock(ctx, o.identity(), requestInvoice(r), "test")
	o.lockedSend = append(o.lockedSend, err)
	if o.onSend != nil {
		o.onSend(requestInvoice(r))
	}
	return o.fakeOp.Send(ctx, r)
}

// identity is the gateway identity the test's runs use.
func (o *walletOp) identity() string {
	if o.account != "" {
		return o.account
	}
	return testIdentity
}

const testIdentity = "identity-of-127.0.0.1:1"

func lockedOptions(t *testing.T) (*Options, string) {
	opts, _, _, _, jpath := testOptions(t)
	opts.GatewayIdentity = func() (string, error) { return testIdentity, nil }
	return opts, jpath
}

// TestSingleHoldsTheInvoice: a money-moving command holds its invoice's
// lock while it sends (another command is refused meanwhile) and until its
// outcome is recorded; the intent records its deadline.
func TestSingleHoldsTheInvoice(t *testing.T) {
	opts, jpath := lockedOptions(t)
	deadline := time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC)
	opts.CommandContext = func(ctx context.Context) (context.Context, context.CancelFunc, error) {
		ctx, cancel := context.WithDeadline(ctx, deadline)
		return ctx, cancel, nil
	}
	op := &walletOp{path: jpath}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Fatal(err)
	}
	var inFlight *journal.InFlightError
	if len(op.lockedSend) != 1 || !errors.As(op.lockedSend[0], &inFlight) || inFlight.Holder.Command != "walletpay" {
		t.Errorf("the lock while sending: %v, want held by the walletpay", op.lockedSend)
	}
	unlock, err := journal.OpenFile(jpath, time.Now).Lock(context.Background(), testIdentity, "INV-1", "test")
	if err != nil {
		t.Fatalf("after the outcome: %v", err)
	}
	unlock()
	attempts, _, _ := journal.Read(jpath)
	if len(attempts) != 1 || !attempts[0].Intent.Deadline.Equal(deadline) || !attempts[0].Outcome.Deadline.IsZero() {
		t.Errorf("intent %+v, want its deadline %v", attempts[0].Intent, deadline)
	}
}

// TestSingleRefusedWhileInFlight: another command holding the invoice is
// in flight: refused at once, exit 6, naming the process; nothing sent,
// nothing journaled.
func TestSingleRefusedWhileInFlight(t *testing.T) {
	opts, jpath := lockedOptions(t)
	unlock, err := journal.OpenFile(jpath, opts.Now).Lock(context.Background(), testIdentity, "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	op := &walletOp{path: jpath}
	err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || !strings.Contains(err.Error(), "a refund on invoice INV-1 is in flight in pid ") ||
		!strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("err %v (kind %v), want exit 6 naming the refund in flight", err, k)
	}
	if len(op.sent) != 0 || len(op.prepared) != 0 {
		t.Errorf("prepared %v, sent %v", op.prepared, op.sent)
	}
	if attempts, _, _ := journal.Read(jpath); len(attempts) != 0 {
		t.Errorf("journaled %+v", attempts)
	}
	// The same invoice on another gateway account is another lock.
	opts.GatewayIdentity = func() (string, error) { return "another-account", nil }
	op.account = "another-account"
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Errorf("another account: %v", err)
	}
}

// TestSingleRefusedWhileUnknown: an attempt of the kind on the invoice
// whose outcome is unknown (a process killed after its intent: the lock
// is free), made on the same gateway account under any profile name,
// refuses the next, exit 2, with the command that settles it; once
// settled, the invoice can be sent.
func TestSingleRefusedWhileUnknown(t *testing.T) {
	opts, jpath := lockedOptions(t)
	j, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	dead := journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: testIdentity, Attempt: "dead", Time: opts.Now(),
		Profile: "other-profile", Invoice: "INV-1"}
	_ = j.Append(dead)
	_ = j.Close()
	op := &walletOp{path: jpath}
	err = RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "has a walletpay attempt whose outcome is unknown (attempt dead") ||
		!strings.Contains(cmdutil.HintOf(err), "paycli status --invoice INV-1") {
		t.Errorf("err %v (kind %v, hint %q)", err, k, cmdutil.HintOf(err))
	}
	if len(op.sent) != 0 || len(op.prepared) != 0 {
		t.Errorf("prepared %v, sent %v", op.prepared, op.sent)
	}
	// Another invoice is no concern of it.
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-2"); err != nil {
		t.Errorf("INV-2: %v", err)
	}
	// A not_found from check status (as an older paycli recorded it)
	// settles nothing (issue 39): still refused.
	attempts, _, _ := journal.Read(jpath)
	store := journal.OpenFile(jpath, opts.Now)
	_ = store.Append(context.Background(), journal.Reconciliation(attempts[0], journal.Learned{Outcome: journal.NotFound}, journal.ViaReconcile, opts.Now()))
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); !strings.Contains(fmt.Sprint(err), "has a walletpay attempt whose outcome is unknown (attempt dead") {
		t.Errorf("after a not_found from check status: %v, want refused", err)
	}
	// Settled (the desk lead abandoned it): sent.
	_ = store.Append(context.Background(), journal.Reconciliation(attempts[0], journal.Learned{Outcome: journal.NotFound}, journal.ViaSettle, opts.Now().Add(time.Second)))
	_ = store.Close()
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1"); err != nil {
		t.Errorf("after the lead's settlement: %v", err)
	}
}

// TestBatchLines: a line whose invoice another command holds is not sent
// (duplicate, naming it), also when that command's intent, without an
// outcome yet, was in the journal when the batch began; a line whose invoice a single command left
// unknown is unknown, not sent; the others are sent, each holding its
// invoice while it is sent.
func TestBatchLines(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	opts.GatewayIdentity = func() (string, error) { return testIdentity, nil }
	j, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	_ = j.Append(journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: testIdentity, Attempt: "dead", Invoice: "LOST"})
	// BUSY's command has written its intent and holds the lock: in flight,
	// not unknown.
	_ = j.Append(journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: testIdentity, Attempt: "live", Invoice: "BUSY"})
	_ = j.Close()
	unlock, err := journal.OpenFile(jpath, opts.Now).Lock(context.Background(), testIdentity, "BUSY", "walletpay")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, inv := range []string{"BUSY", "LOST", "FREE"} {
		fmt.Fprintf(in, "{\"invoice\":%q}\n", inv)
	}
	opts.Batch = "-"
	op := &walletOp{path: jpath}
	err = RunBatch(context.Background(), opts, pipelineOf(op))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown {
		t.Errorf("exit kind %v, want unknown (7)", k)
	}
	if len(op.sent) != 1 || op.sent[0] != "FREE" {
		t.Errorf("sent %v, want FREE only", op.sent)
	}
	got := out.String()
	for _, want := range []string{`"invoice":"BUSY","outcome":"duplicate"`, "a walletpay on invoice BUSY is in flight in pid ", "; not sent",
		`"invoice":"LOST","outcome":"unknown"`, `"invoice":"FREE","outcome":"succeeded"`} {
		if !strings.Contains(got, want) {
			t.Errorf("results lack %s:\n%s", want, got)
		}
	}
	var inFlight *journal.InFlightError
	if len(op.lockedSend) != 1 || !errors.As(op.lockedSend[0], &inFlight) {
		t.Errorf("FREE was sent without its lock held: %v", op.lockedSend)
	}
}

// TestBatchDecidesEachLineWhenItsTurnComes: a line is decided again once
// its invoice is locked, from the journal as it is then: an invoice
// another process paid after the batch began is skipped, not sent.
func TestBatchDecidesEachLineWhenItsTurnComes(t *testing.T) {
	opts, in, out, _, jpath := testOptions(t)
	opts.GatewayIdentity = func() (string, error) { return testIdentity, nil }
	op := &walletOp{path: jpath}
	op.onSend = func(invoice string) {
		if invoice != "FIRST" {
			return
		}
		// Another paycli pays SECOND meanwhile.
		j, err := journal.Open(jpath)
		if err != nil {
			t.Error(err)
			return
		}
		paid := journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: testIdentity, Attempt: "other", Invoice: "SECOND"}
		_ = j.Append(paid)
		paid.Type, paid.Outcome, paid.OrderNo = journal.TypeOutcome, journal.Succeeded, "VP-OTHER"
		_ = j.Append(paid)
		_ = j.Close()
	}
	fmt.Fprint(in, "{\"invoice\":\"FIRST\"}\n{\"invoice\":\"SECOND\"}\n")
	opts.Batch, opts.Parallel = "-", 1
	if err := RunBatch(context.Background(), opts, pipelineOf(op)); err != nil {
		t.Fatal(err)
	}
	if len(op.sent) != 1 || op.sent[0] != "FIRST" {
		t.Errorf("sent %v, want FIRST only", op.sent)
	}
	if !strings.Contains(out.String(), `"invoice":"SECOND","outcome":"skipped","status_code":null,"order_no":"VP-OTHER"`) {
		t.Errorf("results:\n%s", out)
	}
}
