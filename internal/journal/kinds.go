package journal

import (
	"slices"

	"github.com/paycli/paycli/internal/gateway"
)

// Kind is one money operation's kind as the command that makes it
// declares it (moneyop.KindsOf) and the app hands it down: its name,
// written on every line it journals, and how check status settles its
// attempts. The journal knows no kind of its own (but the legacy lines'
// walletpay, Entry.OpKind): adding an operation adds nothing here.
type Kind struct {
	Name string
	// Read says what a check-status answer means for an attempt of the
	// kind (ReadSale, ReadRefund, …, or the operation's own); nil when
	// check status cannot settle it.
	Read Reader
	// SentAgain: check status knows nothing of the kind (a desk action
	// that moves no money); its own command, sent again, settles an
	// attempt of unknown outcome.
	SentAgain bool
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
