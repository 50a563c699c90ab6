package gateway

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/paycli/paycli/internal/redact"
)

// Sentinels for errors.Is. *APIError and *RequestError match at most one of
// them; an error that matches none is a rejection (exit 4 in paycli).
var (
	// ErrUnauthorized: HTTP 401, or status_code 30 (invalid credentials).
	ErrUnauthorized = errors.New("authentication failed")
	// ErrDuplicateInvoice: status_code 3 or 117, the invoice was already
	// processed or is in flight; this call charged nothing.
	ErrDuplicateInvoice = errors.New("duplicate invoice")
	// ErrDeclined: status_code 41 (payment failed), 44 (card blocked) or 60
	// (card not allowed).
	ErrDeclined = errors.New("payment declined")
	// ErrPending: status_code 69, the order is not yet processed.
	ErrPending = errors.New("payment not yet processed")
	// ErrOutcomeUnknown: a call that moves money (MovesMoney) whose request
	// may have reached the gateway but whose response never arrived
	// complete and readable, or whose success answer contradicts itself
	// (*InconsistentError).
	ErrOutcomeUnknown = errors.New("outcome unknown")
	// ErrUnavailable: the gateway could not be reached or did not answer in
	// protocol (connection refused, DNS, timeouts, 5xx, unreadable bodies)
	// on a call that is safe to repeat.
	ErrUnavailable = errors.New("gateway unavailable")
	// ErrUnreadable: the gateway answered a call that moves no money with a
	// success whose data paycli could not read; it is not unreachable.
	ErrUnreadable = errors.New("the answer could not be read")
	// ErrNoData: status_code 0 saying that nothing was found ("No Data
	// Found"), a lookup that found nothing. A status_code 0 that says
	// something else ("Invalid currency code.") is a plain rejection.
	ErrNoData = errors.New("no data found")
	// ErrNotFound: status_code 31, no such transaction.
	ErrNotFound = errors.New("transaction not found")
	// ErrRefundIDUsed: status_code 104, the refund_transaction_id was used
	// before: this call refunded nothing, and the refund it names was made
	// (or requested) earlier.
	ErrRefundIDUsed = errors.New("refund_transaction_id already used")
	// ErrInvalidRequest: the client refused to send a request whose fields
	// cannot be right (an empty invoice id, an amount that is not a plain
	// decimal, more than six digits of a card). Nothing was sent.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrNoMerchantKey: the client has no merchant_key, and the call signs
	// with it (Client.RequireMerchantKey). Nothing was sent.
	ErrNoMerchantKey = errors.New("no merchant_key to sign the request with")
	// ErrInvalidBaseURL: the base URL is not usable (not http(s), or plain
	// http to a host that is not loopback). Nothing was sent.
	ErrInvalidBaseURL = errors.New("invalid base URL")
)

// Status codes of the protocol that the client itself needs.
const (
	StatusSuccess            = 100
	StatusNoData             = 0
	StatusInvalidCredentials = 30
	StatusNotFound           = 31
	// StatusRefundFailed: more than the refundable amount, no such sale,
	// not refundable in its state, or too soon after the previous refund.
	StatusRefundFailed = 49
	// StatusRefundQueued: the refund request was created and waits for the
	// gateway team's approval; a known outcome (RefundResult.Queued).
	StatusRefundQueued = 101
	// StatusRefundIDUsed: the refund_transaction_id was used before.
	StatusRefundIDUsed = 104
	// StatusPartialRefundNotAllowed: the merchant may only refund a sale
	// in full.
	StatusPartialRefundNotAllowed = 110
)

// EndpointWalletPay is the Endpoint of the errors of the walletPay request
// itself; an error of a WalletPay call with another Endpoint ("token")
// failed before walletPay was sent.
const EndpointWalletPay = "walletPay"

// Endpoint names of the other calls that move money, as APIError.Endpoint,
// RequestError.Endpoint and InconsistentError.Endpoint show them.
const (
	EndpointRefund          = "refund"
	EndpointConfirmPayment  = "confirmPayment"
	EndpointCompletePayment = "payment/complete"
)

