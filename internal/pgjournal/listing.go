package pgjournal

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
)

// Where is the shared journal's URL with its user and password masked,
// for messages.
func (s *Store) Where() string { return redact.URL(s.opts.URL) }

// RecordsOperators: each line says who wrote it (journal.OperatorRecorder).
func (s *Store) RecordsOperators() bool { return true }

// List returns the attempts of invoice (every invoice when it is empty)
// whose intent was written from since until until (either zero:
// unbounded), each with its operator and the OS user and host its intent
// was written from, in the order they started (an import writes older
// attempts after newer ones). It reads one index range (the invoice's, or
// the window's), never the whole table unless asked for everything.
func (s *Store) List(ctx context.Context, invoice string, since, until time.Time) ([]journal.Attempt, error) {
	const window = "($1::timestamptz IS NULL OR intent_at >= $1) AND ($2::timestamptz IS NULL OR intent_at < $2)"
	var attempts []journal.Attempt
	var err error
	if invoice != "" {
		attempts, err = s.query(ctx, lineColumns+"WHERE invoice = $3 AND "+window+" ORDER BY seq", nullTime(since), nullTime(until), storableText(invoice))
	} else {
		attempts, err = s.query(ctx, lineColumns+"WHERE "+window+" ORDER BY seq", nullTime(since), nullTime(until))
	}
	// The lines are read in the order written, as an attempt's story is
	// told; the attempts are listed by when each started.
	slices.SortStableFunc(attempts, func(a, b journal.Attempt) int { return a.Intent.Time.Compare(b.Intent.Time) })
	return attempts, err
}

// lineColumns are what every reader selects of a line: query reads them.
const lineColumns = "SELECT entry, operator, os_user, host, type, db_deadline FROM paycli.journal_lines\n"

// accountSQL reads the lines of the attempts of one name of an account
// ($1) whose intents fall in [$2, $3), in the order of their intents'
// times: one ordered stretch of journal_lines_account_window (schema step
// 8), the other accounts' lines passed over in the index. seq orders the
// lines of one intent time as they were written. (Both names in one query
// would be read through a bitmap and sorted.)
const accountSQL = `SELECT entry, operator, os_user, host, type, db_deadline, intent_at, seq FROM paycli.journal_lines
WHERE intent_at >= $2 AND intent_at < $3 AND gateway = $1
ORDER BY intent_at`

// AccountAttempts calls yield with each attempt of account whose intent
// was written at or after from and before to (journal.AccountReader),
// name by name of the account, in the order of their intents' times, each
// with who made it and who settled it, as List has them. The lines stream
// from the database; only the lines of one intent time (an attempt's, as
// a rule) are held at once.
func (s *Store) AccountAttempts(ctx context.Context, account journal.Scope, from, to time.Time, yield func(journal.Attempt) error) error {
	for _, name := range account.Names() {
		if err := s.nameAttempts(ctx, name, from, to, yield); err != nil {
			return err
		}
	}
	return nil
}

// nameAttempts is AccountAttempts of one name of the account.
func (s *Store) nameAttempts(ctx context.Context, name string, from, to time.Time, yield func(journal.Attempt) error) error {
	rows, err := s.pool.Query(ctx, accountSQL, name, from, to)
	if err != nil {
		return s.unavailable(err)
	}
	defer rows.Close()
	type seqLine struct {
		line
		seq int64
	}
	var group []seqLine
	var groupAt time.Time
	var set lineSet // one for every group: its maps made once
	flush := func() error {
		slices.SortFunc(group, func(a, b seqLine) int { return cmp.Compare(a.seq, b.seq) })
		set.reset()
		for _, l := range group {
			set.add(l.line)
		}
		group = group[:0]
		for _, a := range set.attempts() {
			if err := yield(a); err != nil {
				return err
			}
		}
		return nil
	}
	for rows.Next() {
		var l seqLine
		var at time.Time
		if l.line, err = scanLine(rows, &at, &l.seq); err != nil {
			return s.unavailable(err)
		}
		if !at.Equal(groupAt) && len(group) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		group, groupAt = append(group, l), at
	}
	if err := rows.Err(); err != nil {
		return s.unavailable(err)
	}
	return flush()
}

// query assembles the attempts of rows of lineColumns: an intent's row
// says who made the attempt and from where, and when its request is over
// on the database's clock (db_deadline, which replaces the deadline its
// writer's clock gave); the row of the line that settled it says who
// settled it.
func (s *Store) query(ctx context.Context, sql string, args ...any) ([]journal.Attempt, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, s.unavailable(err)
	}
	defer rows.Close()
	var set lineSet
	for rows.Next() {
		l, err := scanLine(rows)
		if err != nil {
			return nil, s.unavailable(err)
		}
		set.add(l)
	}
	if err := rows.Err(); err != nil {
		return nil, s.unavailable(err)
	}
	return set.attempts(), nil
}

