package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Store is where money-moving commands keep their attempts and the locks
// that say an attempt is in flight. File is the journal on this machine; a
// journal a desk shares (a database) implements the same contract:
//
//   - Append returns once the entry is durable. The pipeline writes an
//     intent before a request leaves and sends nothing when Append fails.
//   - Attempts returns what is recorded for the invoices asked about, of
//     every kind and gateway account, in the order the intents were
//     written, each with its outcome and reconciliation; the caller picks
//     the scope (Scope, Unresolved, ByInvoice).
//   - Find returns the attempts whose attempt id or ref is name (refund
//     --retry REF), with the same shape.
//   - Lock takes the invoice's lock on one gateway account, without
//     waiting: a money-moving command holds it from its first look at the
//     invoice until its outcome is recorded, and `journal reconcile` and
//     `status` while they record what the gateway said. The lock must be
//     released by whatever ends the holder (the kernel for a process, the
//     server for a database session), never by an age: a lock held is a
//     command in flight, a lock free with an intent without outcome is an
//     attempt whose outcome is unknown. A lock held by another holder is
//     an *InFlightError saying who holds it and since when. An intent on
//     an invoice whose lock the caller took is written only while that
//     lock is still held (a flock cannot be lost; a database session's
//     lock dies with the session), so a request is never sent beside
//     another that took the lock meanwhile.
type Store interface {
	Append(ctx context.Context, e Entry) error
	// Attempts returns the attempts of the invoices; every attempt when
	// none is given.
	Attempts(ctx context.Context, invoices ...string) ([]Attempt, error)
	Find(ctx context.Context, name string) ([]Attempt, error)
	// Lock takes the lock of invoice on the gateway account gateway (its
	// Identity) for command ("refund", "journal reconcile", …), and returns
	// the function that releases it.
	Lock(ctx context.Context, gateway, invoice, command string) (unlock func(), err error)
	Close() error
}

// OpenInvoicesLister is a journal that can name, without reading every
// line, the invoices that may hold an unresolved attempt: every invoice
// with an attempt whose outcome line is missing or unknown, a superset
// of what Unresolved finds, for `journal reconcile` to read whole.
type OpenInvoicesLister interface {
	OpenInvoices(ctx context.Context) ([]string, error)
}

// ErrUnavailable is a journal that cannot be reached (a shared journal's
// database down): nothing was sent, and the command may be run again.
var ErrUnavailable = errors.New("the journal is unavailable")

// Holder is who holds an invoice's lock: the command, its process and
// where it runs, and since when.
type Holder struct {
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	User    string    `json:"user,omitempty"`
	Host    string    `json:"host,omitempty"`
}

// InFlightError is a lock another holder has: a command on the invoice is
// in flight. Holder is zero when the lock's holder could not be read (it
// was being written); its Since is zero when unknown.
type InFlightError struct {
	Holder Holder
}

func (e *InFlightError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return "another paycli command on this invoice is in flight"
	}
	since := ""
	if !h.Since.IsZero() {
		since = " since " + h.Since.Format(time.RFC3339)
	}
	return fmt.Sprintf("%s is in flight in pid %d%s%s", h.Command, h.PID, since, h.Where())
}

// Say says, for a person, which command holds invoice's lock, where, and
// since when (in the time format of the journal's listing).
func (e *InFlightError) Say(invoice string) string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("another paycli command on invoice %s is in flight", redact.Invoice(invoice))
	}
	article := "a"
	if strings.IndexAny(h.Command[:min(1, len(h.Command))], "aeiou") == 0 {
		article = "an" // an api
	}
	// A lock taken outside paycli has no "since" unless the journal's
	// owner may read the holder's session (pgjournal's invoice_lock_holder).
	since := ""
	if !h.Since.IsZero() {
		since = " since " + render.FormatTime(h.Since, render.Table)
	}
	return fmt.Sprintf("%s %s on invoice %s is in flight in pid %d%s%s", article, h.Command, redact.Invoice(invoice), h.PID, since, h.Where())
}

// Where says who and where the holder runs, " (ada@desk-3)", or "" when
// neither is known.
func (h Holder) Where() string {
	switch {
	case h.User != "" && h.Host != "":
		return " (" + h.User + "@" + h.Host + ")"
	case h.User != "" || h.Host != "":
		return " (" + h.User + h.Host + ")"
	}
	return ""
}

// AccountReader is a journal that reads, by an index of its own, the
// attempts of one gateway account whose intent was written in a time
// range: the journal's side of an audit of a day against the gateway's
// ledger (the file journal through internal/journalindex, the shared one
// through its account and time index). AccountAttemptsOf reads any store.
type AccountReader interface {
	// AccountAttempts calls yield with each attempt whose intent was
	// written at or after from and before to on the account's names
	// (Scope.Names), whole (its outcome and latest reconciliation, however
	// much later written), in the order of its intent's time; it stops
	// at, and returns, yield's first error. It never holds more than a
	// few attempts at once.
	AccountAttempts(ctx context.Context, account Scope, from, to time.Time, yield func(Attempt) error) error
}

// AccountAttemptsOf reads the attempts of account whose intent falls in
// [from, to) (AccountReader), by store's own index, or from all its
// attempts for a store without one.
func AccountAttemptsOf(ctx context.Context, store Store, account Scope, from, to time.Time, yield func(Attempt) error) error {
	if r, ok := store.(AccountReader); ok {
		return r.AccountAttempts(ctx, account, from, to, yield)
	}
	all, err := store.Attempts(ctx)
	if err != nil {
		return err
	}
	in := InWindow(all, from, to)
	slices.SortStableFunc(in, func(a, b Attempt) int { return a.Intent.Time.Compare(b.Intent.Time) })
	for _, a := range in {
		if !account.Named(a.Intent) {
			continue
		}
		if err := yield(a); err != nil {
			return err
		}
	}
	return nil
}
