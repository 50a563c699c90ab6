package audit

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/ledger"
)

// settleNow is the settling's clock.
var settleNow = time.Date(2025, 3, 6, 12, 0, 0, 0, time.UTC)

// settleStore is a file journal holding one unknown walletpay attempt a1
// on invoice A, sent at sent and written under the account name gw.
func settleStore(t *testing.T, path, gw string, sent time.Time) *journal.File {
	t.Helper()
	store := journal.OpenFile(path, func() time.Time { return settleNow })
	in := journal.Entry{Type: journal.TypeIntent, Kind: "walletpay", Gateway: gw, Attempt: "a1", Time: sent, Deadline: sent.Add(30 * time.Second),
		Invoice: "A", Amount: "100", Currency: "TRY"}
	if err := store.Append(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return store
}

func settleOpts() *Options {
	ios, _, _, _ := iostreams.Test()
	return &Options{Deps: cmdutil.Deps{IO: ios, Now: func() time.Time { return settleNow }},
		Kinds: journal.Kinds{{Name: "walletpay", Sale: true}}, Who: func() (string, string) { return "desk", "host" }}
}

func named(outcomes ...string) *ledger.Result {
	res := &ledger.Result{}
	for _, o := range outcomes {
		res.Differences = append(res.Differences, ledger.Difference{Group: ledger.Named, What: ledger.WhatSettles, Invoice: "A", Attempt: "a1",
			Settle: &ledger.Settlement{Outcome: o, Evidence: &journal.Evidence{TransactionType: "ledger"}}})
	}
	return res
}

// TestSettleRefuses: --settle records nothing for an attempt the ledger
// gives two outcomes, for a sale still in flight, or while another holds
// the invoice's lock on the account's identity (the line's own account
// name may be an earlier paycli's: review 41 #1, #10); else it records.
func TestSettleRefuses(t *testing.T) {
	ctx := context.Background()
	old := settleNow.Add(-time.Hour)
	tests := []struct {
		name     string
		sent     time.Time
		res      *ledger.Result
		lockedBy string
		want     int
	}{
		{"one outcome", old, named(journal.Succeeded), "", 1},
		{"two outcomes", old, named(journal.Declined, journal.Succeeded), "", 0},
		{"in flight", settleNow.Add(-time.Minute), named(journal.Succeeded), "", 0},
		{"identity locked", old, named(journal.Succeeded), "identity", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			store := settleStore(t, path, "app-id-name", tt.sent)
			if tt.lockedBy != "" {
				other := journal.OpenFile(path, func() time.Time { return settleNow })
				unlock, err := other.Lock(ctx, tt.lockedBy, "A", "refund")
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
			}
			done, err := settle(ctx, settleOpts(), store, "identity", tt.res)
			if err != nil {
				t.Fatal(err)
			}
			found, err := store.Attempts(ctx, "A")
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != tt.want || (len(journal.UnresolvedAll(found)) == 0) != (tt.want == 1) {
				t.Errorf("settled %q, want %d", done, tt.want)
			}
		})
	}
}
