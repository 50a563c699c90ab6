package walletpay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestBatchResumeIdentityAndReconciliation: a resumed batch skips an
// invoice only on the word of its own gateway identity (a success from
// another identity or from a legacy line without one is sent again), a
// legacy unknown attempt at the same base URL still blocks, and
// reconciliations count: reconciled-paid is skipped with its order
// number, settled not made by the desk lead is sent, and a not_found
// from check status (an older paycli's line) settles nothing (issue 39).
func TestBatchResumeIdentityAndReconciliation(t *testing.T) {
	fx := newFixture(t)
	cfg, _ := fx.opts.Config()
	client, _ := fx.opts.Gateway()
	base := client.BaseURL()
	id := journal.Identity(base, cfg.AppID)
	elsewhere := journal.Identity("https://elsewhere.example/ccpayment", cfg.AppID)
	entry := func(attempt, invoice, gateway string) journal.Entry {
		return journal.Entry{Attempt: attempt, Kind: "walletpay", Gateway: gateway, Profile: "test", BaseURL: base, Invoice: invoice}
	}
	code := 100
	writeJournal(t, fx.journal, []journal.Attempt{
		{Intent: entry("a1", "OTHER-PAID", elsewhere), Outcome: &journal.Entry{Outcome: journal.Succeeded, StatusCode: &code, OrderNo: "VP1"}},
		{Intent: entry("a2", "LEGACY-PAID", ""), Outcome: &journal.Entry{Outcome: journal.Succeeded, StatusCode: &code, OrderNo: "VP2"}},
		{Intent: entry("a3", "LEGACY-UNKNOWN", "")},
		{Intent: entry("a4", "REC-PAID", id)},
		{Intent: entry("a5", "REC-GONE", id)},
		{Intent: entry("a6", "REC-NOT-FOUND", id)},
	})
	scope := journal.ScopeFor("walletpay", "test", base, id, false)
	t0 := time.Now()
	attempts, _, err := journal.ReadAll(fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	store := journal.OpenFile(fx.journal, time.Now)
	for inv, l := range map[string]journal.Learned{"REC-PAID": {Outcome: journal.Succeeded, OrderNo: "VP9"}, "REC-GONE": {Outcome: journal.NotFound},
		"REC-NOT-FOUND": {Outcome: journal.NotFound}} {
		via := journal.ViaReconcile
		if inv == "REC-GONE" {
			via = journal.ViaSettle
		}
		for _, a := range journal.Unresolved(attempts, scope, inv) {
			if err := store.Append(t.Context(), journal.Reconciliation(a, l, via, t0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = store.Close()
	var lines []string
	for _, inv := range []string{"OTHER-PAID", "LEGACY-PAID", "LEGACY-UNKNOWN", "REC-PAID", "REC-GONE", "REC-NOT-FOUND"} {
		lines = append(lines, fmt.Sprintf(`{"invoice":%q,"token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, inv, sandboxToken(t, "150.00")))
	}
	fx.in.WriteString(strings.Join(lines, "\n"))
	fx.opts.Batch, fx.opts.Yes, fx.opts.Parallel = "-", true, 1
	_ = walletpayRun(t.Context(), fx.opts)
	got := map[string]string{}
	for _, r := range batchResults(t, fx.out.String()) {
		got[r.Invoice] = r.Outcome
		if r.Invoice == "REC-PAID" && (r.OrderNo == nil || *r.OrderNo != "VP9") {
			t.Errorf("REC-PAID skipped without the reconciled order number: %v", r.OrderNo)
		}
	}
	want := map[string]string{"OTHER-PAID": journal.Succeeded, "LEGACY-PAID": journal.Succeeded, "LEGACY-UNKNOWN": journal.Unknown,
		"REC-PAID": "skipped", "REC-GONE": journal.Succeeded, "REC-NOT-FOUND": journal.Unknown}
	for inv, w := range want {
		if got[inv] != w {
			t.Errorf("%s: %s, want %s", inv, got[inv], w)
		}
	}
	if fx.pays.Load() != 3 {
		t.Errorf("%d payments sent, want 3", fx.pays.Load())
	}
}
