// Package pgjournal is the journal shared by a desk on PostgreSQL: the same
// lines as the file journal, in one table that operators may only read
// and append to, the operator recorded by the database, and invoice locks
// that the database releases when a session dies (advisory locks).
// docs/journal.md says how a desk sets it up.
package pgjournal

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one versioned step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the schema's steps, oldest first, from migrations/NNN_name.sql.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("pgjournal: migration file %s is not NNN_name.sql", n)
		}
		data, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(data)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("pgjournal: migrations are not numbered 1, 2, 3…: %d is followed by %d", i, m.version)
		}
	}
	return out, nil
}

// SchemaVersion is the schema this paycli reads and writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		panic(err) // the embedded files are checked by the package's tests
	}
	return len(ms)
}

// migrateLock is the advisory lock key that serialises `journal init`s: two
// run at once apply each step once.
const migrateLock = 0x70617963_6c690001

// Migrate brings the schema up to SchemaVersion, one step per transaction,
// and returns the versions it applied (none when it was up to date). It
// is idempotent and safe while operators work: each step commits whole or
// not at all, and concurrent runs wait for each other.
func Migrate(ctx context.Context, conn *pgx.Conn) ([]int, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	var applied []int
	for {
		done, v, err := migrateOne(ctx, conn, ms)
		if err != nil {
			return applied, err
		}
		if done {
			return applied, nil
		}
		applied = append(applied, v)
	}
}

