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

// nextKey matches the start of a connection string's next key=value pair
// (" host=", "&sslmode=").
var nextKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\s&]+[A-Za-z_][A-Za-z0-9_]*\s*=`)
})

// firstKey matches a key=value connection string's first key, as pgx
// reads one: anything but white space and '=' (a quote excepted, which
// starts a text quoting one).
var firstKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*[^\s='"]+\s*=`)
})

// URL returns s with the userinfo of every URL in it replaced by Masked:
// "https://user:pass@gw.example/ccpayment" becomes
// "https://xxxxx@gw.example/ccpayment". The user name goes too: gateways
// that take basic auth in the URL treat it as half of a secret. A
// password or sslpassword parameter's value (in a URL's query or a
// key=value connection string) is masked as well, its key spelt in any
// case or percent-encoded ("pass%77ord"), as pgx decodes a URL's query
// keys. s may be a URL or a text that quotes URLs (an error message, a
// log line).
//
// A password may hold '/', '?', '#', '@' or a space its writer did not
// percent-encode: parsers then disagree on where it ends, and the host,
// path or fragment they find holds part of it. So the userinfo is taken
// as far as any of them could: to the last '@' of the URL, which ends at
// white space or a quote in a text, and at the end when s is one URL.
// A URL whose path or query holds an '@' loses its host from the display,
// never a secret.
func URL(s string) string {
	if strings.Contains(strings.ToLower(s), "password") || strings.Contains(s, "%") {
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

// connString tells how the parameters of s end: in a URL's query
// (urlString) at '&', in a key=value string (keyValueString) at white
// space a backslash does not escape, and in a text at either, a quote or
// '<' '>'.
type connString int

const (
	inText connString = iota
	urlString
	keyValueString
)

// maskPasswords masks the value of every password and sslpassword
// parameter. A quoted value ends at its closing quote; another ends where
// the next parameter starts ("&sslmode=", " host=") or, in a text, at
// white space or a quote; when s is one connection string (it starts with
// a key or a URL) a value runs on to the next parameter or the end, as a
// space the writer did not quote may be part of it.
func maskPasswords(s string) string {
	form := inText
	if loc := scheme().FindStringIndex(s); loc != nil && loc[0] == 0 {
		form = urlString
	} else if firstKey().MatchString(s) {
		form = keyValueString
	}
	var b strings.Builder
	for {
		start, ok := passwordValue(s)
		if !ok {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:start])
		b.WriteString(Masked)
		s = s[start+valueEnd(s[start:], form):]
	}
}

// passwordValue finds the first password or sslpassword parameter in s
// and returns where its value starts. A parameter's key runs back from its
// '=' (and the blanks before it) to white space, '?', '&', a quote or the
// start of s; it names the password when, its %XX decoded and its blanks
// trimmed, it reads "password" or "sslpassword" in any case. pgx decodes a
// URL's query keys and trims their spaces, so "pass%77ord" is a password;
// a longer key holding one of these characters decodes to another name.
func passwordValue(s string) (int, bool) {
	for from := 0; ; {
		eq := strings.IndexByte(s[from:], '=')
		if eq < 0 {
			return 0, false
		}
		eq += from
		from = eq + 1
		end := len(strings.TrimRightFunc(s[:eq], unicode.IsSpace))
		start := strings.LastIndexFunc(s[:end], endsKey) + 1
		if start > 0 && s[start-1] == '=' {
			continue // a value holding '=', not a key
		}
		key := strings.ToLower(strings.TrimFunc(percentDecoded(s[start:end]), unicode.IsSpace))
		if key == "password" || key == "sslpassword" {
			return len(s) - len(strings.TrimLeftFunc(s[eq+1:], unicode.IsSpace)), true
		}
	}
}

// endsKey: a parameter's key is preceded by white space, '?', '&', a
// quote, or '=' when it is no key.
func endsKey(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("?&\"'=", r) }

// percentDecoded decodes every valid %XX of s and leaves the rest as it
// is, as pgx reads a URL's query key (pgconn's uriDecode; an invalid
// escape fails there, and a key that fails names no password).
func percentDecoded(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, lo := unhex(s[i+1]), unhex(s[i+2]); hi >= 0 && lo >= 0 {
				b.WriteByte(byte(hi<<4 | lo))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unhex is the value of hex digit c, or -1.
func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// valueEnd is where the parameter value at the start of s ends.
func valueEnd(s string, form connString) int {
	if strings.HasPrefix(s, "'") { // libpq's quoting: \' and \\ escape
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '\'':
				// What runs on past the closing quote, up to where an
				// unquoted value would end, is the value's too: masked
				// now, it would be masked by the next pass (FuzzURL).
				return i + 1 + unquotedEnd(s[i+1:], form)
			}
		}
		return len(s)
	}
	return unquotedEnd(s, form)
}

// unquotedEnd is where an unquoted parameter value at the start of s
// ends. A backslash escapes the character after it, as libpq and pgx read
// a key=value string ("pass\ word"); in a URL, where it does not, the
// value is masked further than it runs, never less.
func unquotedEnd(s string, form connString) int {
	escaped := false
	for i, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case (r == '&' && form != keyValueString || unicode.IsSpace(r)) && nextKey().MatchString(s[i:]):
			return i
		case form == inText && (endsURL(r) || r == '&'):
			return i
		}
	}
	return len(s)
}
