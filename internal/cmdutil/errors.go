package cmdutil

import (
	"errors"
	"fmt"
)

// Kind is a stable category for an error, independent of its message. The
// exit-code mapper in internal/app turns kinds into exit codes; nothing else
// does.
type Kind int

const (
	KindUnexpected     Kind = iota // exit 1
	KindUsage                      // exit 2: bad flag, argument, input or configuration; nothing was sent
	KindAuth                       // exit 3
	KindRejected                   // exit 4
	KindDeclined                   // exit 5
	KindDuplicate                  // exit 6
	KindOutcomeUnknown             // exit 7
	KindUnavailable                // exit 8
	KindInterrupted                // exit 130
	// KindJournalRefused: the shared journal refused the operator's login
	// (a wrong password) or role (no grants): exit 9, not an outage.
	KindJournalRefused
	// KindCancelled: the person answered no at a money command's
	// confirmation (exit 10); nothing was sent. The command says so
	// itself, as a cancel, not an error.
	KindCancelled
	// KindLedgerDiffers: `paycli audit` found a difference between the
	// gateway's ledger and the journal that needs a person (exit 11).
	KindLedgerDiffers
)

// Error is an error with a category and an optional second line telling the
// user what to do next.
type Error struct {
	Kind Kind
	Err  error
	// Hint is printed on a second line of stderr, after the error itself.
	Hint string
	// Silent errors have already been reported to the user; only the exit
	// code is left to set.
	Silent bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageErrorf reports bad input: exit 2, nothing was sent.
func UsageErrorf(format string, args ...any) error {
	return &Error{Kind: KindUsage, Err: fmt.Errorf(format, args...)}
}

// UsageHint is UsageErrorf with a second line of advice.
func UsageHint(err error, hint string) error {
	return &Error{Kind: KindUsage, Err: err, Hint: hint}
}

// WithKind wraps err in the given category, keeping any hint it had.
func WithKind(kind Kind, err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err, Hint: hint}
}

// SilentError sets the exit code of a failure the command already reported.
func SilentError(kind Kind) error {
	return &Error{Kind: kind, Err: errors.New("already reported"), Silent: true}
}

// KindOf returns the category of err, KindUnexpected when it has none.
func KindOf(err error) (Kind, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, true
	}
	return KindUnexpected, false
}

// HintOf returns the first hint found on err's chain.
func HintOf(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}

// IsSilent reports whether err was already shown to the user.
func IsSilent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Silent
}
