package journal

import (
	"errors"
	"fmt"
	"time"

	"github.com/paycli/paycli/internal/gateway"
)

// Learned is what the gateway's check-status call says about one attempt
// whose outcome was unknown (Settle).
type Learned struct {
	// Outcome is Succeeded (the attempt did what it asked: the sale was
	// taken, the refund made, the hold captured…), Declined (the gateway
	// has it, failed or undone: nothing was taken by it), Pending (not
	// finished yet) or Unknown (an answer paycli does not understand). ""
	// when the answer says nothing that settles the attempt (Message says
	// why): nothing is recorded.
	Outcome           string
	StatusCode        *int
	OrderNo           string
	TransactionStatus string
	Message           string
	// After, when set, is when the attempt's request is sure to be over:
	// the answer found nothing, or nothing that names the attempt, but the
	// request may still be processing (its time limit had not run out,
	// with InFlightMargin, when the call was made). Ask again after it.
	// Outcome is "" then.
	After time.Time
	// Missing: the answer does not find the attempt (no sale with the
	// invoice, refund_info not listing its ref, the hold still open, the
	// 3D sale still waiting). That is never final, whatever the time: the
	// gateway may still make it. Outcome is "" and nothing is recorded;
	// the attempt needs its ref sent again (a refund: `paycli refund
	// --retry`) or the desk lead's `paycli journal settle`.
	Missing bool
}

// Decided reports whether the answer decides the attempt's outcome.
func (l Learned) Decided() bool {
	return l.Outcome == Succeeded || l.Outcome == Declined
}

// InFlightMargin is how long after its time limit a request may still be
// processed by the gateway: until then, a finding that does not name the
// attempt does not settle it, and one that finds nothing says when to ask
// again (Learned.After).
const InFlightMargin = 2 * time.Minute

// defaultLimit is the time limit assumed for an attempt whose intent
// records none (written before intents had deadlines, or sent without a
// time limit).
const defaultLimit = 10 * time.Minute

// Deadline is when the attempt's request is over for paycli: its intent's
// Deadline, or for an intent without one its time and defaultLimit.
func (a Attempt) Deadline() time.Time {
	if !a.Intent.Deadline.IsZero() {
		return a.Intent.Deadline
	}
	return a.Intent.Time.Add(defaultLimit)
}

// Settle says what a check-status answer about a's invoice (res, or the
// call's error err), asked at asked, means for a, an attempt whose outcome
// is unknown, read by read, its kind's Reader (Kind.Read). It is the one
// reading of check status for every command that records it (`paycli
// status`, `paycli journal reconcile`, through Reconciler) and, through
// Unresolved, for every guard and resumed batch that acts on it.
//
// An answer about another invoice says nothing; neither does a failed
// call. What the answer means is its kind's, the Reader its operation
// declares (Kind.Read): the journal holds no operation's reading.
//
// NotFound is never final (the gateway may still make the attempt, however
// late: issue 39): it records nothing, and says so (Missing; with After
// while the request may still be in flight). An outcome read from an
// answer that does not name the attempt itself is final only once the
// request is over (heldBack): before a.Deadline() and InFlightMargin, it
// is "" with After set.
func Settle(read Reader, a Attempt, res *gateway.CheckStatusResult, err error, asked time.Time) Learned {
	c := Check{Res: res}
	if res != nil {
		c.Sale = res.Sale()
	}
	var apiErr *gateway.APIError
	switch {
	case err != nil && (!errors.As(err, &apiErr) || !apiErr.HasStatusCode):
		return Learned{Message: "the check failed: " + err.Error()}
	case res != nil && res.InvoiceID != "" && res.InvoiceID != a.Intent.Invoice:
		return Learned{Message: "the gateway's answer is about another invoice; nothing recorded"}
	case err == nil && res == nil:
		return Learned{Message: "the gateway's answer is empty"}
	}
	var l Learned
	if res != nil {
		code := res.StatusCode
		l = Learned{StatusCode: &code, OrderNo: res.OrderID, TransactionStatus: res.TransactionStatus, Message: res.StatusDescription}
	} else {
		code := apiErr.StatusCode
		l = Learned{StatusCode: &code, Message: apiErr.Description}
	}
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		c.Err = gateway.ErrNotFound
	case errors.Is(err, gateway.ErrPending):
		c.Err = gateway.ErrPending
	case err != nil:
		return Learned{Message: "the check failed: " + err.Error()}
	}
	if read == nil {
		return Learned{Message: fmt.Sprintf("check status does not settle a %s attempt", a.Intent.OpKind())}
	}
	f := read(a, c)
	if f.Outcome == "" {
		return Learned{Message: f.Message}
	}
	over := a.Deadline().Add(InFlightMargin)
	if f.Outcome == NotFound {
		m := Learned{Missing: true, StatusCode: l.StatusCode, Message: "check status does not find it; that is not final: the gateway may still make it"}
		if f.Message != "" {
			m.Message = f.Message + "; that is not final: the gateway may still make it"
		}
		if asked.Before(over) {
			m.After = over
		}
		return m
	}
	l.Outcome = f.Outcome
	if f.Message != "" {
		l.Message = f.Message
	}
	if asked.Before(over) && heldBack(a, l, f.Identified) {
		return Learned{After: over, Message: "its request may still be in flight"}
	}
	return l
}

