package journal

import (
	"context"
	"fmt"
)

// Blocking returns the attempts on invoice, of every kind, on scope's
// gateway account (its kind is ignored), whose outcome is not settled: in
// flight, unknown or queued, and told by no later attempt (UnresolvedAll).
// It is the one rule of the desk: while an attempt on an invoice is not
// settled, no money command on that invoice goes out, whatever its kind,
// but the re-send of that very attempt (MayResend). The pipeline
// (internal/moneyop) and every Store (ErrUnsettled) keep it.
func Blocking(attempts []Attempt, scope Scope, invoice string) []Attempt {
	var mine []Attempt
	for _, a := range attempts {
		if a.Intent.Invoice == invoice {
			mine = append(mine, a)
		}
	}
	var out []Attempt
	for _, a := range UnresolvedAll(mine) {
		if scope.sameAccount(a.Intent) {
			out = append(out, a)
		}
	}
	return out
}

// SameAccount reports whether e was made on the scope's gateway account,
// whatever its kind (sameAccount).
func (s Scope) SameAccount(e Entry) bool { return s.sameAccount(e) }

// sameAccount reports whether e was made on the scope's gateway account:
// it carries the scope's identity, or it is a legacy line (no identity)
// of the scope's profile at its base URL.
func (s Scope) sameAccount(e Entry) bool {
	anyKind := s
	anyKind.Kind = e.OpKind()
	exact, legacy := anyKind.match(e)
	return exact || legacy
}

// MayResend reports whether intent may go out past blocking, the
// invoice's unsettled attempts: only when it re-sends the very same
// attempt — every one of them is of its kind and carries its Ref (a
// refund's refund_transaction_id, which the gateway makes at most once) —
// and none of them is queued: a queued refund is settled only by check
// status reporting it made or refused, and a re-send's answer (104, the id
// in use) would not tell which. An operation can narrow the rule this
// way, never widen it.
func MayResend(intent Entry, blocking []Attempt) bool {
	if intent.Ref == "" || len(blocking) == 0 {
		return len(blocking) == 0
	}
	for _, b := range blocking {
		if b.Intent.OpKind() != intent.OpKind() || b.Intent.Ref != intent.Ref || b.Class() == Queued {
			return false
		}
	}
	return true
}

// UnsettledError is ErrUnsettled with the attempts that block the intent.
type UnsettledError struct {
	Blocking []Attempt
}

func (e *UnsettledError) Error() string {
	a := e.Blocking[len(e.Blocking)-1]
	return fmt.Sprintf("%v (a %s, attempt %s)", ErrUnsettled, a.Intent.OpKind(), a.Intent.Attempt)
}

func (e *UnsettledError) Unwrap() error { return ErrUnsettled }

// checkUnsettled is the file store's side of the rule (Blocking): an
// intent on an invoice whose account holds an unsettled attempt is
// refused, unless it re-sends that very attempt (MayResend).
func (f *File) checkUnsettled(ctx context.Context, e Entry) error {
	if e.Type != TypeIntent || e.Invoice == "" {
		return nil
	}
	attempts, err := f.Attempts(ctx, e.Invoice)
	if err != nil {
		return err
	}
	scope := Scope{Profile: e.Profile, Gateway: e.Gateway, BaseURL: e.BaseURL, Alias: e.AppGateway}
	if blocking := Blocking(attempts, scope, e.Invoice); !MayResend(e, blocking) {
		return &UnsettledError{Blocking: blocking}
	}
	return nil
}
