package pgjournal

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// SpoolPath is the spool of the shared journal at url, in the state
// folder dir (beside the journal file): one per database (its hosts, port
// and name), so that an outcome spooled for one desk's journal is never
// written into another's that the next command uses (another profile's).
// The URL's user, password and TLS settings do not change it.
func SpoolPath(dir, url string) string {
	where := url
	if cfg, err := pgx.ParseConfig(url); err == nil {
		hosts := []string{fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)}
		for _, fb := range cfg.Fallbacks { // each host, tried with and without TLS
			if h := fmt.Sprintf("%s:%d", fb.Host, fb.Port); !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
		where = strings.Join(hosts, ",") + "/" + cfg.Database
	}
	sum := sha256.Sum256([]byte(where))
	return filepath.Join(dir, fmt.Sprintf("journal-spool-%x.jsonl", sum[:6]))
}

// Options open a shared journal.
type Options struct {
	// URL is the database's postgres:// URL (or a key=value connection
	// string); TLS settings (sslmode, sslrootcert…) pass through to pgx.
	URL string
	// SpoolDir is the folder of the local spool, where outcomes the
	// database could not take wait for the next run: one file per
	// database and role, named by the database's identity and the role
	// (spoolFor), whatever URL reached it. The spools older paycli
	// versions named for every role, by the database's identity or by the
	// URL's text (SpoolPath), are written too, each line by its own role
	// only (flushSpoolFile).
	SpoolDir string
	// Spool, when set, is the spool's file itself (SpoolDir is then not
	// used): for tests.
	Spool string
	// Warn tells the operator something on stderr (the clock's skew, lines
	// the database refused); nil: nothing is told.
	Warn func(string)
	// Now stamps the invoice locks.
	Now func() time.Time
	// OSUser and Host say where the operator works, for context; the
	// operator is the database role.
	OSUser, Host string
	// PID is this process's id, shown to whoever finds an invoice locked.
	PID int
	// Application names the sessions (application_name), e.g. "paycli/1.2.3".
	Application string
	// WriteTimeout bounds each line's write (DefaultWriteTimeout when 0):
	// a database that hangs without refusing refuses an intent (nothing
	// is sent) and sends an outcome to the spool, rather than hold the
	// command past its time limit, which the journal's writes outlive.
	WriteTimeout time.Duration
}

// DefaultWriteTimeout is a line's write time limit when Options gives none.
const DefaultWriteTimeout = 10 * time.Second

// Store is the journal a desk shares on PostgreSQL. It implements
// journal.Store; see that interface's contract.
type Store struct {
	opts Options
	pool *pgxpool.Pool

	lockMu   sync.Mutex
	lockConn *pgx.Conn
	held     map[int64]journal.Holder // the invoice locks this process holds
	// lost are locks taken and not yet released whose session died: their
	// intents are refused, and no other taker in this process gets them.
	lost map[int64]journal.Holder

	spoolErr error // why Open could not write the spool (SpoolError)
	// legacySpools are the spools older paycli versions wrote for every
	// role of this database (by its identity, by the URL's text): Open
	// writes this role's lines of them, and Spooled reads them.
	legacySpools []string
	// role is the database role this store writes as (current_user).
	role string
	// skew is the database's clock minus this machine's, measured by Open.
	skew time.Duration
}

var _ journal.Store = (*Store)(nil)

