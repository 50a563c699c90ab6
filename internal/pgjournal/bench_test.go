package pgjournal

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// durableDesk is a server with fsync on (as in production) and a desk
// database, for measuring.
func durableDesk(b testing.TB) (*pgtest.Server, string, *pgx.Conn) {
	b.Helper()
	srv := pgtest.StartWith(b, pgtest.Options{Durable: true})
	db := srv.Database(b, "desk_admin")
	srv.Role(b, "ayse")
	admin, err := pgx.Connect(context.Background(), srv.URL("desk_admin", db))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { admin.Close(context.Background()) })
	if _, err := Migrate(context.Background(), admin); err != nil {
		b.Fatal(err)
	}
	if err := Grant(context.Background(), admin, "ayse"); err != nil {
		b.Fatal(err)
	}
	return srv, db, admin
}

func benchStore(b *testing.B, srv *pgtest.Server, db string) *Store {
	b.Helper()
	s, err := Open(context.Background(), Options{URL: srv.URL("ayse", db), Now: func() time.Time { return t0 }, PID: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkIntentCommit: one intent appended, from the call until the
// database has committed it to disk (fsync on), on loopback; p50 and p99
// of the calls are reported beside the mean.
func BenchmarkIntentCommit(b *testing.B) {
	srv, db, _ := durableDesk(b)
	s := benchStore(b, srv, db)
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		in := intent(fmt.Sprintf("bench-%d", i), fmt.Sprintf("INV-%d", i), "")
		start := time.Now()
		if err := s.Append(ctx, in); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// fill writes attempts intents (and as many outcomes) straight into the
// table, spread over days days ending at t0, and returns the invoice of
// one in the middle.
func fill(b testing.TB, admin *pgx.Conn, attempts, days int) string {
	b.Helper()
	// A fixture of history, written as it stands: the rule's trigger (one
	// check and one lock per intent) is off meanwhile.
	if _, err := admin.Exec(context.Background(), "ALTER TABLE paycli.journal_lines DISABLE TRIGGER journal_lines_verify"); err != nil {
		b.Fatal(err)
	}
	defer admin.Exec(context.Background(), "ALTER TABLE paycli.journal_lines ENABLE TRIGGER journal_lines_verify") //nolint:errcheck
	// Intents first: an outcome's line takes its intent's time from it.
	for _, t := range []string{"intent", "outcome"} {
		_, err := admin.Exec(context.Background(), `
INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, outcome, at, intent_at, entry)
SELECT 'att-' || n, $4, 'refund', 'gw-1', 'INV-' || n, CASE WHEN $4 = 'outcome' THEN (ARRAY['succeeded','declined','unknown'])[1 + n % 3] ELSE '' END,
       w, w,
       jsonb_build_object('type', $4, 'kind', 'refund', 'gateway', 'gw-1', 'attempt', 'att-' || n, 'invoice', 'INV-' || n,
           'time', to_char(w AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
           'profile', 'live', 'base_url', 'https://gw.example/ccpayment', 'amount', '50.00', 'currency', 'TRY',
           'outcome', CASE WHEN $4 = 'outcome' THEN (ARRAY['succeeded','declined','unknown'])[1 + n % 3] ELSE NULL END)
FROM generate_series(1, $2) AS n, LATERAL (SELECT $1::timestamptz - make_interval(secs => (n::float8 / $2) * $3 * 86400) AS w) AS x`,
			t0, attempts, days, t)
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := admin.Exec(context.Background(), "ANALYZE paycli.journal_lines"); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("INV-%d", attempts/2)
}

// BenchmarkInvoiceAmongAMillion: the attempts of one invoice (what
// `paycli journal INVOICE` and every money command's first look read)
// among 1,000,000 attempts.
func BenchmarkInvoiceAmongAMillion(b *testing.B) {
	srv, db, admin := durableDesk(b)
	invoice := fill(b, admin, 1_000_000, 365)
	s := benchStore(b, srv, db)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		got, err := s.Attempts(ctx, invoice)
		if err != nil || len(got) != 1 || !got[0].Recorded() {
			b.Fatalf("%+v, %v", got, err)
		}
	}
}

// BenchmarkSummaryOfADay: `paycli journal summary` of a day that holds
// 100,000 attempts (among 1,000,000 over ten days): the window read, then
// totalled.
func BenchmarkSummaryOfADay(b *testing.B) {
	srv, db, admin := durableDesk(b)
	fill(b, admin, 1_000_000, 10)
	s := benchStore(b, srv, db)
	ctx := context.Background()
	day := t0.Add(-24 * time.Hour)
	b.ResetTimer()
	for range b.N {
		rows, err := s.Summary(ctx, day, t0)
		if err != nil {
			b.Fatal(err)
		}
		if n := total(rows); n < 99_000 || n > 101_000 {
			b.Fatalf("a day of %d attempts", n)
		}
	}
}

func total(rows []journal.SummaryRow) int {
	n := 0
	for _, r := range rows {
		n += r.Attempts
	}
	return n
}
