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
	"unicode"
)

// Masked replaces a URL's userinfo.
const Masked = "xxxxx"

// scheme matches the "scheme://" that starts a URL.
var scheme = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://`)
})

// passwordKey matches where the value of a "password" or "sslpassword"
// parameter starts, where PostgreSQL connection strings may carry a
// password (libpq, pgx): a URL's query, or a "key=value key='value'"
// string.
var passwordKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[?&\s"'])(?:ssl)?password\s*=\s*`)
})

// nextKey matches the start of a connection string's next key=value pair
// (" host=", "&sslmode=").
var nextKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\s&]+[A-Za-z_][A-Za-z0-9_]*\s*=`)
})

// firstKey matches a key=value connection string's first key.
var firstKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*\s*=`)
})

// URL returns s with the userinfo of every URL in it replaced by Masked:
// "https://user:pass@gw.example/ccpayment" becomes
// "https://xxxxx@gw.example/ccpayment". The user name goes too: gateways
// that take basic auth in the URL treat it as half of a secret. A
// password or sslpassword parameter's value (in a URL's query or a
// key=value connection string) is masked as well. s may be a URL or a
// text that quotes URLs (an error message, a log line).
//
// A password may hold '/', '?', '#', '@' or a space its writer did not
// percent-encode: parsers then disagree on where it ends, and the host,
// path or fragment they find holds part of it. So the userinfo is taken
// as far as any of them could: to the last '@' of the URL, which ends at
// white space or a quote in a text, and at the end when s is one URL.
// A URL whose path or query holds an '@' loses its host from the display,
// never a secret.
func URL(s string) string {
	if strings.Contains(strings.ToLower(s), "password") {
		s = maskPasswords(s)
	}
	if !strings.Contains(s, "@") {
		return s // no userinfo, and nothing to compile
	}
	return maskUserinfo(s)
}

// maskUserinfo masks what lies between each "scheme://" and the last '@'
// of its URL.
func maskUserinfo(s string) string {
	var b strings.Builder
	whole := isOneURL(s)
	for {
		loc := scheme().FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:loc[1]])
		rest := s[loc[1]:]
		end := len(rest)
		if !whole {
			end = strings.IndexFunc(rest, endsURL)
			if end < 0 {
				end = len(rest)
			}
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			b.WriteString(Masked)
			rest = rest[at:]
			end -= at
		}
		// The next URL may start within this one (a URL in a query).
		if next := scheme().FindStringIndex(rest[:end]); next != nil && next[0] > 0 {
			end = next[0]
		}
		b.WriteString(rest[:end])
		s = rest[end:]
	}
}

// isOneURL tells whether s is a single URL, as a configured value is:
// then white space and quotes are the password's, not the URL's end.
func isOneURL(s string) bool {
	loc := scheme().FindStringIndex(s)
	if loc == nil || loc[0] != 0 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at >= 0 && !strings.ContainsFunc(s[at:], endsURL)
}

// endsURL: a URL quoted in a text ends at white space, a quote or '<'
// '>'.
func endsURL(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'<>`", r)
}

// maskPasswords masks the value of every password and sslpassword
// parameter. A quoted value ends at its closing quote; another ends where
// the next parameter starts ("&sslmode=", " host=") or, in a text, at
// white space or a quote; when s is one connection string (it starts with
// a key or a URL) a value runs on to the next parameter or the end, as a
// space the writer did not quote may be part of it.
func maskPasswords(s string) string {
	loc := scheme().FindStringIndex(s)
	whole := loc != nil && loc[0] == 0 || firstKey().MatchString(s)
	var b strings.Builder
	for {
		loc := passwordKey().FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:loc[1]])
		rest := s[loc[1]:]
		b.WriteString(Masked)
		s = rest[valueEnd(rest, whole):]
	}
}

// valueEnd is where the parameter value at the start of s ends.
func valueEnd(s string, whole bool) int {
	if strings.HasPrefix(s, "'") { // libpq's quoting: \' and \\ escape
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '\'':
				// What runs on past the closing quote, up to where an
				// unquoted value would end, is the value's too: masked
				// now, it would be masked by the next pass (FuzzURL).
				return i + 1 + unquotedEnd(s[i+1:], whole)
			}
		}
		return len(s)
	}
	return unquotedEnd(s, whole)
}

// unquotedEnd is where an unquoted parameter value at the start of s ends.
func unquotedEnd(s string, whole bool) int {
	for i, r := range s {
		if (r == '&' || unicode.IsSpace(r)) && nextKey().MatchString(s[i:]) {
			return i
		}
		if !whole && (endsURL(r) || r == '&') {
			return i
		}
	}
	return len(s)
}
