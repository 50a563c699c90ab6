package gateway

import (
	"fmt"
	"slices"
	"strings"
)

// InconsistentError is a success answer (status_code 100, or refund's 101)
// whose own fields contradict it or the request: an invoice_id that is not
// the one sent, a payment_status that is not 1, a transaction_status that
// names a failure or the other action, an empty order number. Such an
// answer proves nothing either way. For a call that moves money it is an
// unknown outcome (it matches ErrOutcomeUnknown, and the command sends the
// user to reconcile instead of reporting success); for a read (check
// status) it is an answer the client refuses to hand on, so that nothing in
// it decides what is sent next.
type InconsistentError struct {
	// Endpoint is the call's name, as in APIError.
	Endpoint string
	// StatusCode is the success code the gateway answered.
	StatusCode int
	// Reasons say what disagrees, with the gateway's values cleaned for a
	// terminal (no control characters, card numbers masked). The client's
	// checks name the first field at fault, as the order of SuccessCheck's
	// calls gives them.
	Reasons []string
	// OrderNo is the order number the answer names, if any: recorded with
	// the unknown outcome, it helps whoever reconciles it.
	OrderNo string
}

// Why is the sentence that says what was inconsistent: "the gateway
// answered status_code 100 but its payment_status is 0, not 1".
func (e *InconsistentError) Why() string {
	return fmt.Sprintf("the gateway answered status_code %d but %s", e.StatusCode, strings.Join(e.Reasons, "; "))
}

func (e *InconsistentError) Error() string {
	if isPayment(e.Endpoint) {
		return e.Endpoint + ": " + e.Why() + "; the outcome is unknown"
	}
	return e.Endpoint + ": " + e.Why()
}

// Is matches ErrOutcomeUnknown for a call that moves money.
func (e *InconsistentError) Is(target error) bool {
	return target == ErrOutcomeUnknown && isPayment(e.Endpoint)
}

// SuccessCheck is the one reading of a success answer, applied to every
// answer the client hands on: each money call's result (walletPay, refund,
// confirmPayment, payment/complete, and Client.Do on a path that moves
// money) and check status. It collects the disagreements field by field:
//
//	err := checkSuccess(EndpointWalletPay, 100).
//		Invoice(res.InvoiceID, sent.InvoiceID, false).
//		PaymentStatus(res.PaymentStatus, res.HasPaymentStatus, res.Error).
//		Err()
//
// A field the answer leaves out is held against it only where the method
// says so: some gateways omit payment_status and error_code.
type SuccessCheck struct {
	endpoint   string
	statusCode int
	orderNo    string
	reasons    []string
}

// checkSuccess starts the checks of an answer to endpoint that said code.
func checkSuccess(endpoint string, code int) *SuccessCheck {
	return &SuccessCheck{endpoint: endpoint, statusCode: code}
}

// add records a disagreement; only the first is kept: it says what is
// wrong, and a person fixes one thing at a time.
func (c *SuccessCheck) add(format string, args ...any) *SuccessCheck {
	if len(c.reasons) == 0 {
		c.reasons = append(c.reasons, fmt.Sprintf(format, args...))
	}
	return c
}

// Invoice requires the answer's invoice_id to be the one sent; required
// says whether an answer naming none is inconsistent too.
func (c *SuccessCheck) Invoice(got, sent string, required bool) *SuccessCheck {
	switch {
	case got == sent:
	case got == "":
		if required {
			c.add("it names no invoice_id")
		}
	default:
		c.add("it names invoice %s, not the one sent", shownValue(got))
	}
	return c
}

// Equal requires the answer's field to be exactly the identifier sent (an
// order id), present.
func (c *SuccessCheck) Equal(field, got, sent string) *SuccessCheck {
	switch {
	case got == sent:
	case got == "":
		c.add("it names no %s", field)
	default:
		c.add("its %s is %s, not the one sent (%s)", field, shownValue(got), shownValue(sent))
	}
	return c
}

// Order requires an order number (order_no or order_id), and keeps it for
// the error.
func (c *SuccessCheck) Order(orderNo, orderID string) *SuccessCheck {
	c.orderNo = cleanIdentifier(orderNo)
	if c.orderNo == "" {
		c.orderNo = cleanIdentifier(orderID)
	}
	if strings.TrimSpace(orderNo) == "" && strings.TrimSpace(orderID) == "" {
		c.add("it holds no order_no")
	}
	return c
}

// KeepOrder keeps an order number for the error without requiring one.
func (c *SuccessCheck) KeepOrder(orderNo string) *SuccessCheck {
	if c.orderNo == "" {
		c.orderNo = cleanIdentifier(orderNo)
	}
	return c
}

// PaymentStatus requires payment_status, when the answer has one, to be 1
// (paid); errText, the answer's own error text, is quoted beside it.
func (c *SuccessCheck) PaymentStatus(got int, present bool, errText string) *SuccessCheck {
	if present && got != 1 {
		c.add("its payment_status is %d, not 1%s", got, quotedText(errText))
	}
	return c
}

// ErrorCode requires error_code, when the answer has one (not 0), to be
// 100.
func (c *SuccessCheck) ErrorCode(got int, errText string) *SuccessCheck {
	if got != 0 && got != StatusSuccess {
		c.add("its error_code is %d, not 100%s", got, quotedText(errText))
	}
	return c
}

// State requires the answer's status field, when it has one, to name one
// of the states the call leads to (callStateOf): a capture answered
// "Failed", "Declined" or "Pre-Authorized", a cancellation answered
// "Completed", say what was not done.
func (c *SuccessCheck) State(field, got string, want ...SaleState) *SuccessCheck {
	if strings.TrimSpace(got) == "" || slices.Contains(want, callStateOf(got)) {
		return c
	}
	return c.add("its %s is %s", field, shownValue(got))
}

// callStateOf reads the status a money call's answer gives of what the
// call did: check status's words (SaleStateOf), and those only a call's
// own answer says (complete, captured, approved of a capture or a
// completion; cancel of a cancellation), never read from check status.
func callStateOf(status string) SaleState {
	switch letters(status) {
	case "complete", "captured", "approved":
		return SaleCompleted
	case "cancel":
		return SaleCancelled
	}
	return SaleStateOf(status)
}

// Err returns an *InconsistentError naming the disagreement, nil when
// there is none.
func (c *SuccessCheck) Err() error {
	if len(c.reasons) == 0 {
		return nil
	}
	return &InconsistentError{Endpoint: c.endpoint, StatusCode: c.statusCode, Reasons: c.reasons, OrderNo: c.orderNo}
}

// letters is s in lower case, letters only: how states are compared
// ("Pre-Authorized" and "preauthorized" are one state).
func letters(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z':
			return c
		case c >= 'A' && c <= 'Z':
			return c + 'a' - 'A'
		}
		return -1
	}, s)
}

// quotedText is " (\"text\")" for a non-empty gateway text, "" otherwise.
func quotedText(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return " (" + shownValue(s) + ")"
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
