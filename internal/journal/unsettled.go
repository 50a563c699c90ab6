package journal

import "errors"

// ErrUnsettled is what a store returns for an intent on an invoice that
// holds an attempt still in flight, of unknown outcome or queued: the
// rule every store keeps, whatever the operation.
var ErrUnsettled = errors.New("the invoice has an attempt whose outcome is not settled")
