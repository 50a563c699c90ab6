// Package redact hides the secrets that can hide inside ordinary values
// before they are shown or stored: the user name and password of a URL
// ("https://user:pass@host/…") and card numbers (Cards, CardField).
// Everything that prints, logs or journals a URL the user configured or a
// text that may hold a card passes it through here first; this is the one
// card masker (the gateway's redaction, render and `paycli api` use it).
package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Masked replaces a URL's userinfo.
const Masked = "xxxxx"

// userinfo matches "scheme://userinfo@" anywhere in a text. The userinfo
// stops at the first character that cannot be part of it ('/', '?', '#',
// whitespace, quotes), so the '@' of a path or query is never taken for
// one. It is compiled on first use, not when paycli starts.
var userinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s@"'<>]*@`)
})

// queryPassword matches the value of a "password" or "sslpassword"
// parameter, where PostgreSQL connection strings may carry a password
// (libpq, pgx): a URL's query, or a "key=value key='value'" string.
var queryPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((?:^|[?&\s"'])(?:ssl)?password=)(?:'(?:[^'\\]|\\.)*'|[^&#\s"'<>]*)`)
})

// URL returns s with the userinfo of every URL in it replaced by Masked:
// "https://user:pass@gw.example/ccpayment" becomes
// "https://xxxxx@gw.example/ccpayment". The user name goes too: gateways
// that take basic auth in the URL treat it as half of a secret. A
// password or sslpassword parameter's value (in a URL's query or a
// key=value connection string) is masked as well. s may
// be a URL or a text that quotes URLs (an error message, a log line).
func URL(s string) string {
	if strings.Contains(strings.ToLower(s), "password=") {
		s = queryPassword().ReplaceAllString(s, "${1}"+Masked)
	}
	if !strings.Contains(s, "@") {
		return s // no userinfo, and nothing to compile
	}
	return userinfo().ReplaceAllString(s, "${1}"+Masked+"@")
}
