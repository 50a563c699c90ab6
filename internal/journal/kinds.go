package journal

import (
	"slices"

	"github.com/paycli/paycli/internal/gateway"
)

// Kind is everything the rest of paycli says about one operation, as
// the command that makes it declares it, in one value of its own package,
// and the app hands it down (cmdutil.Factory.Kinds): its name, written on
// every line it journals; how check status settles its attempts; how
// `status`, `journal show`, `journal settle` and reconcile speak of them;
// whether a re-send settles them. The journal, moneyop, journalcmd and
// status name no kind: they ask the attempt's Kind (Kinds.Of). The
// journal knows no kind of its own (but LegacyKind): adding an operation
// adds nothing here.
type Kind struct {
	Name string
	// Read says what a check-status answer means for an attempt of the
	// kind, the operation's own reading (within Settle's rule); nil when
	// check status cannot settle it.
	Read Reader
	// SentAgain: check status knows nothing of the kind (a desk action
	// that moves no money); its own command, sent again, settles an
	// attempt of unknown outcome.
	SentAgain bool
	// Subject names an attempt of the kind in a sentence, before "of
	// invoice X" ("refund RF1"); "" for an attempt that is the invoice's
	// sale itself, which status and reconcile name by its invoice alone.
	// nil: the kind's name (Kind.SubjectOf).
	Subject func(a Attempt) string
	// Says is what reconcile says a decided outcome (Learned.Decided)
	// means for an attempt of the kind ("the sale was taken"); nil: the
	// words every kind shares (reconcile's).
	Says func(l Learned) string
	// Resend is the command line that sends an attempt of unknown
	// outcome again by its Ref, which the gateway makes at most once
	// (`paycli refund --retry REF`), flags (--profile…) after it; nil when
	// a re-send is not how it is settled. ResendSafe says why a re-send is
	// safe ("the gateway makes a refund_transaction_id once").
	Resend     func(ref string, flags []string) string
	ResendSafe string
	// OnTheSale: the kind's attempts act on the invoice's sale made
	// before (a refund): an invoice is described by its latest attempt of
	// another kind, with how many of these it had.
	OnTheSale bool
	// Sale: a succeeded attempt of the kind made the invoice's sale, and
	// Refund: it gave back its Amount of the invoice's sale, by its Ref.
	// An audit (internal/ledger) matches them against the gateway's
	// ledger; an attempt of neither is not matched.
	Sale, Refund bool
}

// SubjectOf names a in a sentence (Kind.Subject): "refund RF1",
// "preauth-capture"; "" for the invoice's sale itself.
func (k Kind) SubjectOf(a Attempt) string {
	if k.Subject == nil {
		return k.Name
	}
	return k.Subject(a)
}

// ResendCommand is the command line that re-sends a, an attempt of the
// kind, by its Ref; "" when a has none or the kind is not re-sent.
func (k Kind) ResendCommand(a Attempt, flags []string) string {
	if k.Resend == nil || a.Intent.Ref == "" {
		return ""
	}
	return k.Resend(a.Intent.Ref, flags)
}

// Kinds are the kinds of the operations paycli has, in the order the app
// registers their commands.
type Kinds []Kind

// Names are the kinds' names, as `paycli journal --kind` takes them.
func (ks Kinds) Names() []string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return names
}

// Of is the kind named name; false when no operation has it.
func (ks Kinds) Of(name string) (Kind, bool) {
	i := slices.IndexFunc(ks, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return ks[i], true
}

// For is the kind of a's operation: the one declared under its name, or,
// for a kind no operation of this paycli declares, a Kind of that name
// alone (spoken of by its name, not settled).
func (ks Kinds) For(a Attempt) Kind {
	name := a.Intent.OpKind()
	if k, ok := ks.Of(name); ok {
		return k
	}
	return Kind{Name: name}
}

// Reconcilable reports whether check status can settle an attempt of
// the kind named name (Settle).
func (ks Kinds) Reconcilable(name string) bool {
	k, ok := ks.Of(name)
	return ok && k.Read != nil
}

// SentAgain reports whether an attempt of the kind named name is settled
// by sending its command again (Kind.SentAgain).
func (ks Kinds) SentAgain(name string) bool {
	k, ok := ks.Of(name)
	return ok && k.SentAgain
}

// Reader reads what a check-status answer about an attempt's invoice
// says of the attempt (Settle hands it only answers about that invoice).
type Reader func(a Attempt, c Check) Finding

// Check is a check-status answer as a Reader sees it: Res (nil when the
// gateway answered with an error status), the sale in it, and Err:
// nil, gateway.ErrNotFound (no sale with the invoice) or
// gateway.ErrPending (not processed yet).
type Check struct {
	Res  *gateway.CheckStatusResult
	Sale gateway.Sale
	Err  error
}

// Finding is what a Reader found: Outcome as Learned has it ("" when the
// answer says nothing of the attempt: Message says why); Message, when
// set, replaces the gateway's status_description; Identified when the
// answer names the attempt itself (a refund's refund_transaction_id), so
// that its outcome is not held back while its request may be in flight.
type Finding struct {
	Outcome    string
	Message    string
	Identified bool
}
