package journal

// Kinds are the operation kinds of money attempts, which check status
// settles (ReconcileScopes); AllKinds adds the desk actions.
var Kinds = []string{KindWalletPay, KindRefund, KindPreAuthCapture, KindPreAuthCancel, KindComplete, KindCompleteCancel, KindAPI}

// Classes are the outcomes an attempt may have (Attempt.Class), as
// `paycli journal --outcome` takes them.
var Classes = []string{Succeeded, Queued, Declined, Duplicate, Rejected, Unknown, NotSent, NotFound}

// DeskKinds are the kinds of desk actions that move no money and that
// check status cannot settle (a saved card's deletion): `paycli journal
// --kind` takes them too, reconciliation leaves them out (Kinds).
var DeskKinds = []string{KindCardDelete}

// AllKinds are Kinds and DeskKinds: every kind a line may name.
func AllKinds() []string { return append(append([]string{}, Kinds...), DeskKinds...) }