// heldBack reports whether l, learned before a's deadline and
// InFlightMargin, must wait until then: any outcome the answer cannot tie
// to a itself while a may still be at the gateway (a NotFound never
// settles: Settle). Only a refund's answer names its attempt
// (refund_info lists its refund_transaction_id); a sale, hold or 3D sale
// found made or undone may be an earlier attempt's doing, and settling a
// on it would free the invoice while a is still being worked on. An
// attempt the gateway answered (pending, say) is no longer there.
// identified: the answer names a itself (Finding.Identified).
func heldBack(a Attempt, l Learned, identified bool) bool {
	answered := a.Outcome != nil && a.Outcome.StatusCode != nil
	return l.Decided() && !identified && !answered
}

// Unanswered is what an answer without the sale says of any attempt: no
// sale with the invoice (NotFound) or not processed yet (Pending); false
// for an answer that holds the sale. Every Reader asks it first.
func (c Check) Unanswered() (Finding, bool) {
	switch {
	case errors.Is(c.Err, gateway.ErrNotFound):
		return Finding{Outcome: NotFound}, true
	case errors.Is(c.Err, gateway.ErrPending):
		return Finding{Outcome: Pending}, true
	}
	return Finding{}, false
}

// NotUnderstood is an Unknown finding about a transaction_status paycli
// does not understand.
func (c Check) NotUnderstood() Finding {
	var status string
	if c.Res != nil {
		status = c.Res.TransactionStatus
	}
	return Finding{Outcome: Unknown, Message: fmt.Sprintf("transaction_status %q is not understood; check the transaction with the gateway", status)}
}

// Reconciliation is the reconcile line that records l about a, written
// by via (ViaStatus, ViaReconcile) at now.
func Reconciliation(a Attempt, l Learned, via string, now time.Time) Entry {
	e := a.Intent
	e.Type, e.Time, e.Deadline = TypeReconcile, now.UTC(), time.Time{}
	e.Outcome, e.StatusCode, e.OrderNo, e.Message = l.Outcome, l.StatusCode, l.OrderNo, l.Message
	e.TransactionStatus, e.Via = l.TransactionStatus, via
	return e
}

// Unresolved returns the attempts of scope for invoice (every invoice
// when invoice is "") whose outcome is unknown and that no later attempt
// settled: the one rule for "unresolved" that `paycli journal` lists,
// `journal reconcile` and `status` check, and a money-moving command or a
// resumed batch refuses to go past.
//
// A later attempt settles an earlier one of the same story only when it
// succeeded: a refund's story is its refund_transaction_id (a --retry
// re-sends it, and the gateway makes a ref at most once, so a success
// says it was made); any other attempt's story is its invoice and kind.
// A refused re-send (49, any decline, any rejection), a 104 "id in use"
// (the ref may be queued), a duplicate, and a later attempt the lead or
// the gateway found not made tell nothing about the earlier one (issue
// 39): the earlier attempt waits for check status naming it, or for the
// desk lead's `paycli journal settle`.
func Unresolved(attempts []Attempt, scope Scope, invoice string) []Attempt {
	return unresolvedIn(attempts, []Scope{scope}, invoice)
}

// unresolvedIn is Unresolved for the attempts of any of scopes. The
// stories are told by every attempt of the journal (UnresolvedAll), so
// that every scope, and the journal's listing, read them alike.
func unresolvedIn(attempts []Attempt, scopes []Scope, invoice string) []Attempt {
	if invoice != "" {
		var mine []Attempt
		for _, a := range attempts {
			if a.Intent.Invoice == invoice {
				mine = append(mine, a)
			}
		}
		attempts = mine
	}
	var out []Attempt
	for _, a := range UnresolvedAll(attempts) {
		for _, scope := range scopes {
			if scope.InScope(a) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// UnresolvedAll is Unresolved among attempts, in the order their intents
// were written, whatever their scopes: a story is one account's.
func UnresolvedAll(attempts []Attempt) []Attempt {
	// Walking back, told[story] says whether a later attempt told it.
	told := map[string]bool{}
	open := make([]bool, len(attempts))
	accounts := accountsOf(attempts)
	for i := len(attempts) - 1; i >= 0; i-- {
		a := attempts[i]
		story := storyOf(a.Intent, accounts)
		open[i] = a.Unsettled() && !told[story]
		if tells(a) {
			told[story] = true
		}
	}
	var out []Attempt
	for i, a := range attempts {
		if open[i] {
			out = append(out, a)
		}
	}
	return out
}

// accountsOf maps the app_id identities (Identity) that lines of an
// earlier paycli carry to the account the later lines name them with
// (Entry.AppGateway beside Entry.Gateway), so that a story begun before a
// change of identity goes on after it.
func accountsOf(attempts []Attempt) map[string]string {
	accounts := map[string]string{}
	for _, a := range attempts {
		if e := a.Intent; e.AppGateway != "" && e.Gateway != "" {
			accounts[e.AppGateway] = e.Gateway
		}
	}
	return accounts
}

// storyOf names what an attempt is about, on its gateway account (an
// earlier identity named by accounts: accountsOf): its refund (the
// refund_transaction_id) for an attempt that has one, its invoice and kind
// for every other. Lines without an identity name their account by
// profile and base URL.
func storyOf(e Entry, accounts map[string]string) string {
	account := e.Gateway
	if now, ok := accounts[account]; ok {
		account = now
	}
	if account == "" {
		account = "legacy\x00" + e.Profile + "\x00" + CanonicalURL(e.BaseURL)
	}
	if e.Ref != "" {
		return account + "\x00ref\x00" + e.Invoice + "\x00" + e.Ref
	}
	return account + "\x00" + e.OpKind() + "\x00" + e.Invoice
}

// tells reports whether a later attempt's outcome tells its story (see
// Unresolved): only a success does.
func tells(later Attempt) bool {
	return later.Class() == Succeeded
}