// sentinelFor returns the sentinel for a body status_code and its
// description, nil for a plain rejection.
func sentinelFor(code int, description string) error {
	switch code {
	case StatusInvalidCredentials:
		return ErrUnauthorized
	case 3, 117:
		return ErrDuplicateInvoice
	case 41, 44, 60:
		return ErrDeclined
	case 69:
		return ErrPending
	case StatusNoData:
		if saysNoData(description) {
			return ErrNoData
		}
		return nil
	case StatusNotFound:
		return ErrNotFound
	case StatusRefundIDUsed:
		return ErrRefundIDUsed
	}
	return nil
}

// APIError is a response that is not a success: a status_code other than
// 100, an HTTP error status, or a body that is not the protocol's JSON.
type APIError struct {
	// Endpoint is the call's name: token, commissions, walletPay, checkstatus.
	Endpoint string
	// HTTPStatus is the response's HTTP status code.
	HTTPStatus int
	// StatusCode is the body's status_code when HasStatusCode is true.
	StatusCode    int
	HasStatusCode bool
	// Description is the gateway's status_description (or message), on one
	// line, shortened, with anything that looks like a card number masked.
	Description string
	// Problem says what was wrong with a body that could not be read as the
	// protocol ("the body is not JSON (text/html)"); empty otherwise.
	Problem string
	// OrderNo, PaymentReasonCode and PaymentReasonCodeDetail come from the
	// data object of a walletPay answer that is not a success (a decline
	// names its reason there), cleaned like Description; empty otherwise.
	OrderNo                 string
	PaymentReasonCode       string
	PaymentReasonCodeDetail string
	// OriginalBankErrorCode and OriginalBankErrorDescription are the bank's
	// own code and words for a refusal, when the answer (its data object,
	// or its top level) carries them, cleaned like Description.
	OriginalBankErrorCode        string
	OriginalBankErrorDescription string
	// DataErr is why the data of a success answer could not be read into
	// the call's result (the result type's own error); nil otherwise.
	DataErr error
	// RetryAfter is the answer's Retry-After (0 when it has none): how
	// long a listing refused by the 2-second rule waits (RateLimitWait).
	RetryAfter time.Duration
}

// Error says which call failed and how, never quoting the body.
func (e *APIError) Error() string { return e.Endpoint + ": " + e.Answer() }

// Answer says what the gateway answered, without naming the call: the
// status_code and description, or the HTTP status and what is wrong with
// the body ("HTTP 200 OK: the body is not JSON (text/html)"). It never
// quotes the body.
func (e *APIError) Answer() string {
	var b strings.Builder
	switch {
	case e.HasStatusCode:
		fmt.Fprintf(&b, "status_code %d", e.StatusCode)
		if e.Description != "" {
			fmt.Fprintf(&b, " %q", e.Description)
		}
		if e.HTTPStatus != http.StatusOK {
			fmt.Fprintf(&b, " (HTTP %d)", e.HTTPStatus)
		}
	default:
		fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
		if t := http.StatusText(e.HTTPStatus); t != "" {
			b.WriteString(" " + t)
		}
		if e.Description != "" {
			fmt.Fprintf(&b, " %q", e.Description)
		}
	}
	if e.Problem != "" {
		b.WriteString(": " + e.Problem)
	}
	return b.String()
}

// Is matches the error's sentinel (see Sentinel).
func (e *APIError) Is(target error) bool {
	k := e.Sentinel()
	return k != nil && target == k
}

// Sentinel returns the sentinel the error matches, nil for a plain rejection.
// It follows from the fields: HTTP 401 is unauthorized; a 5xx, or a
// success status whose body could not be read, is unavailable — or, for
// walletPay, an unknown outcome, and for a lookup whose data (not its
// envelope) could not be read, unreadable; HTTP 429 is unavailable except for
// walletPay (nothing was processed: a rejection); otherwise the body's
// status_code decides.
func (e *APIError) Sentinel() error {
	success := e.HTTPStatus >= 200 && e.HTTPStatus <= 299
	switch {
	case e.HTTPStatus == http.StatusUnauthorized:
		return ErrUnauthorized
	case serverFailed(e.HTTPStatus) || success && e.Problem != "":
		if isPayment(e.Endpoint) {
			return ErrOutcomeUnknown
		}
		if success && e.DataErr != nil {
			// The gateway answered, with a success it wrote its own way:
			// reachable, and asking again reads the same.
			return ErrUnreadable
		}
		return ErrUnavailable
	case e.HTTPStatus == http.StatusTooManyRequests:
		if isPayment(e.Endpoint) {
			return nil
		}
		return ErrUnavailable
	case e.HasStatusCode:
		return sentinelFor(e.StatusCode, e.Description)
	}
	return nil
}

