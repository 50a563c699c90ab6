package gateway

import (
	"fmt"
	"strings"
)

// InconsistentError is a success answer (status_code 100) to a call that
// moves money whose own fields disagree with it or with the request: an
// invoice_id that is not the one sent, a payment_status that is not 1, an
// empty order number. Such an answer proves nothing either way, so it is an
// unknown outcome: it matches ErrOutcomeUnknown, and the command sends the
// user to reconcile instead of reporting success.
type InconsistentError struct {
	// Endpoint is the call's name, as in APIError.
	Endpoint string
	// Reasons say what disagrees, one per field, with the gateway's values
	// cleaned for a terminal (no control characters, card numbers masked).
	Reasons []string
}

func (e *InconsistentError) Error() string {
	return fmt.Sprintf("%s: the gateway answered success, but %s; the outcome is unknown",
		e.Endpoint, strings.Join(e.Reasons, "; "))
}

// Is matches ErrOutcomeUnknown.
func (e *InconsistentError) Is(target error) bool { return target == ErrOutcomeUnknown }

// SuccessCheck collects the disagreements of a success answer, field by
// field, in one expression:
//
//	err := gateway.CheckSuccess(gateway.EndpointWalletPay).
//		Equal("invoice_id", res.InvoiceID, sent.InvoiceID).
//		Present("order_no", res.OrderNo).
//		Int("payment_status", res.PaymentStatus, 1).
//		Err()
//
// The methods of this package's results (RefundResult.Check and others)
// use it; commands use it for the answers they check themselves.
type SuccessCheck struct {
	endpoint string
	reasons  []string
}

// CheckSuccess starts the checks of an answer to endpoint.
func CheckSuccess(endpoint string) *SuccessCheck { return &SuccessCheck{endpoint: endpoint} }

// Equal requires the answer's field to be exactly want (an identifier the
// request sent: compared byte for byte).
func (c *SuccessCheck) Equal(field, got, want string) *SuccessCheck {
	switch {
	case got == want:
	case got == "":
		c.reasons = append(c.reasons, fmt.Sprintf("%s is missing (sent %s)", field, shownValue(want)))
	default:
		c.reasons = append(c.reasons, fmt.Sprintf("%s is %s, not the one sent (%s)", field, shownValue(got), shownValue(want)))
	}
	return c
}

// Present requires the answer's field to be non-empty.
func (c *SuccessCheck) Present(field, got string) *SuccessCheck {
	if strings.TrimSpace(got) == "" {
		c.reasons = append(c.reasons, field+" is empty")
	}
	return c
}

// Int requires the answer's whole-number field to be want.
func (c *SuccessCheck) Int(field string, got, want int) *SuccessCheck {
	if got != want {
		c.reasons = append(c.reasons, fmt.Sprintf("%s is %d, not %d", field, got, want))
	}
	return c
}

// Err returns an *InconsistentError naming every disagreement, nil when
// there is none.
func (c *SuccessCheck) Err() error {
	if len(c.reasons) == 0 {
		return nil
	}
	return &InconsistentError{Endpoint: c.endpoint, Reasons: c.reasons}
}

// shownValue quotes a value for an error line: on one line, short, card
// numbers masked, so that a hostile answer cannot write to the terminal.
func shownValue(s string) string {
	s = cleanDescription(s)
	const max = 64
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
