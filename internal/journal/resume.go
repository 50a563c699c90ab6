package journal

import (
	"net"
	"net/url"
	"strings"
)

// InvoiceState is what the journal says about one invoice within a Scope.
type InvoiceState struct {
	// Succeeded: some attempt succeeded (by its outcome line or by a
	// reconciliation).
	Succeeded bool
	// Success is the attempt that succeeded, when one did: later attempts
	// (a duplicate, answered 3) do not hide its order number
	// (Success.OrderNo()).
	Success Attempt
	// Last is the latest attempt that counts: the scope's latest, or a
	// later legacy attempt whose outcome is unknown (see ByInvoice).
	Last Attempt
	// Unresolved are the invoice's attempts whose outcome is unknown and
	// that no later attempt settled (see Unresolved), oldest first.
	Unresolved []Attempt
}

// ResumeDecision is what a resumed batch does with an invoice the journal
// knows about.
type ResumeDecision int

const (
	// ResumeSend: nothing in the journal stops the invoice from being sent.
	ResumeSend ResumeDecision = iota
	// ResumeSkip: the operation is known to have succeeded; never send again.
	ResumeSkip
	// ResumeUnknown: the last attempt's outcome is unknown; it must be
	// reconciled before anything is sent.
	ResumeUnknown
)

// Resume decides what a resumed batch does with the invoice: skip it when
// an attempt succeeded (reconciled-paid included), report it unknown when
// an attempt's outcome is unknown and unresolved (Unresolved: a later
// duplicate does not settle it), else send it (declined, duplicate,
// rejected, not sent, and reconciled-not-found: the gateway has no
// transaction for it).
//
// The zero InvoiceState (an invoice the journal does not know) is sent.
func (s InvoiceState) Resume() ResumeDecision {
	switch {
	case s.Succeeded:
		return ResumeSkip
	case len(s.Unresolved) > 0:
		return ResumeUnknown
	}
	return ResumeSend
}

// Scope selects the attempts that speak for one operation on one gateway
// account: the operation kind and the gateway identity (see Identity),
// whatever profile name the account was used under. An attempt from
// another scope is never a reason to skip.
type Scope struct {
	Kind string
	// Profile and BaseURL match legacy lines, written before lines carried
	// Gateway, which name the account only by them (see ByInvoice).
	Profile string
	Gateway string
	BaseURL string
	// Alias is the account's name on lines of an earlier paycli (Identity
	// of the base URL and the run's app_id: AccountOf): they are its lines
	// too.
	Alias string
}

// WithAlias is s with alias, the account's name on an earlier paycli's
// lines (AccountOf), counted as its own.
func (s Scope) WithAlias(alias string) Scope {
	s.Alias = alias
	return s
}

// ownsGateway reports whether a line's gateway identity names the scope's
// account.
func (s Scope) ownsGateway(gateway string) bool {
	return gateway == s.Gateway || (s.Alias != "" && gateway == s.Alias)
}

// Names are the gateway identities the account's lines carry: its own
// (Gateway) and, when it has one, the name an earlier paycli gave it from
// the run's app_id (Alias). An account's audit reads the lines of these
// names alone: a line an earlier paycli wrote under an app_id since
// rotated away names the account only by its profile's name, and the
// shared journal's database does not count it as the account's either.
func (s Scope) Names() []string {
	if s.Alias == "" || s.Alias == s.Gateway {
		return []string{s.Gateway}
	}
	return []string{s.Gateway, s.Alias}
}

// Named reports whether e carries one of the account's names (Names).
func (s Scope) Named(e Entry) bool { return e.Gateway != "" && s.ownsGateway(e.Gateway) }

// NewScope is the scope of kind on the gateway account at baseURL with
// appID, as profile sees it.
func NewScope(kind, profile, baseURL, appID string) Scope {
	return Scope{Kind: kind, Profile: profile, Gateway: Identity(baseURL, appID), BaseURL: baseURL}
}

// SandboxBaseURL stands for the emulator's address in a sandbox Scope:
// the in-process emulator listens on a new port each run, so legacy
// --sandbox lines (without a gateway identity) are matched by a loopback
// base URL rather than by the exact one (see ByInvoice).
const SandboxBaseURL = "sandbox:"

// ScopeFor is the scope of kind for profile on the gateway account named
// identity (the gateway identity every line carries: Identity of the base
// URL and app_id, or of the sandbox's state folder in sandbox mode), at
// baseURL.
func ScopeFor(kind, profile, baseURL, identity string, sandbox bool) Scope {
	if sandbox {
		baseURL = SandboxBaseURL
	}
	return Scope{Kind: kind, Profile: profile, Gateway: identity, BaseURL: baseURL}
}

