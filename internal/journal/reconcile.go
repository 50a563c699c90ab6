package journal

import (
	"context"
	"errors"
	"time"

	"github.com/paycli/paycli/internal/gateway"
)

// Clock is a journal whose guards go by another clock than this
// machine's (a shared journal: its database's, issue 30 defect 3).
type Clock interface {
	// DatabaseTime is t, read on this machine's clock, on the journal's.
	DatabaseTime(t time.Time) time.Time
}

// ReconcileScopes are the scopes a reconciliation settles: every kind of
// kinds that check status can settle (Kind.Read), on the gateway account
// named identity (alias on an earlier paycli's lines: AccountOf).
func ReconcileScopes(kinds Kinds, profile, baseURL, identity, alias string, sandbox bool) []Scope {
	scopes := make([]Scope, 0, len(kinds))
	for _, kind := range kinds {
		if kind.Read != nil {
			scopes = append(scopes, ScopeFor(kind.Name, profile, baseURL, identity, sandbox).WithAlias(alias))
		}
	}
	return scopes
}

// UnresolvedInvoices lists, in journal order, the invoices with an
// unresolved attempt in any of scopes.
func UnresolvedInvoices(attempts []Attempt, scopes []Scope) []string {
	var invoices []string
	seen := map[string]bool{}
	for _, a := range unresolvedIn(attempts, scopes, "") {
		if inv := a.Intent.Invoice; !seen[inv] {
			seen[inv] = true
			invoices = append(invoices, inv)
		}
	}
	return invoices
}

// Reconciler settles an invoice's unresolved attempts from what check
// status answers: the one reconciliation, which `paycli status` and
// `paycli journal reconcile` both run (Reconcile).
type Reconciler struct {
	Store Store
	// Identity names the gateway account (its lock), Scopes its attempts
	// (ReconcileScopes) and Kinds how check status settles each kind.
	Identity string
	Scopes   []Scope
	Kinds    Kinds
	// Command holds the invoice's lock ("status", "journal reconcile");
	// Via is written on the reconcile lines (ViaStatus, ViaReconcile).
	Command, Via string
	Now          func() time.Time
	// Attempts reads an invoice's attempts; nil reads them from Store (a
	// file journal's index reads them faster).
	Attempts func(ctx context.Context, invoice string) ([]Attempt, error)
	// Keep says whether what was learned is recorded; nil records every
	// outcome the answer tells.
	Keep func(Learned) bool
}

// Answer is the gateway's check-status answer about an invoice: Res, or
// the call's error Err, asked at Asked on this machine's clock.
type Answer struct {
	Res   *gateway.CheckStatusResult
	Err   error
	Asked time.Time
}

// CheckStatus asks the gateway's check status about the invoice.
type CheckStatus func(ctx context.Context) Answer

// ReconcileReport is what a reconciliation of an invoice did.
type ReconcileReport struct {
	// InFlight: another command holds the invoice; nothing was asked.
	InFlight *InFlightError
	// Settlements are the invoice's unresolved attempts and what the
	// answer taught of each (those before a failed append, when it
	// failed); none when nothing was unresolved (Latest).
	Settlements []Settlement
	// Latest is the invoice's last attempt when nothing was unresolved
	// (settled meanwhile); nil when it has none.
	Latest *Attempt
	// Err is the check-status call's error, if it failed.
	Err error
}

// Settlement is one unresolved attempt and what the answer taught of it.
type Settlement struct {
	Attempt Attempt
	Learned Learned
	// Recorded: a reconcile line was appended.
	Recorded bool
}

// Reconcile settles invoice's unresolved attempts (Unresolved): when there
// are any, it takes the invoice's lock (an invoice a command holds is left
// alone: InFlight), reads them again under it, asks check status once,
// reads the answer for each (Settle, on the journal's clock: Clock) and
// appends a reconcile line, with the answer as evidence, for each it
// teaches something.
func (r Reconciler) Reconcile(ctx context.Context, invoice string, ask CheckStatus) (ReconcileReport, error) {
	var done ReconcileReport
	read := r.Attempts
	if read == nil {
		read = func(ctx context.Context, invoice string) ([]Attempt, error) { return r.Store.Attempts(ctx, invoice) }
	}
	open, latest, err := r.unresolved(ctx, read, invoice)
	if err != nil || len(open) == 0 {
		done.Latest = latest
		return done, err
	}
	unlock, err := r.Store.Lock(ctx, r.Identity, invoice, r.Command)
	if errors.As(err, &done.InFlight) {
		return done, nil
	} else if err != nil {
		return done, err
	}
	defer unlock()
	// Read again under the lock: a command may have finished meanwhile.
	if open, latest, err = r.unresolved(ctx, read, invoice); err != nil || len(open) == 0 {
		done.Latest = latest
		return done, err
	}
	answer := ask(ctx)
	res, callErr, asked := answer.Res, answer.Err, answer.Asked
	done.Err = callErr
	// A shared journal's guards go by the database's clock (the attempt's
	// deadline is the database's): read the answer on it too.
	if clock, ok := r.Store.(Clock); ok {
		asked = clock.DatabaseTime(asked)
	}
	for _, a := range open {
		kind, _ := r.Kinds.Of(a.Intent.OpKind())
		s := Settlement{Attempt: a, Learned: Settle(kind.Read, a, res, callErr, asked)}
		if s.Learned.Outcome != "" && (r.Keep == nil || r.Keep(s.Learned)) {
			line := Reconciliation(a, s.Learned, r.Via, r.Now())
			line.Evidence = EvidenceOf(res, callErr)
			if err := r.Store.Append(ctx, line); err != nil {
				return done, err
			}
			s.Recorded = true
		}
		done.Settlements = append(done.Settlements, s)
	}
	return done, nil
}

// unresolved reads invoice's attempts and returns those unresolved in the
// reconciler's scopes, and the last attempt.
func (r Reconciler) unresolved(ctx context.Context, read func(context.Context, string) ([]Attempt, error), invoice string) ([]Attempt, *Attempt, error) {
	attempts, err := read(ctx, invoice)
	if err != nil || len(attempts) == 0 {
		return nil, nil, err
	}
	return unresolvedIn(attempts, r.Scopes, invoice), &attempts[len(attempts)-1], nil
}