// UnavailableError: the shared journal cannot be reached or read; nothing
// may be sent ("no journal, no payment").
type UnavailableError struct {
	URL string // with its password masked
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the shared journal at %s is unavailable: %v", e.URL, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Is makes an UnavailableError a journal.ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == journal.ErrUnavailable }

// Open connects to the shared journal, checks that its schema is the one
// this paycli knows, measures this machine's clock against the
// database's, and writes any outcomes left in the spool.
func Open(ctx context.Context, opts Options) (*Store, error) {
	opts.URL = canonicalScheme(opts.URL)
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("journal URL %s: %w", redact.URL(opts.URL), redactURLError(err, opts.URL))
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if opts.Application != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = opts.Application
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(err, opts.URL)
	}
	if err := poolerCheck(ctx, pool, opts.URL); err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{opts: opts, pool: pool, held: map[int64]journal.Holder{}, lost: map[int64]journal.Holder{}}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, connectError(err, opts.URL)
	}
	err = CheckSchema(ctx, conn.Conn())
	if err == nil {
		err = s.measureClock(ctx, conn.Conn())
	}
	var shared string
	if err == nil && s.opts.Spool == "" && s.opts.SpoolDir != "" {
		s.opts.Spool, shared, s.role, err = spoolFor(ctx, conn.Conn(), s.opts.SpoolDir)
	}
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, schemaError(err, opts.URL)
	}
	// A spool the database will not take now (it refuses writes, or went
	// away meanwhile) stays for the next run: its lines are outcomes, whose
	// attempts every machine treats as unknown until they are written.
	// The spools an older paycli wrote for every role of this database
	// (by its identity, by this URL's text) hold this role's lines too.
	s.spoolErr = s.flushSpool(ctx)
	if s.opts.SpoolDir != "" {
		for _, legacy := range []string{shared, SpoolPath(s.opts.SpoolDir, opts.URL)} {
			if legacy == "" || legacy == s.opts.Spool || slices.Contains(s.legacySpools, legacy) {
				continue
			}
			s.legacySpools = append(s.legacySpools, legacy)
			if s.spoolErr == nil {
				s.spoolErr = s.flushSpoolFile(ctx, legacy, true)
			}
		}
	}
	return s, nil
}

// connectError is a failed connection: a refused login or role
// (*LoginError), else an outage (*UnavailableError).
func connectError(err error, url string) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if le := loginError(pgErr, url); le != nil {
			return le
		}
	}
	return &UnavailableError{URL: redact.URL(url), Err: redactURLError(err, url)}
}

// schemaError is CheckSchema's error as Open returns it: a schema paycli
// cannot use as it is, or the database lost on the way (unavailable).
func schemaError(err error, url string) error {
	var older *OlderSchemaError
	var newer *NewerSchemaError
	var login *LoginError
	if errors.As(err, &login) {
		login.URL = redact.URL(url)
		return login
	}
	if errors.Is(err, ErrNoSchema) || errors.As(err, &older) || errors.As(err, &newer) {
		return err
	}
	return &UnavailableError{URL: redact.URL(url), Err: redactURLError(err, url)}
}

// redactURLError keeps a connection error from quoting the URL's
// password, on one line: pgx puts each try of a connection (TLS then
// plain, each address of a name) on a line of its own, and paycli prints
// an error's first line only. A try said twice is said once.
func redactURLError(err error, url string) error {
	if err == nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	msg := redact.URL(strings.Join(lines, " "))
	if u := redact.URL(url); u != url {
		msg = strings.ReplaceAll(msg, url, u)
	}
	return errors.New(msg)
}

// Close releases the invoice locks still held and the connections.
func (s *Store) Close() error {
	s.lockMu.Lock()
	if s.lockConn != nil {
		_ = s.lockConn.Close(context.Background())
		s.lockConn = nil
	}
	s.lockMu.Unlock()
	s.pool.Close()
	return nil
}

// insertLine is the one statement that writes a journal line. A line
// already there (the same attempt, type and time: an import run twice, a
// spool written again) is left as it is.
const insertLine = `INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, outcome, at, intent_at, entry, os_user, host)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10)
ON CONFLICT ON CONSTRAINT journal_lines_once DO NOTHING`

func (s *Store) lineArgs(e journal.Entry) ([]any, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	// PostgreSQL stores no NUL, in text or jsonb: a line holding one is
	// stored escaped (storable.go), and read back as it was.
	data, err = storableLine(data)
	if err != nil {
		return nil, err
	}
	return []any{storableText(e.Attempt), e.Type, storableText(e.OpKind()), storableText(e.Gateway), storableText(e.Invoice),
		storableText(e.Outcome), e.Time, data, storableText(s.opts.OSUser), storableText(s.opts.Host)}, nil
}