// line is one row of lineColumns, its entry read; ok is false for an
// entry paycli cannot read, which is left out.
type line struct {
	e                      journal.Entry
	ok                     bool
	operator, osUser, host string
}

// scanLine reads a row of lineColumns, and of the columns after them into
// more.
func scanLine(rows pgx.Rows, more ...any) (line, error) {
	var data []byte
	var l line
	var typ string
	var deadline *time.Time
	if err := rows.Scan(append([]any{&data, &l.operator, &l.osUser, &l.host, &typ, &deadline}, more...)...); err != nil {
		return line{}, err
	}
	l.ok = json.Unmarshal(readableLine(data), &l.e) == nil
	if l.ok && deadline != nil && l.e.Type == journal.TypeIntent {
		l.e.Deadline = deadline.UTC()
	}
	return l, nil
}

// lineSet pairs lines, in the order written, into attempts, and keeps who
// wrote each attempt's intent and the lines that may settle it.
type lineSet struct {
	asm   journal.Assembler
	who   map[string]line   // attempt and invoice: its intent's row
	wrote map[string]string // attempt, invoice and line type: the role of its last line
}

func (set *lineSet) add(l line) {
	if !l.ok {
		return
	}
	if set.who == nil {
		set.who, set.wrote = map[string]line{}, map[string]string{}
	}
	key := l.e.Attempt + "\x00" + l.e.Invoice
	if set.asm.Add(l.e) {
		if l.e.Type == journal.TypeIntent {
			set.who[key] = l
		}
		set.wrote[key+"\x00"+l.e.Type] = l.operator
	}
}

// reset empties set for the next group, keeping its maps.
func (set *lineSet) reset() {
	set.asm.Reset()
	clear(set.who)
	clear(set.wrote)
}

// attempts are the attempts of the lines added, each with who made it and
// who settled it.
func (set *lineSet) attempts() []journal.Attempt {
	attempts := set.asm.Attempts()
	for i := range attempts {
		a := &attempts[i]
		key := a.Intent.Attempt + "\x00" + a.Intent.Invoice
		m := set.who[key]
		a.Operator, a.OSUser, a.Host = m.operator, m.osUser, m.host
		switch {
		case a.Class() == journal.Unknown:
		case a.ReconciledClass():
			a.SettledBy = set.wrote[key+"\x00"+journal.TypeReconcile]
		default:
			a.SettledBy = set.wrote[key+"\x00"+journal.TypeOutcome]
		}
	}
	return attempts
}

// Spooled returns the lines waiting in this machine's spool for the
// database (outcomes and reconciliations written while it could not take
// them), in the order they were spooled, and the spool's path. They are
// not among what Attempts and List return: until the database has them,
// every machine, this one included, treats their attempts as the
// database does (unknown), and a listing shows them as pending.
func (s *Store) Spooled() ([]journal.Entry, string, error) {
	if s.opts.Spool == "" {
		return nil, "", nil
	}
	// A flush cut short left its lines renamed aside; they wait as well,
	// and so do those of the spools an older paycli wrote for every role
	// of this database (another role's lines among them, which wait for
	// that role's next run).
	var files []string
	for _, spool := range append(slices.Clone(s.legacySpools), s.opts.Spool) {
		if spool == "" {
			continue
		}
		aside, err := filepath.Glob(spool + ".flushing-*")
		if err != nil {
			return nil, s.opts.Spool, err
		}
		slices.Sort(aside)
		files = append(append(files, aside...), spool)
	}
	var out []journal.Entry
	for _, f := range files {
		entries, _, err := journal.Entries(f)
		if err != nil {
			return nil, s.opts.Spool, err
		}
		out = append(out, entries...)
	}
	return out, s.opts.Spool, nil
}

// SpoolError is why Open could not write the spool to the database (nil
// when it could, or there was nothing to write): its lines stay in the
// spool for the next run (Spooled).
func (s *Store) SpoolError() error { return s.spoolErr }

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// What the shared journal can do beyond journal.Store, as commands ask it
// (journal's capability interfaces).
var (
	_ journal.Located            = (*Store)(nil)
	_ journal.OperatorRecorder   = (*Store)(nil)
	_ journal.InvoiceLister      = (*Store)(nil)
	_ journal.Spooler            = (*Store)(nil)
	_ journal.Importer           = (*Store)(nil)
	_ journal.Lister             = (*Store)(nil)
	_ journal.Summarizer         = (*Store)(nil)
	_ journal.OpenInvoicesLister = (*Store)(nil)
	_ journal.Clock              = (*Store)(nil)
	_ journal.AccountReader      = (*Store)(nil)
)
