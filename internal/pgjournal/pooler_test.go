package pgjournal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

func openURL(t *testing.T, url, host string, pid int) (*Store, error) {
	t.Helper()
	s, err := Open(context.Background(), Options{URL: url, Spool: filepath.Join(t.TempDir(), "spool.jsonl"),
		Now: func() time.Time { return t0 }, OSUser: "os", Host: host, PID: pid, Application: "paycli/test"})
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

// TestPoolerModeDetected: behind PgBouncer in transaction or statement
// mode Open (and Init) refuses, naming the mode and what to point the journal at,
// before anything else can fail; behind a session-mode PgBouncer and on
// the server itself it opens (no false alarm), several times over. In
// transaction mode with server_round_robin = 1 (idle server sessions
// handed out in turn, not the one idle last first) too, with two server
// sessions idle in the pool: that order hid the sharing from a check that
// relied on PgBouncer's default (issue 39, item 9).
func TestPoolerModeDetected(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	for _, c := range []struct {
		name string
		mode pgtest.PoolMode
		opts []pgtest.PoolerOption
	}{
		{"transaction", pgtest.PoolTransaction, nil},
		{"statement", pgtest.PoolStatement, nil},
		{"transaction, round robin", pgtest.PoolTransaction, []pgtest.PoolerOption{pgtest.RoundRobin()}},
	} {
		mode := c.mode
		t.Run(c.name, func(t *testing.T) {
			p := srv.Pooler(t, mode, c.opts...)
			if mode == pgtest.PoolTransaction {
				idleSessions(t, p.URL("ayse", db)+"&default_query_exec_mode=simple_protocol", 2)
			}
			for i := range 5 {
				_, err := openURL(t, p.URL("ayse", db), "desk-1", 100+i)
				var pe *PoolerError
				if !errors.As(err, &pe) || pe.Mode != string(mode) {
					t.Fatalf("Open #%d behind PgBouncer in %s mode: %v, want a PoolerError naming the mode", i, c.name, err)
				}
				want := fmt.Sprintf("is behind a connection pooler in %s mode: invoice locks cannot hold there; point journal at a session-mode pool or the server itself", mode)
				if !strings.Contains(err.Error(), want) || errors.Is(err, journal.ErrUnavailable) {
					t.Errorf("error %q, want it to say %q and not be an outage", err, want)
				}
			}
			// journal init too, before pgx's prepared statements or a
			// transaction block fail there.
			if _, err := Init(context.Background(), p.URL("desk_admin", db), nil, nil); !errors.As(err, new(*PoolerError)) {
				t.Errorf("Init behind PgBouncer in %s mode: %v, want a PoolerError", c.name, err)
			}
		})
	}
	for _, where := range []string{"server", "session"} {
		t.Run(where, func(t *testing.T) {
			url := srv.URL("ayse", db)
			if where == "session" {
				url = srv.Pooler(t, pgtest.PoolSession).URL("ayse", db)
			}
			for i := range 5 {
				if _, err := openURL(t, url, "desk-1", 100+i); err != nil {
					t.Fatalf("Open #%d on the %s: %v", i, where, err)
				}
			}
			if _, err := Init(context.Background(), strings.Replace(url, "ayse", "desk_admin", 1), []string{"ayse"}, nil); err != nil {
				t.Errorf("Init on the %s: %v", where, err)
			}
		})
	}
}

// idleSessions leaves n server sessions idle in a transaction pool at
// url: n clients each hold a transaction at once, so that each has a
// session of its own, then end it and leave.
func idleSessions(t *testing.T, url string, n int) {
	t.Helper()
	ctx := context.Background()
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
		if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	for _, conn := range conns {
		if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if err := conn.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// lockRace has n operators (roles op0…) take one invoice's lock at once
// through url; the one that gets it holds it until every other has been
// answered. It returns how many got it and the others' errors.
func lockRace(t *testing.T, srv *pgtest.Server, db, url string, n int) (winners int, refusals []error) {
	t.Helper()
	admin := connect(t, srv.URL("desk_admin", db))
	stores := make([]*Store, n)
	for i := range n {
		role := fmt.Sprintf("op%d", i)
		srv.Role(t, role)
		if err := Grant(context.Background(), admin, role); err != nil {
			t.Fatal(err)
		}
		s, err := openURL(t, strings.Replace(url, "ayse", role, 1), "desk", 1000+i)
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = s
	}
	var mu sync.Mutex
	var tried, all sync.WaitGroup
	tried.Add(n)
	for _, s := range stores {
		all.Go(func() {
			unlock, err := s.Lock(context.Background(), "gw-1", "INV-P", "refund")
			tried.Done()
			mu.Lock()
			if err == nil {
				winners++
			} else {
				refusals = append(refusals, err)
			}
			mu.Unlock()
			if err == nil {
				tried.Wait() // hold it until everyone has tried
				unlock()
			}
		})
	}
	all.Wait()
	return winners, refusals
}

// TestSessionPoolerHoldsLocks: behind PgBouncer in session mode each
// connection keeps its server session for its life, so invoice locks hold
// as on the server: ten operators taking one invoice's lock at once, one
// gets it and nine are told it is in flight; a lock whose session is
// killed mid-flight refuses its intent, and another operator may go on.
func TestSessionPoolerHoldsLocks(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	p := srv.Pooler(t, pgtest.PoolSession)
	winners, refusals := lockRace(t, srv, db, p.URL("ayse", db), 10)
	var inFlight *journal.InFlightError
	for _, err := range refusals {
		if !errors.As(err, &inFlight) {
			t.Errorf("a refused lock: %v, want in flight", err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d operators got the lock at once through a session pool, want 1", winners)
	}

	ctx := context.Background()
	ayse, err := openURL(t, p.URL("ayse", db), "desk-1", 101)
	if err != nil {
		t.Fatal(err)
	}
	mehmet, err := openURL(t, p.URL("mehmet", db), "desk-2", 202)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := ayse.Lock(ctx, "gw-1", "INV-1", "refund")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := ayse.Append(ctx, intent("att-1", "INV-1", "RF-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := mehmet.Lock(ctx, "gw-1", "INV-1", "refund"); !errors.As(err, &inFlight) || inFlight.Holder.User != "ayse" {
		t.Fatalf("mehmet's lock while ayşe holds it: %v, want in flight by ayse", err)
	}
	// The server session behind her lock is killed (as a restart would).
	srv.Exec(t, db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'ayse' AND datname = current_database() AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')")
	deadline := time.Now().Add(10 * time.Second)
	var mu func()
	for {
		if mu, err = mehmet.Lock(ctx, "gw-1", "INV-1", "refund"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed session's lock is still held: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer mu()
	if err := ayse.Append(ctx, intent("att-2", "INV-1", "RF-2")); !errors.Is(err, journal.ErrUnavailable) {
		t.Fatalf("ayşe's intent after her lock's session was killed: %v, want refused", err)
	}
	if got, _ := mehmet.Attempts(ctx, "INV-1"); len(got) != 1 || got[0].Intent.Attempt != "att-1" {
		t.Errorf("attempts %+v, want only att-1", got)
	}
}

// TestTransactionPoolerWouldDouble shows what the check prevents, and
// fails if the hazard docs/journal.md describes is not real: behind
// PgBouncer in transaction mode, with the check skipped, ayşe takes an
// invoice's lock in one terminal; the server session holding it goes back
// to the pool after her statement, and her command in another terminal
// (the same role: PgBouncer pools per database and role) is given that
// session: its lock is granted too (advisory locks nest in a session).
func TestTransactionPoolerWouldDouble(t *testing.T) {
	// Not parallel: it sets the package's poolerCheck.
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	p := srv.Pooler(t, pgtest.PoolTransaction)
	poolerCheck = func(context.Context, *pgxpool.Pool, string) error { return nil }
	t.Cleanup(func() { poolerCheck = checkPooler })
	ctx := context.Background()
	var stores []*Store
	for i, role := range []string{"ayse", "ayse"} {
		// pgx's prepared statements would fail first behind this pool.
		s, err := openURL(t, p.URL(role, db)+"&default_query_exec_mode=simple_protocol", "desk", 100+i)
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	if _, err := stores[0].Lock(ctx, "gw-1", "INV-1", "refund"); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[1].Lock(ctx, "gw-1", "INV-1", "refund"); err != nil {
		t.Fatalf("her second lock behind a transaction pool was refused (%v): the hazard the check guards against did not show", err)
	}
}