// migrateOne applies the first pending step, if any, in one transaction.
func migrateOne(ctx context.Context, conn *pgx.Conn, ms []migration) (done bool, version int, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, 0, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return false, 0, err
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS paycli;
CREATE TABLE IF NOT EXISTS paycli.schema_migrations (
    version    int PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    applied_by name NOT NULL DEFAULT current_user
)`); err != nil {
		return false, 0, err
	}
	var current int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM paycli.schema_migrations").Scan(&current); err != nil {
		return false, 0, err
	}
	if current > len(ms) {
		return false, 0, &NewerSchemaError{Have: current, Know: len(ms)}
	}
	if current == len(ms) {
		return true, 0, tx.Commit(ctx)
	}
	m := ms[current]
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return false, 0, fmt.Errorf("schema step %d (%s): %w", m.version, m.name, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO paycli.schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
		return false, 0, err
	}
	return false, m.version, tx.Commit(ctx)
}

// NewerSchemaError: the database's schema is newer than this paycli knows.
type NewerSchemaError struct{ Have, Know int }

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("the journal's schema is version %d, newer than this paycli knows (%d)", e.Have, e.Know)
}

// ErrNoSchema: the database holds no paycli journal yet (or the role may
// not see it).
var ErrNoSchema = errors.New("the database holds no paycli journal")

// OlderSchemaError: the database's schema is older than this paycli needs.
type OlderSchemaError struct{ Have, Need int }

func (e *OlderSchemaError) Error() string {
	return fmt.Sprintf("the journal's schema is version %d; this paycli needs %d", e.Have, e.Need)
}

// CheckSchema tells whether the database's schema is the one this paycli
// reads and writes.
func CheckSchema(ctx context.Context, conn *pgx.Conn) error {
	var v *int
	err := conn.QueryRow(ctx, "SELECT max(version) FROM paycli.schema_migrations").Scan(&v)
	if err != nil {
		var pgErr interface{ SQLState() string }
		if errors.As(err, &pgErr) && (pgErr.SQLState() == "42P01" || pgErr.SQLState() == "3F000") {
			return ErrNoSchema
		}
		// The schema is there, but the role may not use it: not the same
		// fix (a grant, not an init).
		var denied *pgconn.PgError
		if errors.As(err, &denied) && denied.Code == "42501" {
			return &LoginError{Err: errors.New(oneLine(denied.Message))}
		}
		return err
	}
	switch need := SchemaVersion(); {
	case v == nil:
		return ErrNoSchema
	case *v < need:
		return &OlderSchemaError{Have: *v, Need: need}
	case *v > need:
		return &NewerSchemaError{Have: *v, Know: need}
	}
	return nil
}

// Grant lets role read and append to the journal, and nothing more: USAGE
// on the schema, SELECT and INSERT on the lines, SELECT on the schema's
// version and on the register of who holds an invoice's lock, and the
// owner's functions that write and read that register
// (006_operator_rights.sql). Every other right on the lines and the
// register is revoked, should anyone have granted it: UPDATE, DELETE,
// TRUNCATE (and MAINTAIN, from PostgreSQL 17) would let the role LOCK
// TABLE them and stop the desk. The role must exist. The schema's step 6
// narrows the rights granted before it the same way.
func Grant(ctx context.Context, conn *pgx.Conn, role string) error {
	var exists bool
	var version int
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1), current_setting('server_version_num')::int", role).
		Scan(&exists, &version); err != nil {
		return err
	}
	if !exists {
		return &NoRoleError{Role: role}
	}
	others := "UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER"
	if version >= 170000 {
		others += ", MAINTAIN"
	}
	r := pgx.Identifier{role}.Sanitize()
	_, err := conn.Exec(ctx, strings.Join([]string{
		"GRANT USAGE ON SCHEMA paycli TO " + r,
		"GRANT SELECT, INSERT ON paycli.journal_lines TO " + r,
		"REVOKE " + others + " ON paycli.journal_lines FROM " + r,
		"GRANT SELECT ON paycli.schema_migrations TO " + r,
		"GRANT SELECT ON paycli.invoice_locks TO " + r,
		"REVOKE INSERT, " + others + " ON paycli.invoice_locks FROM " + r,
		"GRANT EXECUTE ON FUNCTION " + lockFunctions + " TO " + r,
	}, ";\n"))
	return err
}

// lockFunctions are the owner's functions through which an operator
// writes and reads the register of invoice locks.
const lockFunctions = "paycli.hold_invoice_lock(bigint, text, text, text, int, text, text), paycli.release_invoice_lock(bigint), paycli.invoice_lock_holder(bigint)"

// LeadRole is the NOLOGIN role whose members are desk leads: the database
// takes a lead's settle line (journal.ViaSettle) only from one of them
// (schema step 5, SQLSTATE PC004 otherwise).
const LeadRole = "paycli_lead"

// GrantLead makes role a desk lead: an operator (Grant) and a member of
// LeadRole. The role must exist.
func GrantLead(ctx context.Context, conn *pgx.Conn, role string) error {
	if err := Grant(ctx, conn, role); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "GRANT "+LeadRole+" TO "+pgx.Identifier{role}.Sanitize())
	return err
}

// NoRoleError: --grant named a role the database does not know.
type NoRoleError struct{ Role string }

func (e *NoRoleError) Error() string { return fmt.Sprintf("the database has no role %q", e.Role) }

// InitResult is what Init did.
type InitResult struct {
	// Version is the schema's version after Init.
	Version int `json:"schema_version"`
	// Applied are the versions this run applied (none when it was up to date).
	Applied []int `json:"applied"`
	// Granted are the roles given read and append rights.
	Granted []string `json:"granted"`
	// Leads are the roles made desk leads (GrantLead).
	Leads []string `json:"leads"`
	// Warnings are the database's settings that weaken what the journal
	// guarantees (ServerWarnings).
	Warnings []string `json:"warnings"`
}

// Init connects to the database at url as its owner (or any role allowed
// to create the schema), creates or migrates the journal's schema, grants
// each of roles read and append rights (Grant), and makes each of leads a
// desk lead (GrantLead). A connection that fails is an *UnavailableError.
func Init(ctx context.Context, url string, roles, leads []string) (InitResult, error) {
	res := InitResult{Applied: []int{}, Granted: []string{}, Leads: []string{}, Warnings: []string{}}
	url = canonicalScheme(url)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return res, connectError(err, url)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := checkPoolerConn(ctx, conn, url); err != nil {
		return res, err
	}
	if res.Applied, err = Migrate(ctx, conn); err != nil {
		return res, err
	}
	if res.Applied == nil {
		res.Applied = []int{}
	}
	res.Version = SchemaVersion()
	for _, r := range roles {
		if err := Grant(ctx, conn, r); err != nil {
			return res, err
		}
		res.Granted = append(res.Granted, r)
	}
	for _, r := range leads {
		if err := GrantLead(ctx, conn, r); err != nil {
			return res, err
		}
		res.Leads = append(res.Leads, r)
	}
	res.Warnings, err = ServerWarnings(ctx, conn)
	return res, err
}

// ServerWarnings says which of the server's settings weaken the journal's
// durability: fsync off (a crash may lose committed lines, whatever paycli
// asks), and synchronous_commit off by default (paycli's lines ask for it
// on: the journal's trigger sets it for every transaction that writes one).
func ServerWarnings(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	var fsync, syncCommit string
	if err := conn.QueryRow(ctx, "SELECT current_setting('fsync'), coalesce((SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit'), 'on')").Scan(&fsync, &syncCommit); err != nil {
		return nil, err
	}
	out := []string{}
	if fsync != "on" {
		out = append(out, "the server runs with fsync=off: a crash of the server or its machine may lose journal lines already committed, and a re-run may send money twice; turn fsync on")
	}
	if syncCommit == "off" || syncCommit == "local" {
		out = append(out, fmt.Sprintf("the server's synchronous_commit is %s: paycli overrides it to on for every transaction that writes a journal line, other writes to this database keep it", syncCommit))
	}
	return out, nil
}

// IsURL tells a shared journal's URL (postgres:// or postgresql://) from
// anything else a profile's journal setting may hold.
func IsURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// CheckURL checks that url is a PostgreSQL URL pgx can connect with,
// without connecting. Its error never quotes the URL's password.
func CheckURL(url string) error {
	if !IsURL(url) {
		return errors.New("not a postgres:// URL")
	}
	url = canonicalScheme(url)
	if _, err := pgx.ParseConfig(url); err != nil {
		return redactURLError(err, url)
	}
	return nil
}