// serverFailed reports whether an HTTP status says the server failed
// (5xx): to a call that moves money, such an answer leaves its outcome
// unknown, whoever reads it (Sentinel, Client.Do).
func serverFailed(httpStatus int) bool { return httpStatus >= 500 }

// saysNoData reports whether a status_code 0 answer's description says
// that nothing was found (or says nothing): the gateway also answers 0 for
// refusals ("Invalid currency code."), which must not read as an empty
// result.
func saysNoData(description string) bool {
	d := strings.ToLower(strings.TrimSpace(description))
	return d == "" || strings.Contains(d, "no data") || strings.Contains(d, "not found") || strings.Contains(d, "bulunamad")
}

// RequestError is a call that got no complete response: the connection
// failed, timed out, was cut mid-body, or the context ended.
type RequestError struct {
	Endpoint string
	// Sent reports whether the request may have reached the gateway.
	Sent bool
	// Err is the cause; context.Canceled or context.DeadlineExceeded when
	// the context ended.
	Err error
}

// Sentinel returns the sentinel the error matches: ErrOutcomeUnknown for a
// call that moves money and may have been sent, nil for an interruption (the cause is
// context.Canceled), ErrUnavailable otherwise.
func (e *RequestError) Sentinel() error {
	switch {
	case isPayment(e.Endpoint) && e.Sent:
		return ErrOutcomeUnknown
	case errors.Is(e.Err, context.Canceled):
		return nil
	}
	return ErrUnavailable
}

func (e *RequestError) Error() string {
	sentinel := e.Sentinel()
	var what string
	switch {
	case sentinel == ErrOutcomeUnknown:
		what = "the request was sent but no complete response arrived"
	case errors.Is(e.Err, context.Canceled):
		what = "interrupted"
	case errors.Is(e.Err, context.DeadlineExceeded):
		what = "the time limit ran out"
	default:
		what = "cannot reach the gateway"
	}
	if tlsWhat, ok := describeCertificateError(e.Err); ok && sentinel != ErrOutcomeUnknown {
		return fmt.Sprintf("%s: %s", e.Endpoint, tlsWhat)
	}
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		if sentinel == ErrOutcomeUnknown {
			return fmt.Sprintf("%s: %s (%v)", e.Endpoint, what, e.Err)
		}
		return fmt.Sprintf("%s: %s", e.Endpoint, what)
	}
	return fmt.Sprintf("%s: %s: %v", e.Endpoint, what, e.Err)
}

// Unwrap exposes both the sentinel and the cause to errors.Is.
func (e *RequestError) Unwrap() []error {
	if k := e.Sentinel(); k != nil {
		return []error{k, e.Err}
	}
	return []error{e.Err}
}

// describeCertificateError says what is wrong with a gateway certificate
// that failed verification, and what to do about it; ok is false for other
// errors. Verification is never turned off, so the advice is ca_cert (for
// a private CA) or base_url (for a certificate of another host).
func describeCertificateError(err error) (what string, ok bool) {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &unknown):
		return fmt.Sprintf("the gateway's TLS certificate is not signed by a trusted authority (%v); "+
			"if the gateway uses a private CA, set ca_cert to that CA's PEM file", err), true
	case errors.As(err, &hostname):
		return fmt.Sprintf("the gateway's TLS certificate is not valid for %s (%v); check base_url", hostname.Host, err), true
	case errors.As(err, &invalid):
		return fmt.Sprintf("the gateway's TLS certificate is not valid (%v); check the gateway's certificate and this machine's clock", err), true
	}
	return "", false
}

// cleanDescription makes a gateway text safe and short for an error line.
func cleanDescription(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	s = redact.Cards(s)
	const max = 200
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// cleanIdentifier makes an identifier from a response safe for an error
// line: printable, without spaces, at most 64 characters; anything else is
// dropped entirely.
func cleanIdentifier(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 64 || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return ""
	}
	return s
}

// RefusalText is why the client refused to send a request (an
// ErrInvalidRequest), without the "invalid request: " it starts with: the
// text a command puts after the name of its own flag.
func RefusalText(err error) string {
	return strings.TrimPrefix(err.Error(), ErrInvalidRequest.Error()+": ")
}
