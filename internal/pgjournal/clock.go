package pgjournal

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkewWarning is how far this machine's clock may be from the database's
// before Open says so (Options.Warn).
const SkewWarning = 5 * time.Second

// measureClock measures the database's clock against this machine's
// (Options.Now), halfway through the round trip, and warns when they are
// further apart than SkewWarning.
func (s *Store) measureClock(ctx context.Context, conn *pgx.Conn) error {
	if s.opts.Now == nil {
		return nil
	}
	before := s.opts.Now()
	var db time.Time
	if err := conn.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&db); err != nil {
		return err
	}
	after := s.opts.Now()
	s.skew = db.Sub(before.Add(after.Sub(before) / 2))
	if s.skew > SkewWarning || s.skew < -SkewWarning {
		way := "behind"
		if s.skew < 0 {
			way = "ahead of"
		}
		s.warn(fmt.Sprintf("this machine's clock is %s %s the shared journal's database: the journal's guards go by the database's clock, but set this machine's right (NTP)",
			s.skew.Abs().Round(time.Second), way))
	}
	return nil
}

// Skew is the database's clock minus this machine's, as Open measured it.
func (s *Store) Skew() time.Duration { return s.skew }

// DatabaseTime is t, a time of this machine's clock, on the database's
// clock: what the journal's guards compare (an attempt's deadline is the
// database's, see db_deadline), so that a machine whose clock is wrong
// neither settles an attempt still in flight nor waits for nothing.
func (s *Store) DatabaseTime(t time.Time) time.Time { return t.Add(s.skew) }

// spoolFor is the spool of the database conn reaches, in dir, for the
// role conn is: named by the database's identity (its cluster's system
// identifier when the role may read it, its name, and the journal's own
// id), so that every URL that reaches one database (127.0.0.1 or
// localhost, another port through a proxy) shares one spool, and no two
// databases do; and by the role, so that two roles sharing one machine
// account (and state folder) each write only their own lines: the
// database takes an outcome only from its intent's role. shared is the
// spool older paycli versions wrote for every role of that database.
func spoolFor(ctx context.Context, conn *pgx.Conn, dir string) (spool, shared, role string, err error) {
	var db, id string
	if err := conn.QueryRow(ctx, "SELECT current_database(), (SELECT id::text FROM paycli.journal_identity ORDER BY created LIMIT 1), current_user").
		Scan(&db, &id, &role); err != nil {
		return "", "", "", err
	}
	system := ""
	// pg_control_system() may be denied to a role: the journal's id alone
	// is unique enough then.
	_ = conn.QueryRow(ctx, "SELECT system_identifier::text FROM pg_control_system()").Scan(&system)
	sum := sha256.Sum256([]byte(strings.Join([]string{system, db, id}, "\n")))
	shared = filepath.Join(dir, fmt.Sprintf("journal-spool-db-%x.jsonl", sum[:8]))
	of := sha256.Sum256([]byte(role))
	return filepath.Join(dir, fmt.Sprintf("journal-spool-db-%x-role-%x.jsonl", sum[:8], of[:6])), shared, role, nil
}

// canonicalScheme lower-cases a URL's scheme (POSTGRES://…), which pgx
// reads only in lower case; anything else is left as it is.
func canonicalScheme(url string) string {
	trimmed := strings.TrimSpace(url)
	for _, scheme := range []string{"postgresql://", "postgres://"} {
		if len(trimmed) >= len(scheme) && strings.EqualFold(trimmed[:len(scheme)], scheme) {
			return scheme + trimmed[len(scheme):]
		}
	}
	return url
}
