// Package gateway is paycli's client for a ccpayment card gateway: the
// token call, commission lookups, walletPay, checkstatus, refunds,
// pre-authorization capture and cancellation (confirmPayment), 3D
// completion (payment/complete), card installment lookups (getpos,
// installments) and any other call (Do, for `paycli api`). Every command
// that talks to the gateway goes through it, and this is where payment
// safety lives.
//
// The contract:
//
//   - The client owns the protocol: it holds the profile's app_id,
//     app_secret and merchant_key (Credentials) and is the one place that
//     puts them in a request or makes a hash_key. Each request type is a
//     Call that signs itself when encoded, so that a call sent and the same
//     call shown by DryRun are one request. A call that needs the
//     merchant_key is refused before anything is sent when there is none
//     (ErrNoMerchantKey).
//   - Every success answer to a call that moves money goes through one
//     success check (SuccessCheck): fields that contradict the answer or
//     the request make it an *InconsistentError, an unknown outcome.
//     CheckStatus, the one look-up of an invoice, refuses an answer about
//     another invoice.
//   - Every answer is scrubbed of the secrets its request carried before
//     anything reads it, so that a gateway echoing the request never hands
//     a secret on.
//   - Every call takes a context first and honours its cancellation and
//     deadline, including while waiting to retry. The package never prints;
//     with a logger (WithLogger) it logs each request and response at debug
//     level, secrets redacted.
//   - Calls that move money are named in one place, MoneyCallOf (and
//     MovesMoney): walletPay, refund, confirmPayment, payment/complete and
//     the other payments, known by their operation's name whatever the
//     path's prefix, case or encoding. Such a call is sent at most once by
//     one command, on any error.
//   - Only the token call and the lookups (commissions, getpos,
//     installments) are retried, because only they are safe to repeat: on
//     connection errors and HTTP 502/503/504, up to three attempts in all,
//     with capped exponential backoff and jitter, honouring Retry-After.
//   - A call that moves money is NEVER retried. Once its request may have
//     left the machine (a connection to the gateway was obtained), a failure
//     to get a complete response is ErrOutcomeUnknown: the money may or may
//     not have moved, and only checkstatus can tell. A 5xx or an unreadable
//     response to it is ErrOutcomeUnknown too, and so is a success answer
//     whose own fields disagree with the request (*InconsistentError).
//     checkstatus is read-only and could be retried in principle, but it is
//     how a person reconciles an unknown outcome, so it reports failures at
//     once instead of spending their time limit on retries.
//   - HTTP 401 means the gateway processed nothing. For a read the client
//     fetches a new token once and repeats the call once. For a call that
//     moves money it fetches a new token (so that the next run works) but
//     does not repeat the call: the error, a *TokenRefusedError matching
//     ErrUnauthorized, says to run the command again. A repeat could meet a
//     payment that did go through despite the 401 and be answered "already
//     processed", which would read as "charged nothing".
//   - Tokens are reused until five minutes before they expire (the earlier of
//     the response's expires_at and the JWT's exp), from memory and from a
//     TokenCache shared between processes (FileTokenCache).
//   - Errors are typed: *APIError for any response that is not a success,
//     *RequestError for a request that got no complete response, both usable
//     with errors.Is against the sentinels below (ErrUnauthorized,
//     ErrDuplicateInvoice, ErrDeclined, ErrPending, ErrOutcomeUnknown,
//     ErrUnavailable, ErrNoData, ErrNotFound, ErrRefundIDUsed,
//     ErrInvalidRequest) and against context.Canceled and
//     context.DeadlineExceeded. Error strings never contain a response body,
//     a secret or a card number.
//   - Response bodies are read through a size limit. A body that is not the
//     protocol's JSON (an HTML error page, truncated JSON) is an *APIError
//     naming the endpoint and the HTTP status.
//   - A base URL must be https, or http to a loopback host; anything else is
//     refused by New before a request exists.
package gateway
