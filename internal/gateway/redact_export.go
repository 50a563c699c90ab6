package gateway

import (
	"log/slog"
	"net/http"
	"time"
)

// RedactBody returns a request or response body fit for a log, as --debug
// shows the gateway's: secret fields (hash_key, credentials, tokens,
// bill_email, cvv) masked in JSON and form bodies alike, anything shaped
// like a card number cut to its first 6 and last 4 digits, and at most
// 16 KiB of it. Other HTTP logs in paycli (the webhook listener's) use it
// so that one set of rules decides what a log may show.
func RedactBody(body []byte) string { return loggedBody(body) }

// RedactHeader returns a header's values fit for a log.
func RedactHeader(name string, values []string) string { return redactHeader(name, values) }

// NewLoggingTransport wraps next so that each exchange is logged at debug
// level with RedactBody's rules, as the gateway client's own --debug log;
// now times the exchanges.
func NewLoggingTransport(next http.RoundTripper, logger *slog.Logger, now func() time.Time) http.RoundTripper {
	return &loggingTransport{next: next, logger: logger, now: now}
}