// match reports whether e belongs to the scope (exact: its kind on the
// same gateway identity, under any profile name), or is a legacy line of
// the scope's kind and profile at the same base URL: one with no Gateway,
// or, for an account named by its merchant (a scope with an Alias), one an
// earlier paycli wrote under another app_id's name (earlierName).
func (s Scope) match(e Entry) (exact, legacy bool) {
	switch {
	case e.OpKind() != s.Kind:
		return false, false
	case e.Gateway != "" && s.ownsGateway(e.Gateway):
		return true, false
	case e.Gateway != "" && !(s.Alias != "" && earlierName(e)):
		return false, false
	case e.Gateway == "" && s.Gateway == "":
		// A scope that names no account: its profile's lines.
		return e.Profile == s.Profile, false
	}
	return false, e.Profile == s.Profile && s.sameBaseURL(e.BaseURL)
}

// earlierName reports whether e is a live line of an earlier paycli, named
// by the app_id it was written with: a line of this paycli carries that
// name beside its account's (AppGateway). The app_id may have been rotated
// since, so such a line of the same profile at the same base URL is read
// as a legacy line: its unknown attempt blocks, its success is no reason to
// skip.
func earlierName(e Entry) bool {
	return e.AppGateway == "" && !IsSandboxIdentity(e.Gateway)
}

// sameBaseURL: a legacy line's base URL is the scope's. Legacy --sandbox
// lines hold the loopback address the emulator had then.
func (s Scope) sameBaseURL(baseURL string) bool {
	if s.BaseURL == SandboxBaseURL {
		u, err := url.Parse(baseURL)
		if err != nil {
			return false
		}
		ip := net.ParseIP(u.Hostname())
		return (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost"
	}
	return CanonicalURL(baseURL) == CanonicalURL(s.BaseURL)
}

// MadeInSandbox reports whether e was made in sandbox mode, the sandbox's
// gateway identity being sandboxIdentity: its identity says so
// (IsSandboxIdentity); or, for a line written before sandbox identities
// carried their prefix, it is sandboxIdentity without it (what the
// sandbox's identity was then); or e is a legacy line (no identity) made
// at a loopback address, as a sandbox Scope counts legacy lines (see
// ScopeFor).
func (e Entry) MadeInSandbox(sandboxIdentity string) bool {
	if e.Gateway != "" {
		old := strings.TrimPrefix(sandboxIdentity, SandboxPrefix)
		return IsSandboxIdentity(e.Gateway) || (old != "" && e.Gateway == old)
	}
	return Scope{BaseURL: SandboxBaseURL}.sameBaseURL(e.BaseURL)
}

// ByInvoice summarises the attempts of scope per invoice.
//
// Lines written before lines carried the gateway identity (legacy lines)
// cannot prove which account they were made on. They are never a reason
// to skip: a legacy success is ignored (a re-send is answered status_code 3
// by the gateway that took it, charging nothing). But a legacy attempt of
// the scope's kind and profile at the same base URL whose outcome is
// unknown blocks a re-send as unknown until it is reconciled: safety
// first, as the gateway may still be processing it.
func ByInvoice(attempts []Attempt, scope Scope) map[string]InvoiceState {
	out := map[string]InvoiceState{}
	for _, a := range attempts {
		exact, legacy := scope.match(a.Intent)
		switch {
		case exact:
			s := out[a.Intent.Invoice]
			if a.Class() == Succeeded {
				s.Succeeded, s.Success = true, a
			}
			s.Last = a
			out[a.Intent.Invoice] = s
		case legacy && a.Class() == Unknown:
			s := out[a.Intent.Invoice]
			s.Last = a
			out[a.Intent.Invoice] = s
		}
	}
	for _, a := range Unresolved(attempts, scope, "") {
		s := out[a.Intent.Invoice]
		s.Unresolved = append(s.Unresolved, a)
		out[a.Intent.Invoice] = s
	}
	return out
}

// InScope reports whether the attempt counts for scope as ByInvoice
// counts it: made in the scope, or a legacy attempt of it whose outcome is
// unknown.
func (s Scope) InScope(a Attempt) bool {
	exact, legacy := s.match(a.Intent)
	return exact || (legacy && a.Class() == Unknown)
}

// ByKey groups the attempts that count for scope (InScope) by their
// intent's Key, oldest first; attempts without a key are left out.
func ByKey(attempts []Attempt, scope Scope) map[string][]Attempt {
	out := map[string][]Attempt{}
	for _, a := range attempts {
		if a.Intent.Key == "" || !scope.InScope(a) {
			continue
		}
		out[a.Intent.Key] = append(out[a.Intent.Key], a)
	}
	return out
}
