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

// poolerRounds is how many times checkPooler looks; each round is seven
// short statements on two connections.
const poolerRounds = 2

// checkPooler refuses a journal behind a pooler that shares server
// sessions between clients. Two connections of this process each keep
// their own server session for their life on the server itself or behind
// a session-mode pooler. So both open a transaction (each then holds a
// server session of its own, wherever it is), both end it, one after the
// other, and one of them asks again for its backend's pid: on a shared
// pool it is handed a session from the pool, and the session the other
// connection gave back is in that pool. A pooler that hands out the
// session idle last first (PgBouncer's default) gives it the other's
// session when the other ended last; one that hands them out in turn
// (server_round_robin = 1) gives it the other's, or an older one, when it
// ended last itself: a round of each, so that the check does not rest on
// either order. A pid that changed, or two connections on one pid, is a
// shared session. A pooler that refuses transaction blocks (statement
// mode) says so.
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
		shared, err := sessionShared(ctx, a, b, round%2 == 1)
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

// sessionShared tells whether probe's server session is not its own: both
// connections in a transaction at once are on one session, or probe is on
// another session once both transactions are over, ended probe's last
// when probeLast, other's last otherwise.
func sessionShared(ctx context.Context, probe, other *pgx.Conn, probeLast bool) (bool, error) {
	begin := func(conn *pgx.Conn) (int32, error) {
		if _, err := conn.Exec(ctx, "BEGIN", pgx.QueryExecModeSimpleProtocol); err != nil {
			return 0, err
		}
		return backendPID(ctx, conn)
	}
	held, err := begin(probe)
	if err != nil {
		rollback(ctx, probe)
		return false, err
	}
	beside, err := begin(other)
	if err != nil {
		rollback(ctx, other)
		rollback(ctx, probe)
		return false, err
	}
	first, last := other, probe
	if !probeLast {
		first, last = probe, other
	}
	if _, err := first.Exec(ctx, "ROLLBACK", pgx.QueryExecModeSimpleProtocol); err != nil {
		rollback(ctx, last)
		return false, err
	}
	if _, err := last.Exec(ctx, "ROLLBACK", pgx.QueryExecModeSimpleProtocol); err != nil {
		return false, err
	}
	after, err := backendPID(ctx, probe)
	if err != nil {
		return false, err
	}
	return held == beside || after != held, nil
}

// rollback ends conn's transaction, if it has one, on the way out of a
// failed look.
func rollback(ctx context.Context, conn *pgx.Conn) {
	_, _ = conn.Exec(ctx, "ROLLBACK", pgx.QueryExecModeSimpleProtocol)
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
