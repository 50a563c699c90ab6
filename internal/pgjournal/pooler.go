package pgjournal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/paycli/paycli/internal/redact"
)

// PoolerError: the shared journal is reached through a connection pooler
// that hands one server session to several clients (PgBouncer in
// transaction or statement mode). An invoice lock is a session advisory
// lock, held by the server session: there, another client's command would
// hold it too, and two refunds could go out. Nothing is sent.
type PoolerError struct {
	URL  string // with its password masked
	Mode string // "transaction" or "statement"
}

func (e *PoolerError) Error() string {
	return fmt.Sprintf("the shared journal at %s is behind a connection pooler in %s mode: invoice locks cannot hold there; "+
		"point journal at a session-mode pool or the server itself", e.URL, e.Mode)
}

// poolerCheck is checkPooler; a test skips it to show what it prevents.
var poolerCheck = checkPooler

// poolerRounds is how many times checkPooler looks; each round is three
// short statements on two connections.
const poolerRounds = 2

// checkPooler refuses a journal behind a pooler that shares server
// sessions between clients. Two connections of this process each keep
// their own server session for their life on the server itself or behind
// a session-mode pooler; so one connection keeps a transaction open (its
// session pinned) while the other asks for its backend's pid before and
// after. A pid seen on both connections at once, or one connection's pid
// changing, is a shared session. A pooler reuses the session idle last
// first (PgBouncer's default), so the open transaction takes the other's.
// A pooler that refuses transaction blocks (statement mode) says so.
//
// Every statement uses the simple protocol: behind a transaction pooler
// pgx's prepared statements may fail, and this check must speak first.
func checkPooler(ctx context.Context, pool *pgxpool.Pool, url string) error {
	// Both connected at once: the second costs no more time than the first.
	var conns [2]*pgxpool.Conn
	var errs [2]error
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], errs[i] = pool.Acquire(ctx) })
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			defer c.Release()
		}
	}
	for _, err := range errs {
		if err != nil {
			return connectError(err, url)
		}
	}
	return checkSessions(ctx, conns[0].Conn(), conns[1].Conn(), url)
}

// checkPoolerConn is checkPooler for Init's one connection: it opens a
// second one beside it for the look.
func checkPoolerConn(ctx context.Context, conn *pgx.Conn, url string) error {
	other, err := pgx.ConnectConfig(ctx, conn.Config().Copy())
	if err != nil {
		return connectError(err, url)
	}
	defer other.Close(context.WithoutCancel(ctx))
	return checkSessions(ctx, conn, other, url)
}

// checkSessions looks, with a and b, whether their server sessions are
// shared with other clients (checkPooler).
func checkSessions(ctx context.Context, a, b *pgx.Conn, url string) error {
	for round := range poolerRounds {
		probe, pinned := a, b
		if round%2 == 1 {
			probe, pinned = pinned, probe
		}
		shared, err := sessionShared(ctx, probe, pinned)
		if mode := poolerRefusal(err); mode != "" {
			return &PoolerError{URL: redact.URL(url), Mode: mode}
		}
		if err != nil {
			return &UnavailableError{URL: redact.URL(url), Err: redactURLError(err, url)}
		}
		if shared {
			return &PoolerError{URL: redact.URL(url), Mode: "transaction"}
		}
	}
	return nil
}

// sessionShared tells whether probe's server session changed, or was
// pinned's, while pinned held a transaction open.
func sessionShared(ctx context.Context, probe, pinned *pgx.Conn) (bool, error) {
	before, err := backendPID(ctx, probe)
	if err != nil {
		return false, err
	}
	if _, err := pinned.Exec(ctx, "BEGIN"); err != nil {
		return false, err
	}
	held, err := backendPID(ctx, pinned)
	if err != nil {
		_, _ = pinned.Exec(ctx, "ROLLBACK")
		return false, err
	}
	after, err := backendPID(ctx, probe)
	if _, rerr := pinned.Exec(ctx, "ROLLBACK"); err == nil {
		err = rerr
	}
	if err != nil {
		return false, err
	}
	return before != after || held == before || held == after, nil
}

func backendPID(ctx context.Context, conn *pgx.Conn) (int32, error) {
	var pid int32
	err := conn.QueryRow(ctx, "SELECT pg_backend_pid()", pgx.QueryExecModeSimpleProtocol).Scan(&pid)
	return pid, err
}

// poolerRefusal names the pool mode a pooler's refusal of a transaction
// block reveals (PgBouncer: "transaction blocks not allowed in statement
// pooling mode"), or "".
func poolerRefusal(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && strings.Contains(pgErr.Message, "statement pooling mode") {
		return "statement"
	}
	return ""
}