// Append writes e and returns once the database has committed it. An
// intent that cannot be written is an error: the pipeline sends nothing;
// one the database refuses under the one rule (an unsettled attempt on
// its invoice) is a journal.ErrUnsettled. An outcome or reconcile line
// that cannot be written for an outage is kept in the local spool (synced
// to disk) and written by the next Open, so that a database down after a
// request left loses nothing; one the database refuses (a *RefusedError)
// would be refused again: it is set aside beside the spool, for the
// record, and the error says so.
func (s *Store) Append(ctx context.Context, e journal.Entry) error {
	args, err := s.lineArgs(e)
	if err != nil {
		return err
	}
	limit := s.opts.WriteTimeout
	if limit <= 0 {
		limit = DefaultWriteTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if e.Type == journal.TypeIntent {
		if held, err := s.appendHeld(ctx, e, args); held {
			return err
		}
	}
	_, err = s.pool.Exec(ctx, insertLine, args...)
	if err == nil {
		return nil
	}
	err = s.classify(err, &e)
	var refused *RefusedError
	if errors.As(err, &refused) {
		if e.Type != journal.TypeIntent && s.opts.Spool != "" {
			if serr := s.setAside([]journal.Entry{e}); serr == nil {
				return fmt.Errorf("%w; the line is kept in %s", err, s.refusedPath())
			}
		}
		return err
	}
	if e.Type == journal.TypeIntent || s.opts.Spool == "" {
		return err
	}
	if serr := s.spool(e); serr != nil {
		return fmt.Errorf("%w; keeping it in %s failed too: %v", err, s.opts.Spool, serr)
	}
	return nil
}

// appendHeld writes the intent e on the session that holds its invoice's
// lock, when this process holds it (held). An advisory lock lives as long
// as its session: a session that died (the server restarted) released the
// lock, and another operator may have taken it and sent since. Written on
// that session, the intent commits only if the lock was held all along;
// otherwise it is refused and nothing is sent. A line the database
// refuses (its rules) leaves the session and its lock as they are.
func (s *Store) appendHeld(ctx context.Context, e journal.Entry, args []any) (held bool, err error) {
	key := lockKey(e.Gateway, e.Invoice)
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if _, lost := s.lost[key]; lost {
		return true, fmt.Errorf("the lock on invoice %s was lost: %w", redact.Invoice(e.Invoice),
			s.unavailable(errors.New("the session that held it ended")))
	}
	if _, mine := s.held[key]; !mine || s.lockConn == nil {
		return false, nil
	}
	if _, err := s.lockConn.Exec(ctx, insertLine, args...); err != nil {
		var refused *RefusedError
		if err := s.classify(err, &e); errors.As(err, &refused) && !s.lockConn.IsClosed() {
			return true, err
		}
		s.dropLockSession()
		return true, fmt.Errorf("the lock on invoice %s was lost: %w", redact.Invoice(e.Invoice), s.unavailable(err))
	}
	return true, nil
}

// spool appends e to the local spool, durably. Another process's Open may
// take the spool aside to flush it at any moment (flushSpool); a line
// written into the file after that flush read it would be lost with it, so
// a line whose file no longer is the spool once written is written again,
// to the new one (a line written twice is imported once).
func (s *Store) spool(e journal.Entry) error {
	if err := os.MkdirAll(filepath.Dir(s.opts.Spool), 0o700); err != nil {
		return err
	}
	for range spoolTries {
		j, err := journal.Open(s.opts.Spool)
		if err != nil {
			return err
		}
		spoolOpened()
		err = j.Append(e)
		var moved bool
		if err == nil {
			moved, err = j.Moved()
		}
		if cerr := j.Close(); err == nil {
			err = cerr
		}
		if err != nil || !moved {
			return err
		}
	}
	return fmt.Errorf("the spool %s was taken aside %d times while a line was written to it", s.opts.Spool, spoolTries)
}

// spoolTries bounds the writes of one spooled line (each flush that takes
// the spool aside during a write costs one more).
const spoolTries = 10

// spoolOpened runs between opening the spool and writing to it: tests
// flush it there.
var spoolOpened = func() {}

// flushSpool writes the spooled lines to the database and removes them.
// The spool is first renamed aside, so that a process spooling meanwhile
// starts a new one; a flush cut short leaves the renamed file for the next.
func (s *Store) flushSpool(ctx context.Context) error {
	if s.opts.Spool == "" {
		return nil
	}
	return s.flushSpoolFile(ctx, s.opts.Spool, false)
}

// flushSpoolFile flushes the spool at path (this store's, or one an older
// paycli wrote for every role: shared). Lines are written one by one: a
// line the database refuses (RefusedError) is set aside, reported through
// Warn, and never blocks the others; an outage stops the flush, and the
// lines not written wait for the next. Of a shared spool, the outcomes of
// another role's attempts are left in it, for that role's next run: the
// database takes an outcome only from its intent's role.
func (s *Store) flushSpoolFile(ctx context.Context, path string, shared bool) error {
	// A name no file has: one a flush cut short left (by an earlier
	// process of the same pid) must not be overwritten.
	aside := fmt.Sprintf("%s.flushing-%d", path, s.opts.PID)
	for n := 1; fileExists(aside); n++ {
		aside = fmt.Sprintf("%s.flushing-%d-%d", path, s.opts.PID, n)
	}
	if err := os.Rename(path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	files, _ := filepath.Glob(path + ".flushing-*")
	for _, f := range files {
		entries, _, err := journal.Entries(f)
		if err != nil {
			return err
		}
		var others []journal.Entry
		if shared {
			if entries, others, err = s.ownLines(ctx, entries); err != nil {
				return err
			}
		}
		res, err := s.Import(ctx, entries)
		if err != nil {
			return err
		}
		if len(res.Refused) > 0 {
			refused := make([]journal.Entry, len(res.Refused))
			for i, r := range res.Refused {
				refused[i] = r.Entry
			}
			if err := s.setAside(refused); err != nil {
				return err
			}
			s.warn(fmt.Sprintf("%s of the spool were refused by the shared journal (%v) and are kept in %s; they will not be tried again",
				render.Count(len(res.Refused), "line", "lines"), res.Refused[0].Err, s.refusedPath()))
		}
		if len(others) > 0 {
			if err := appendLines(path, others); err != nil {
				return err
			}
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// ownLines splits the lines of a spool shared by every role into this
// role's and others': an outcome is another's when its intent, in the
// database, was written by another role. Other lines (a reconciliation,
// which any role may write; an outcome whose intent the database does not
// hold, which it refuses whoever writes it) are this role's to write.
func (s *Store) ownLines(ctx context.Context, entries []journal.Entry) (mine, others []journal.Entry, err error) {
	var attempts, invoices []string
	for _, e := range entries {
		if e.Type == journal.TypeOutcome {
			attempts, invoices = append(attempts, storableText(e.Attempt)), append(invoices, storableText(e.Invoice))
		}
	}
	if len(attempts) == 0 {
		return entries, nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (j.attempt, j.invoice) j.attempt, j.invoice, j.operator
FROM paycli.journal_lines j JOIN unnest($1::text[], $2::text[]) w(attempt, invoice) ON j.attempt = w.attempt AND j.invoice = w.invoice
WHERE j.type = 'intent' ORDER BY j.attempt, j.invoice, j.seq`, attempts, invoices)
	if err != nil {
		return nil, nil, s.unavailable(err)
	}
	wrote := map[[2]string]string{}
	for rows.Next() {
		var attempt, invoice, operator string
		if err := rows.Scan(&attempt, &invoice, &operator); err != nil {
			rows.Close()
			return nil, nil, s.unavailable(err)
		}
		wrote[[2]string{attempt, invoice}] = operator
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.unavailable(err)
	}
	for _, e := range entries {
		role, ok := wrote[[2]string{storableText(e.Attempt), storableText(e.Invoice)}]
		if e.Type == journal.TypeOutcome && ok && role != s.role {
			others = append(others, e)
		} else {
			mine = append(mine, e)
		}
	}
	return mine, others, nil
}

// appendLines appends entries to the journal file at path, durably.
func appendLines(path string, entries []journal.Entry) error {
	j, err := journal.Open(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err = j.Append(e); err != nil {
			break
		}
	}
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	return err
}

// refusedPath is the file where lines the database refused are kept, for
// the record, beside the spool.
func (s *Store) refusedPath() string { return s.opts.Spool + ".refused" }

// setAside appends entries to refusedPath, durably.
func (s *Store) setAside(entries []journal.Entry) error {
	return appendLines(s.refusedPath(), entries)
}

func (s *Store) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// Attempts returns the attempts of the invoices (every attempt when none is
// given), as the database holds them: an outcome still in a spool (not
// yet written by the next Open on its machine; Spooled) is not among them,
// and its attempt reads as unknown.
func (s *Store) Attempts(ctx context.Context, invoices ...string) ([]journal.Attempt, error) {
	if len(invoices) == 0 {
		return s.query(ctx, lineColumns+"ORDER BY seq")
	}
	keys := make([]string, len(invoices))
	for i, inv := range invoices {
		keys[i] = storableText(inv)
	}
	return s.query(ctx, lineColumns+"WHERE invoice = ANY($1) ORDER BY seq", keys)
}

// OpenInvoices names, in journal order, the invoices with an attempt
// whose outcome line is missing, unknown or queued (a refund waiting for
// the gateway's approval, 101)
// (journal.OpenInvoicesLister): the database finds them, so that
// reconcile reads only those invoices' lines.
func (s *Store) OpenInvoices(ctx context.Context) ([]string, error) {
	// An intent no outcome settled, or an outcome that says unknown (an
	// attempt's last outcome line is the one that counts, and an outcome
	// may stand without its intent).
	rows, err := s.pool.Query(ctx, `SELECT invoice FROM (
    SELECT i.invoice, i.seq FROM paycli.journal_lines i
    WHERE i.type = 'intent' AND NOT EXISTS (SELECT 1 FROM paycli.journal_lines o
        WHERE o.attempt = i.attempt AND o.type = 'outcome' AND o.outcome NOT IN ('', 'unknown', 'queued'))
    UNION ALL
    SELECT o.invoice, o.seq FROM paycli.journal_lines o WHERE o.type = 'outcome' AND o.outcome IN ('', 'unknown', 'queued')
) open GROUP BY invoice ORDER BY min(seq)`)
	if err != nil {
		return nil, s.unavailable(err)
	}
	invoices, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.unavailable(err)
	}
	return invoices, nil
}

// Find returns the attempts whose attempt id or ref is name.
func (s *Store) Find(ctx context.Context, name string) ([]journal.Attempt, error) {
	return s.query(ctx, lineColumns+`WHERE attempt IN (
    SELECT attempt FROM paycli.journal_lines WHERE attempt = $1 UNION SELECT attempt FROM paycli.journal_lines WHERE entry ? 'ref' AND entry ->> 'ref' = $1)
ORDER BY seq`, name)
}

// Window returns the attempts whose intent was written from since until
// until (either zero: unbounded), with every line of each, as Attempts.
func (s *Store) Window(ctx context.Context, since, until time.Time) ([]journal.Attempt, error) {
	return s.query(ctx, lineColumns+`WHERE ($1::timestamptz IS NULL OR intent_at >= $1) AND ($2::timestamptz IS NULL OR intent_at < $2)
ORDER BY seq`, nullTime(since), nullTime(until))
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Import writes every line of entries that the shared journal does not
// hold yet (matched by attempt id, line type and time): run twice, it
// writes nothing the second time. Lines are written in batches, each in
// one transaction; a line the database refuses (its rules: an outcome of
// another role's attempt, a sandbox line, an intent on an unsettled
// invoice…) is left out and reported, and the others are written. An
// outage stops the import (an *UnavailableError).
func (s *Store) Import(ctx context.Context, entries []journal.Entry) (journal.ImportResult, error) {
	const perBatch = 1000
	var res journal.ImportResult
	pending := make([]journal.Entry, 0, len(entries))
	for _, e := range entries {
		if e.Attempt != "" {
			pending = append(pending, e)
		}
	}
	for len(pending) > 0 {
		n := min(perBatch, len(pending))
		written, bad, refused, err := s.importBatch(ctx, pending[:n])
		switch {
		case err != nil:
			return res, err
		case refused == nil:
			res.Written += written
			pending = pending[n:]
		case bad == 0:
			res.Refused = append(res.Refused, journal.RefusedLine{Entry: pending[0], Err: refused})
			pending = pending[1:]
		default:
			// The batch rolled back at its line bad: write the lines before
			// it (a batch of its own), then try it alone.
			written, _, again, err := s.importBatch(ctx, pending[:bad])
			if err != nil {
				return res, err
			}
			if again == nil {
				res.Written += written
				pending = pending[bad:]
			}
		}
	}
	return res, nil
}

// importBatch writes entries in one transaction and says how many lines
// it wrote; when the database refuses a line, the transaction rolls back
// (nothing is written) and bad is that line's index, refused why. err is
// anything else (an outage).
func (s *Store) importBatch(ctx context.Context, entries []journal.Entry) (written, bad int, refused *RefusedError, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, 0, nil, s.classify(err, nil)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	var b pgx.Batch
	for _, e := range entries {
		args, err := s.lineArgs(e)
		if err != nil {
			return 0, 0, nil, err
		}
		b.Queue(insertLine, args...)
	}
	res := tx.SendBatch(ctx, &b)
	for i := range b.Len() {
		tag, err := res.Exec()
		if err != nil {
			res.Close()
			if err = s.classify(err, &entries[i]); errors.As(err, &refused) {
				return 0, i, refused, nil
			}
			return 0, 0, nil, err
		}
		written += int(tag.RowsAffected())
	}
	if err := res.Close(); err != nil {
		return 0, 0, nil, s.classify(err, nil)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, 0, nil, s.classify(err, nil)
	}
	return written, 0, nil, nil
}

// unavailable wraps a database error: the shared journal cannot be used.
func (s *Store) unavailable(err error) error {
	return &UnavailableError{URL: redact.URL(s.opts.URL), Err: redactURLError(err, s.opts.URL)}
}

// lockKey is the advisory lock key of an invoice on a gateway account.
func lockKey(gateway, invoice string) int64 {
	sum := sha256.Sum256([]byte(gateway + "\n" + invoice))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// Lock takes invoice's lock on the gateway account, without waiting for its
// holder (only, briefly, for the holder's row that names it): a
// session-level advisory lock on this process's lock session, which the
// server releases if the process or its session dies.
func (s *Store) Lock(ctx context.Context, gateway, invoice, command string) (func(), error) {
	key := lockKey(gateway, invoice)
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if h, mine := s.held[key]; mine {
		// Advisory locks nest within a session; within a process the
		// second taker is refused, as a second flock would be.
		return nil, &journal.InFlightError{Holder: h}
	}
	if h, lost := s.lost[key]; lost {
		return nil, &journal.InFlightError{Holder: h}
	}
	conn, err := s.lockSession(ctx)
	if err != nil {
		return nil, err
	}
	var undescribed journal.Holder // a holder without a row: a lock taken by hand, or a paycli about to write it
	for try := 1; ; try++ {
		var got bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
			s.dropLockSession()
			return nil, &UnavailableError{URL: redact.URL(s.opts.URL), Err: redactURLError(err, s.opts.URL)}
		}
		if got {
			break
		}
		// Held, but by whom? A holder that has just taken the lock writes
		// its row a statement later; one that has just released it has
		// removed its row already. Look again in a moment: the first has
		// been described by then, the second is gone and the lock is free.
		// A session that never writes a row (pg_advisory_lock typed in
		// psql) is named as the database shows it.
		h, described, ok := s.readHolder(ctx, conn, key)
		if ok && described {
			return nil, &journal.InFlightError{Holder: h}
		}
		if ok {
			undescribed = h
		}
		if try == holderTries || pause.For(ctx, holderPause) != nil {
			return nil, &journal.InFlightError{Holder: undescribed}
		}
	}
	// Since when is the database's clock, as every other operator reads it.
	h := journal.Holder{Command: command, PID: s.opts.PID, Host: s.opts.Host}
	// The register is written through the owner's function: an operator
	// holds no right on the table that could lock it (006_operator_rights.sql).
	if err := conn.QueryRow(ctx, "SELECT paycli.hold_invoice_lock($1, $2, $3, $4, $5, $6, $7)",
		key, storableText(gateway), storableText(invoice), command, h.PID, storableText(s.opts.OSUser), storableText(h.Host)).Scan(&h.Since); err != nil {
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key)
		return nil, &UnavailableError{URL: redact.URL(s.opts.URL), Err: redactURLError(err, s.opts.URL)}
	}
	h.Since = h.Since.UTC()
	s.held[key] = h
	var once sync.Once
	return func() { once.Do(func() { s.unlock(key) }) }, nil
}

func (s *Store) unlock(key int64) {
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if _, lost := s.lost[key]; lost {
		delete(s.lost, key)
		return // its session died, and the lock with it
	}
	delete(s.held, key)
	if s.lockConn == nil {
		return // the session died, and its locks with it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = s.lockConn.Exec(ctx, "SELECT paycli.release_invoice_lock($1)", key)
	if _, err := s.lockConn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
		s.dropLockSession()
	}
}

// lockSession is the session that holds this process's invoice locks,
// opened on first use; s.lockMu is held.
func (s *Store) lockSession(ctx context.Context) (*pgx.Conn, error) {
	if s.lockConn != nil && !s.lockConn.IsClosed() {
		return s.lockConn, nil
	}
	// A session that died took its locks with it.
	s.loseHeld()
	cfg := s.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, &UnavailableError{URL: redact.URL(s.opts.URL), Err: redactURLError(err, s.opts.URL)}
	}
	s.lockConn = conn
	return conn, nil
}

func (s *Store) dropLockSession() {
	if s.lockConn != nil {
		_ = s.lockConn.Close(context.Background())
		s.lockConn = nil
	}
	s.loseHeld()
}

// loseHeld moves the locks held to lost: their session is gone.
func (s *Store) loseHeld() {
	for key, h := range s.held {
		s.lost[key] = h
	}
	s.held = map[int64]journal.Holder{}
}

// holderTries and holderPause bound how long Lock looks for the holder of
// a lock it was refused before it says "another command" without naming it.
const (
	holderTries = 50
	holderPause = 20 * time.Millisecond
)

// readHolder reads who holds key's lock (ok): the row of the session that
// holds it, when it has written one (described), else that session as the
// database shows it: its role, server process, client address and start
// (the last two when the journal's owner may read them).
func (s *Store) readHolder(ctx context.Context, conn *pgx.Conn, key int64) (h journal.Holder, described, ok bool) {
	var since *time.Time
	err := conn.QueryRow(ctx, "SELECT command, pid, since, host, operator, described FROM paycli.invoice_lock_holder($1)", key).
		Scan(&h.Command, &h.PID, &since, &h.Host, &h.User, &described)
	if err != nil {
		return journal.Holder{}, false, false
	}
	if since != nil {
		h.Since = since.UTC()
	}
	return h, described, true
}
