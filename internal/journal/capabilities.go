package journal

import (
	"context"
	"time"
)

// What a journal can do beyond the Store contract, each a small interface
// a command checks with a type assertion to the interface, never to a
// store's type: the file (File), the desk's shared journal
// (internal/pgjournal) and a test's own store are told apart by what they
// can do. Lister, Summarizer (summary.go), OpenInvoicesLister, Clock
// (reconcile.go) are the others.

// Located is a journal that names where it is, for messages: a file's
// path, a database's URL with its password masked.
type Located interface {
	Where() string
}

// WhereOf names store for messages ("the journal" when it cannot say).
func WhereOf(store Store) string {
	if l, ok := store.(Located); ok {
		return l.Where()
	}
	return "the journal"
}

// Indexed is a journal kept in a file on this machine (File), which a
// command reads past the Store contract: an invoice's attempts through
// the index beside the file (internal/journalindex.Lookup), the whole file
// with the lines it cannot read (ReadAll's Damage). IndexedFile is that
// file's path.
type Indexed interface {
	IndexedFile() string
}

// OperatorRecorder is a journal whose lines record who wrote them (the
// operator's database role, OS user and host): a desk's shared journal.
type OperatorRecorder interface {
	RecordsOperators() bool
}

// RecordsOperators reports whether store's lines say who wrote them.
func RecordsOperators(store Store) bool {
	r, ok := store.(OperatorRecorder)
	return ok && r.RecordsOperators()
}

// InvoiceLister is a journal that reads an invoice's (every invoice's,
// for "") attempts of a time window by its own indexes, in the order
// they started.
type InvoiceLister interface {
	List(ctx context.Context, invoice string, since, until time.Time) ([]Attempt, error)
}

// Spooler is a journal that keeps, on this machine, the lines it could
// not write yet (a shared journal while its database is down).
type Spooler interface {
	// Spooled returns the waiting lines, in the order they were spooled,
	// and the spool's path.
	Spooled() ([]Entry, string, error)
	// SpoolError is why they wait (nil when none do, or it is not known).
	SpoolError() error
}

// Importer is a journal that takes the lines of a journal file copied into
// it (`paycli journal import`).
type Importer interface {
	Import(ctx context.Context, entries []Entry) (ImportResult, error)
}

// ImportResult is what an Import did.
type ImportResult struct {
	// Written is how many lines were written (a line the journal held
	// already is not).
	Written int
	// Refused are the lines the journal refused, each with why.
	Refused []RefusedLine
}

// RefusedLine is a line a journal refused, and why.
type RefusedLine struct {
	Entry Entry
	Err   Refusal
}

// Refusal is why a journal refused a line.
type Refusal interface {
	error
	// Sandbox reports whether it was refused as a sandbox line.
	Sandbox() bool
	// Reason is why, in a few words, without the line's name.
	Reason() string
}

// OperatorLister is a journal that records operators (OperatorRecorder)
// and can name every one that made an attempt in it, for a filter by
// operator to tell a role with no attempts from a role that matched none.
type OperatorLister interface {
	Operators(ctx context.Context) ([]string, error)
}
