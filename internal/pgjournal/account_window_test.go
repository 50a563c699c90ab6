package pgjournal

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/journalgen"
)

// fillPlan writes plan's lines straight into the table with COPY, as a
// fixture of history written as it stands: the user triggers (the rules'
// checks, the columns taken from the entry, the stamps) are off
// meanwhile, and the columns are given as they would make them. It
// analyzes the table, and returns Account's attempts per day.
func fillPlan(t testing.TB, admin *pgx.Conn, plan journalgen.Plan) []int {
	t.Helper()
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "ALTER TABLE paycli.journal_lines DISABLE TRIGGER USER"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "ALTER TABLE paycli.journal_lines ENABLE TRIGGER USER") //nolint:errcheck
	rows := make(chan []any, 4096)
	var perDay []int
	var genErr error
	go func() {
		defer close(rows)
		perDay, genErr = plan.Write(func(e journal.Entry, intentAt time.Time) error {
			entry, err := json.Marshal(e)
			rows <- []any{e.Attempt, e.Type, e.OpKind(), e.Gateway, e.Invoice, e.Outcome, e.Time, intentAt, entry}
			return err
		})
	}()
	cols := []string{"attempt", "type", "kind", "gateway", "invoice", "outcome", "at", "intent_at", "entry"}
	_, err := admin.CopyFrom(ctx, pgx.Identifier{"paycli", "journal_lines"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		return <-rows, nil
	}))
	for range rows {
		// drained when COPY stopped early
	}
	if err != nil || genErr != nil {
		t.Fatal(err, genErr)
	}
	if _, err := admin.Exec(ctx, "ANALYZE paycli.journal_lines"); err != nil {
		t.Fatal(err)
	}
	return perDay
}

// planOf is EXPLAIN's plan of the account's day query.
func planOf(t *testing.T, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, name string, from, to time.Time) string {
	t.Helper()
	rows, err := q.Query(context.Background(), "EXPLAIN "+accountSQL, name, from, to)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestAccountDayIsOneIndexRange: the day's query of an account (of most of
// the day's attempts, or of few: a desk working for several merchants;
// under each of its names) reads one range of journal_lines_account_window
// in time order, never the whole table, on a table whose statistics
// (ANALYZE) make a sequential scan the planner's choice without it.
func TestAccountDayIsOneIndexRange(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	plan := journalgen.Plan{Start: t0, Days: 3, Lines: 60_000, Busy: 1, BusyAttempts: 10_000, Account: "gw-a", Other: "gw-b"}
	perDay := fillPlan(t, admin, plan)
	from, to := plan.Day(1), plan.Day(2)
	t.Run("read", func(t *testing.T) {
		s := openAs(t, srv, db, "ayse", "desk-1", 101)
		var got []journal.Attempt
		err := s.AccountAttempts(context.Background(), journal.Scope{Gateway: "gw-a", Alias: "gw-alias"}, from, to, func(a journal.Attempt) error {
			got = append(got, a)
			return nil
		})
		if err != nil || len(got) != perDay[1] {
			t.Fatalf("%d attempts, %v; want the day's %d", len(got), err, perDay[1])
		}
		reconciled := 0
		for i, a := range got {
			if a.Intent.Gateway != "gw-a" || a.Intent.Time.Before(from) || !a.Intent.Time.Before(to) || (i > 0 && a.Intent.Time.Before(got[i-1].Intent.Time)) {
				t.Fatalf("attempt %d: %+v", i, a.Intent)
			}
			if a.Reconciled != nil {
				reconciled++ // its line was written the next morning
			}
		}
		if reconciled == 0 || reconciled != perDay[1]/50 {
			t.Errorf("%d attempts reconciled the next morning, want %d", reconciled, perDay[1]/50)
		}
	})
	for _, name := range []string{"gw-a", "gw-b", "gw-alias"} {
		got := planOf(t, admin, name, from, to)
		if strings.Contains(got, "Seq Scan") || strings.Contains(got, "Sort") || !strings.Contains(got, "Index Scan using journal_lines_account_window") {
			t.Errorf("the day's query of %v:\n%s\nwant an Index Scan using journal_lines_account_window, no Seq Scan, no Sort", name, got)
		}
	}
	tx, err := admin.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	if _, err := tx.Exec(context.Background(), "DROP INDEX paycli.journal_lines_account_window"); err != nil {
		t.Fatal(err)
	}
	if got := planOf(t, tx, "gw-a", from, to); !strings.Contains(got, "Seq Scan on journal_lines") {
		t.Errorf("without the index the plan is\n%s\nwant a Seq Scan: the fixture does not show the index is needed", got)
	}
}
