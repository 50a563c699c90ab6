package journal

// Classes are the outcomes an attempt may have (Attempt.Class), as
// `paycli journal --outcome` takes them.
var Classes = []string{Succeeded, Queued, Declined, Duplicate, Rejected, Unknown, NotSent, NotFound}
