package moneyop

import (
	"context"
	"errors"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
)

// TestRotatedCredentialsKeepTheAccount: the desk rotates its API
// credentials (a new app_id, the same merchant_key): an attempt of unknown
// outcome made under the old app_id still blocks its invoice, in the
// pipeline and in the store (issue 39, defect 4).
func TestRotatedCredentialsKeepTheAccount(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	op := &fakeOp{}
	if err := RunSingle(context.Background(), opts, pipelineOf(op), "lost"); err == nil {
		t.Fatal("the lost answer was not an unknown outcome")
	}
	cfg, _ := opts.Config()
	cfg.AppID = "app-rotated"
	err := RunSingle(context.Background(), opts, pipelineOf(op), "lost")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || len(op.sent) != 1 {
		t.Fatalf("after the rotation: err %v (kind %v), sent %v; want exit 2 and nothing sent again", err, k, op.sent)
	}
	store := journal.OpenFile(jpath, opts.Now)
	defer store.Close()
	const base = "http://127.0.0.1:1/ccpayment"
	err = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "fake",
		Gateway: journal.AccountIdentity(base, "mk"), AppGateway: journal.Identity(base, "app-rotated"),
		Attempt: "new-1", Profile: "p", Invoice: "lost"})
	if !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("the store took the intent: %v", err)
	}
}

// TestEarlierPaycliLinesAreTheAccounts: a journal written before accounts
// were named by their merchant (lines carrying the app_id's identity) is
// carried over: its unknown attempt blocks the invoice for the same
// profile's app_id, in the pipeline and in the store.
func TestEarlierPaycliLinesAreTheAccounts(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	const base = "http://127.0.0.1:1/ccpayment"
	old := journal.OpenFile(jpath, opts.Now)
	if err := old.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "fake",
		Gateway: journal.Identity(base, "app"), Attempt: "old-1", Profile: "p", BaseURL: base, Invoice: "INV-1"}); err != nil {
		t.Fatal(err)
	}
	_ = old.Close()
	op := &fakeOp{}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || len(op.sent) != 0 {
		t.Fatalf("err %v (kind %v), sent %v; want exit 2, nothing sent", err, k, op.sent)
	}
	store := journal.OpenFile(jpath, opts.Now)
	defer store.Close()
	err = store.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "fake",
		Gateway: journal.AccountIdentity(base, "mk"), AppGateway: journal.Identity(base, "app"),
		Attempt: "new-1", Profile: "p", Invoice: "INV-1"})
	if !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("the store took the intent: %v", err)
	}
}

// TestEarlierPaycliLinesSurviveARotation: an earlier paycli's unknown
// attempt (the app_id's name, no app_gateway) still blocks its invoice
// after the desk rotates to another app_id: the line of the same profile
// and base URL is read as the account's legacy line.
func TestEarlierPaycliLinesSurviveARotation(t *testing.T) {
	opts, _, _, _, jpath := testOptions(t)
	const base = "http://127.0.0.1:1/ccpayment"
	old := journal.OpenFile(jpath, opts.Now)
	if err := old.Append(context.Background(), journal.Entry{Type: journal.TypeIntent, Kind: "fake",
		Gateway: journal.Identity(base, "app"), Attempt: "old-1", Profile: "p", BaseURL: base, Invoice: "INV-1"}); err != nil {
		t.Fatal(err)
	}
	_ = old.Close()
	cfg, _ := opts.Config()
	cfg.AppID = "app-rotated"
	op := &fakeOp{}
	err := RunSingle(context.Background(), opts, pipelineOf(op), "INV-1")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || len(op.sent) != 0 {
		t.Fatalf("err %v (kind %v), sent %v; want exit 2, nothing sent", err, k, op.sent)
	}
}
