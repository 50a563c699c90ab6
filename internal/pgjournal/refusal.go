package pgjournal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// SQLSTATEs of the journal's own rules (migrations/003_one_truth.sql).
const (
	stateUnsettled  = "PC001" // an intent on an invoice with an unsettled attempt
	stateNotYours   = "PC002" // an outcome not written by its intent's role
	stateNoEvidence = "PC003" // a settling reconcile line without the gateway's answer (a lead's: without a reason)
	stateNotLead    = "PC004" // a lead's settle line from a role that is no desk lead (migrations/005_settlement.sql)
)

// RefusedError: the database refused a line for what the line is (a rule
// of the journal, a constraint, a value it cannot store), not because it
// could not be reached: written again, it is refused again. Nothing about
// it is an outage.
type RefusedError struct {
	// Type and Attempt name the line.
	Type, Attempt string
	// State is the SQLSTATE; Constraint the constraint broken, if any.
	State, Constraint string
	Err               error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the shared journal refused the %s line of attempt %s: %v", e.Type, render.Escape(e.Attempt), e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Is makes the refusal of an intent on an unsettled invoice a
// journal.ErrUnsettled.
func (e *RefusedError) Is(target error) bool {
	return target == journal.ErrUnsettled && e.State == stateUnsettled
}

// NotLead reports whether the line was refused as a lead's settle line
// written by a role that is no desk lead.
func (e *RefusedError) NotLead() bool { return e.State == stateNotLead }

// Sandbox reports whether the line was refused as a sandbox line.
func (e *RefusedError) Sandbox() bool { return e.Constraint == "journal_lines_not_sandbox" }

// Reason is why the database refused the line (journal.Refusal).
func (e *RefusedError) Reason() string { return e.Err.Error() }

// LoginError: the database refused the operator's login (a wrong password,
// no such role, pg_hba) or the role's rights on the journal. Not an outage:
// trying again changes nothing until someone fixes it; Fix says who.
type LoginError struct {
	URL string // with its password masked
	// Password is true for a refused login (28P01, 28000); false for a
	// role without the journal's grants (42501).
	Password bool
	Err      error
}

func (e *LoginError) Error() string {
	if e.Password {
		return fmt.Sprintf("the shared journal at %s refused the login: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("the shared journal at %s does not allow your role: %v", e.URL, e.Err)
}

func (e *LoginError) Unwrap() error { return e.Err }

// Fix says who puts it right, for a person.
func (e *LoginError) Fix() string {
	if e.Password {
		return "Check the user name and password in the profile's journal URL ('paycli config set journal URL'); the database's owner resets them."
	}
	return "Ask the desk lead (the database's owner) to run 'paycli journal init --url URL --grant ROLE' for your role."
}

// classify tells what a database error means for a line (e, when one is
// being written) or a session: a refusal of the line, a refused login or
// role, or an outage (the journal is unavailable).
func (s *Store) classify(err error, e *journal.Entry) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return s.unavailable(err)
	}
	if le := loginError(pgErr, s.opts.URL); le != nil {
		return le
	}
	if outage(pgErr.Code) {
		return s.unavailable(err)
	}
	r := &RefusedError{State: pgErr.Code, Constraint: pgErr.ConstraintName, Err: errors.New(oneLine(redact.Cards(pgErr.Message)))}
	if e != nil {
		r.Type, r.Attempt = e.Type, e.Attempt
	}
	return r
}

// loginError is pgErr as a *LoginError, or nil when it is something else.
func loginError(pgErr *pgconn.PgError, url string) *LoginError {
	switch pgErr.Code {
	case "28P01", "28000":
		return &LoginError{URL: redact.URL(url), Password: true, Err: errors.New(oneLine(pgErr.Message))}
	case "42501":
		if strings.Contains(pgErr.Message, "append-only") {
			return nil
		}
		return &LoginError{URL: redact.URL(url), Err: errors.New(oneLine(pgErr.Message))}
	}
	return nil
}

// outage reports whether a SQLSTATE says the database could not do the
// work now (connection, resources, shutdown, a conflict to retry), rather
// than that it refuses it.
func outage(code string) bool {
	switch code[:2] {
	case "08", "25", "53", "57", "58", "XX", "40", "55", "HV":
		return true
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
