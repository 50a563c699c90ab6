//go:build unix

package app

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// deskScaleEnv sizes TestDeskConcurrentBatches beyond its CI size:
// PAYCLI_DESK_SCALE=10 makes every batch ten times as long
// (docs/performance.md, "Shared journal (PostgreSQL)").
const deskScaleEnv = "PAYCLI_DESK_SCALE"

// operators adds n operators, op01…opNN, granted by one `journal init`.
func (d *desk) operators(t *testing.T, n int) []*refundSandbox {
	t.Helper()
	args := []string{"journal", "init", "--url", d.srv.URL(deskOwner, d.db)}
	ops := make([]*refundSandbox, n)
	for i := range ops {
		role := fmt.Sprintf("op%02d", i+1)
		d.srv.Role(t, role)
		args = append(args, "--grant", role)
		ops[i] = &refundSandbox{baseURL: d.baseURL, home: t.TempDir(), journalURL: d.srv.URL(role, d.db)}
	}
	if code, stdout, stderr := d.exec(t, args...); code != ExitOK {
		t.Fatalf("journal init: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return ops
}

// attemptRow is one attempt of the shared journal, read as the owner.
type attemptRow struct {
	attempt, kind, invoice, operator, ref string
	// outcome is the attempt's last outcome or reconciliation ("" for none).
	outcome string
}

// attempts reads every attempt of the shared journal, with its last
// outcome or reconcile line, as the owner.
func (d *desk) attempts(t *testing.T) []attemptRow {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.srv.URL(deskOwner, d.db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT i.attempt, i.kind, i.invoice, i.operator, coalesce(i.entry ->> 'ref', ''),
    coalesce((SELECT o.outcome FROM paycli.journal_lines o WHERE o.attempt = i.attempt AND o.type <> 'intent' ORDER BY o.seq DESC LIMIT 1), '')
FROM paycli.journal_lines i WHERE i.type = 'intent' ORDER BY i.seq`)
	if err != nil {
		t.Fatal(err)
	}
	var out []attemptRow
	for rows.Next() {
		var a attemptRow
		if err := rows.Scan(&a.attempt, &a.kind, &a.invoice, &a.operator, &a.ref, &a.outcome); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// overlappingBatches are the refund batches of n operators over invoices
// DB-0001…, perOp lines each: operator i's lines are invoices i*perOp/2 …
// i*perOp/2+perOp-1 (mod the pool), so that every invoice is in two
// operators' batches, in the same order, meant once: a refund of 10.00.
func overlappingBatches(n, perOp int) (invoices []string, batches []string) {
	pool := n * perOp / 2
	for i := range pool {
		invoices = append(invoices, fmt.Sprintf("DB-%04d", i+1))
	}
	for op := range n {
		var b strings.Builder
		for k := range perOp {
			fmt.Fprintf(&b, `{"invoice":%q,"amount":"10.00"}`+"\n", invoices[(op*perOp/2+k)%pool])
		}
		batches = append(batches, b.String())
	}
	return invoices, batches
}

// TestDeskConcurrentBatches (issue 26): 20 operators, each a real paycli
// process with a role of its own, run refund batches at once against one
// shared journal, every invoice in two of them. Nothing is lost (every
// attempt has its intent and outcome, every line a result) and nothing is
// doubled (each invoice refunded exactly once at the sandbox, and once in
// the journal): the second operator to reach an invoice is refused by its
// lock (in flight, exit 6) or skips it (the journal shows it made).
func TestDeskConcurrentBatches(t *testing.T) {
	t.Parallel()
	const operators = 20
	perOp := 10
	if s, err := strconv.Atoi(os.Getenv(deskScaleEnv)); err == nil && s > 1 {
		perOp *= s
	}
	d := newSharedDesk(t)
	ops := d.operators(t, operators)
	invoices, batches := overlappingBatches(operators, perOp)
	for _, inv := range invoices {
		d.sale(t, inv, "150.00")
	}

	start := time.Now()
	codes, stdouts, stderrs := make([]int, operators), make([]string, operators), make([]string, operators)
	var wg sync.WaitGroup
	for i, op := range ops {
		file := filepath.Join(t.TempDir(), "refunds.jsonl")
		if err := os.WriteFile(file, []byte(batches[i]), 0o600); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			codes[i], stdouts[i], stderrs[i] = op.exec(t, "refund", "--batch", file, "--yes", "--parallel", "4")
		})
	}
	wg.Wait()
	took := time.Since(start)

	outcomes := map[string]int{}
	for i := range ops {
		if codes[i] != ExitOK && codes[i] != ExitDuplicate {
			t.Errorf("operator %d: exit %d, want 0 or 6\n%s", i+1, codes[i], stderrs[i])
		}
		lines := 0
		sc := bufio.NewScanner(strings.NewReader(stdouts[i]))
		for sc.Scan() {
			var r struct{ Outcome, Error string }
			decodeJSON(t, sc.Text(), &r)
			switch {
			case r.Outcome == "duplicate" && !strings.Contains(r.Error, " is in flight"):
				t.Errorf("operator %d: a duplicate not refused by the lock: %s", i+1, sc.Text())
			case r.Outcome != "succeeded" && r.Outcome != "skipped" && r.Outcome != "duplicate":
				t.Errorf("operator %d: %s", i+1, sc.Text())
			}
			outcomes[r.Outcome]++
			lines++
		}
		if lines != perOp {
			t.Errorf("operator %d: %d results for %d lines\n%s", i+1, lines, perOp, stdouts[i])
		}
	}

	made := map[string][]string{}
	for _, a := range d.attempts(t) {
		if a.outcome == "" {
			t.Errorf("attempt %s on %s by %s has no outcome", a.attempt, a.invoice, a.operator)
		}
		if a.outcome == "succeeded" {
			made[a.invoice] = append(made[a.invoice], a.operator)
		}
	}
	for _, inv := range invoices {
		if len(made[inv]) != 1 {
			t.Errorf("%s: the journal shows it refunded by %v, want once", inv, made[inv])
		}
		if _, refunds := d.status(t, inv); len(refunds) != 1 {
			t.Errorf("%s: the sandbox holds %d refunds, want 1", inv, len(refunds))
		}
	}
	if n := int(d.arrived.Load()); n != len(invoices) {
		t.Errorf("%d refund requests reached the sandbox for %d invoices", n, len(invoices))
	}
	if again := d.resent(); len(again) != 0 {
		t.Errorf("refunds sent more than once: %v", again)
	}
	t.Logf("%d operators, %d lines over %d invoices in %s (%.0f lines/s): %v", operators, operators*perOp, len(invoices),
		took.Round(time.Millisecond), float64(operators*perOp)/took.Seconds(), outcomes)
}
