package gateway

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// MoneyCall is what a call does with money, as its path says and, for
// confirmPayment and payment/complete, the status its body asks for.
type MoneyCall string

// The calls that move money. A call paycli has an operation for is named
// after it: its name is the journal kind that operation records its
// attempts under, and that `paycli api` records the same call under, so
// that adding an operation names its call here and nowhere else. Any
// other payment (paySmart2D, paySmart3D, payByCardToken…) is MoneyPayment.
const (
	// NoMoney is a read.
	NoMoney             MoneyCall = ""
	MoneyWalletPay      MoneyCall = "walletpay"
	MoneyRefund         MoneyCall = "refund"
	MoneyCapture        MoneyCall = "preauth-capture"
	MoneyReleaseHold    MoneyCall = "preauth-cancel"
	MoneyComplete       MoneyCall = "complete"
	MoneyCompleteCancel MoneyCall = "complete-cancel"
	MoneyPayment        MoneyCall = "payment"
)

// MoneyCallOf says what a call to path (under the base URL, e.g.
// "/api/refund" or "api/refund?x=1") with body does with money: NoMoney
// for a read. A call that moves money is never sent twice by one command:
// not retried after a failure, not repeated after HTTP 401, and a failure
// once it may have been sent is an unknown outcome.
//
// A call is known by its operation's name, the path's last segment
// (callName), whatever comes before it: "/index.php/api/refund" and
// "/ccpayment/api/refund" are refunds as "/api/refund" is. The test errs
// toward money, because the two mistakes differ in cost: a read taken for
// a payment only loses its retry, while a payment taken for a read could
// be charged twice. So a name that starts with walletPay, refund,
// confirmPayment or complete counts, and so does any name that starts
// with pay under an api segment, documented or not. Creating a
// payment link (/purchase/link) does not count: it moves no money until a
// buyer pays through the link, and the gateway refuses a second link for
// the same invoice. A confirmPayment or payment/complete whose body asks
// for no cancellation is a capture or a completion: one that asks for
// nothing the gateway refuses, and one that asks for something else is
// read as the call that takes money.
func MoneyCallOf(path string, body []byte) MoneyCall {
	dir, name := callName(path)
	switch {
	case strings.HasPrefix(name, "walletpay"):
		return MoneyWalletPay
	case strings.HasPrefix(name, "refund"):
		return MoneyRefund
	case strings.HasPrefix(name, "confirmpayment"):
		if bodyStatus(body) == strconv.Itoa(int(ConfirmCancel)) {
			return MoneyReleaseHold
		}
		return MoneyCapture
	case strings.HasPrefix(name, "complete"):
		if strings.EqualFold(bodyStatus(body), CompleteStatusCancel) {
			return MoneyCompleteCancel
		}
		return MoneyComplete
	case strings.HasPrefix(name, "pay") && strings.Contains(dir, "/api/"):
		return MoneyPayment
	}
	return NoMoney
}

// GuardedCommand names the paycli command a call to path must go through,
// with the journal and the invoice's rule, which a raw call skips: "link
// create" for /purchase/link (it takes an invoice), "cards delete" for
// deleteCard (the desk records who deleted a customer's card, and why);
// "" for any other path. Paths are read as MoneyCallOf reads them.
func GuardedCommand(path string) string {
	dir, name := callName(path)
	switch {
	case name == "link" && strings.HasSuffix(dir, "/purchase/"):
		return "link create"
	case strings.HasPrefix(name, "deletecard"):
		return "cards delete"
	}
	return ""
}

// MovesMoney reports whether a call to path may move money (MoneyCallOf).
func MovesMoney(path string) bool { return MoneyCallOf(path, nil) != NoMoney }

// callName is the name of the operation a call's path makes, as a server
// would route it, and the folder it is in: the last segment of the path
// without query or fragment, percent-decoded until nothing changes (an
// encoded slash or dot, decoded twice by some servers), with backslashes
// read as slashes, dot segments and repeated slashes resolved, a
// segment's ";" parameters dropped, in lower case.
// "/index.php/API//x/..%2Frefund;v=1" is "refund" in "/index.php/api/".
func callName(p string) (dir, name string) {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	for range 4 {
		u, err := url.PathUnescape(p)
		if err != nil || u == p {
			break
		}
		p = u
	}
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	dir, name = path.Split(path.Clean("/" + p))
	if i := strings.IndexByte(name, ';'); i >= 0 {
		name = name[:i]
	}
	return dir, strings.TrimSpace(name)
}

// bodyStatus is the "status" field of a JSON body, as text ("2",
// "cancel"); "" when there is none.
func bodyStatus(body []byte) string {
	o, err := ParseObject(body)
	if err != nil {
		return ""
	}
	v, _, _ := o.Text("status")
	return strings.TrimSpace(v)
}

// movesMoney is MovesMoney for an endpoint of the client: the one notion
// that the retry loop, the 401 rule and the error classes all use.
func (ep endpoint) movesMoney() bool { return MovesMoney(ep.path) }

// sentOnce reports whether ep is never sent twice by one command, and a
// failure once it may have been sent leaves its outcome unknown: a call
// that moves money, and one that takes an invoice without moving money (a
// payment link: endpoint.once).
func (ep endpoint) sentOnce() bool { return ep.movesMoney() || ep.once }

// retries reports whether a failed attempt at ep may be repeated: only
// when the endpoint allows it and it is not sent once (sentOnce).
func (ep endpoint) retries() bool { return ep.retry && !ep.sentOnce() }

// isPayment reports whether the call an error names moves money, so that a
// failure after sending leaves its outcome unknown. Errors name a call by
// its endpoint name (walletPay) or, for Client.Do, by its path.
func isPayment(name string) bool {
	for _, ep := range knownEndpoints {
		if ep.name == name {
			return ep.sentOnce()
		}
	}
	return strings.HasPrefix(name, "/") && MovesMoney(name)
}

// TokenRefusedError is an HTTP 401 to a call that moves money. The gateway
// refused the bearer token, so it processed nothing; the client renewed the
// token (when it could) but did not repeat the call, because a repeat of a
// payment that did go through despite the 401 (a proxy, a gateway fault)
// would be answered "already processed" and read as "charged nothing". The
// command should be run again. It matches ErrUnauthorized and *APIError.
type TokenRefusedError struct {
	// Err is the 401 answer.
	Err *APIError
	// RenewErr is why no new token could be fetched, nil when one was.
	RenewErr error
}

func (e *TokenRefusedError) Error() string {
	msg := e.Err.Error() + ": the gateway refused the token and processed nothing; " +
		"paycli does not repeat a call that moves money"
	if e.RenewErr != nil {
		return msg + fmt.Sprintf(", and a new token could not be fetched (%v)", e.RenewErr)
	}
	return msg + "; a new token was fetched: run the command again"
}

// Unwrap exposes the 401 answer (and through it ErrUnauthorized).
func (e *TokenRefusedError) Unwrap() error { return e.Err }
