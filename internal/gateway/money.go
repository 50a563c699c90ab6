package gateway

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// moneyPaths are the calls of the protocol that move money: a payment, a
// refund, the capture or cancellation of a pre-authorization, and the
// completion of a 3D payment (docs/protocol.md lists them). Keys are lower
// case: see MovesMoney.
var moneyPaths = [...]string{
	"/api/paysmart2d",
	"/api/paysmart3d",
	"/api/walletpay",
	"/api/paybycardtoken",
	"/api/paybycardtokennonsecure",
	"/api/refund",
	"/api/confirmpayment",
	"/payment/complete",
}

// MovesMoney reports whether a call to path (under the base URL, e.g.
// "/api/refund" or "api/refund?x=1") may move money. Such a call is never
// sent twice by one command: not retried after a failure, not repeated
// after HTTP 401, and a failure once it may have been sent is an unknown
// outcome.
//
// The test errs toward money, because the two mistakes differ in cost: a
// read taken for a payment only loses its retry, while a payment taken for
// a read could be charged twice. So the comparison ignores case, query,
// trailing slashes and dot segments, and any /api/ call whose last segment
// starts with "pay" or "refund" counts, whether or not the protocol
// documents it. Creating a payment link (/purchase/link) does not count: it
// moves no money until a buyer pays through the link, and the gateway
// refuses a second link for the same invoice.
func MovesMoney(p string) bool {
	p = normalPath(p)
	if slices.Contains(moneyPaths[:], p) {
		return true
	}
	dir, last := path.Split(p)
	return strings.HasPrefix(dir, "/api/") && (strings.HasPrefix(last, "pay") || strings.HasPrefix(last, "refund"))
}

// normalPath is the lower-case, cleaned form of a call's path, without
// query or fragment, starting with "/".
func normalPath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	return strings.ToLower(path.Clean("/" + p))
}

// movesMoney is MovesMoney for an endpoint of the client: the one notion
// that the retry loop, the 401 rule and the error classes all use.
func (ep endpoint) movesMoney() bool { return MovesMoney(ep.path) }

// retries reports whether a failed attempt at ep may be repeated: only
// when the endpoint allows it and it moves no money.
func (ep endpoint) retries() bool { return ep.retry && !ep.movesMoney() }

// isPayment reports whether the call an error names moves money, so that a
// failure after sending leaves its outcome unknown. Errors name a call by
// its endpoint name (walletPay) or, for Client.Do, by its path.
func isPayment(name string) bool {
	for _, ep := range knownEndpoints {
		if ep.name == name {
			return ep.movesMoney()
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
