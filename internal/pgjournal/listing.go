package pgjournal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

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
	type madeBy struct{ operator, osUser, host string }
	var asm journal.Assembler
	who := map[string]madeBy{}
	wrote := map[string]string{} // attempt, invoice and line type: the role of its last line
	for rows.Next() {
		var data []byte
		var m madeBy
		var typ string
		var deadline *time.Time
		if err := rows.Scan(&data, &m.operator, &m.osUser, &m.host, &typ, &deadline); err != nil {
			return nil, s.unavailable(err)
		}
		var e journal.Entry
		if json.Unmarshal(readableLine(data), &e) != nil {
			continue
		}
		if deadline != nil && e.Type == journal.TypeIntent {
			e.Deadline = deadline.UTC()
		}
		key := e.Attempt + "\x00" + e.Invoice
		if asm.Add(e) {
			if e.Type == journal.TypeIntent {
				who[key] = m
			}
			wrote[key+"\x00"+e.Type] = m.operator
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.unavailable(err)
	}
	attempts := asm.Attempts()
	for i := range attempts {
		a := &attempts[i]
		key := a.Intent.Attempt + "\x00" + a.Intent.Invoice
		m := who[key]
		a.Operator, a.OSUser, a.Host = m.operator, m.osUser, m.host
		switch {
		case a.Class() == journal.Unknown:
		case a.ReconciledClass():
			a.SettledBy = wrote[key+"\x00"+journal.TypeReconcile]
		default:
			a.SettledBy = wrote[key+"\x00"+journal.TypeOutcome]
		}
	}
	return attempts, nil
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
)
