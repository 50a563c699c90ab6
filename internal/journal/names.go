package journal

// Kinds are the operation kinds a line may name, as `paycli journal
// --kind` takes them.
var Kinds = []string{KindWalletPay, KindRefund, KindPreAuthCapture, KindPreAuthCancel, KindComplete, KindCompleteCancel, KindAPI, KindLink}

// Classes are the outcomes an attempt may have (Attempt.Class), as
// `paycli journal --outcome` takes them.
var Classes = []string{Succeeded, Queued, Declined, Duplicate, Rejected, Unknown, NotSent, NotFound}
