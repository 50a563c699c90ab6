package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/paycli/paycli/internal/redact"
)

// checkJournalURL checks the journal key's value: a postgres:// URL as pgx
// reads it. Its refusals show the value masked (redact.URL, before it is
// shortened, so that the cut never leaves a password's tail unmasked) and
// never quote what a URL parser says, which may hold part of the password.
func checkJournalURL(value string) error {
	shown := fmt.Sprintf("%q", Shorten(redact.URL(value)))
	scheme, rest, ok := strings.Cut(value, "://")
	if !ok || (!strings.EqualFold(scheme, "postgres") && !strings.EqualFold(scheme, "postgresql")) {
		return fmt.Errorf("%s is not a postgres:// URL", shown)
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if unencoded(rest[:at]) {
			return fmt.Errorf("%s: its user name or password holds a character a URL takes only percent-encoded: "+
				"write each '/', '?', '#', '@', space, '%%' or non-ASCII letter as %%XX ('/' as %%2F, '@' as %%40, ' ' as %%20)", shown)
		}
	}
	if _, err := url.Parse(value); err != nil {
		return fmt.Errorf("%s is not a valid postgres:// URL: percent-encode any character its user name, password or database name holds that a URL reserves", shown)
	}
	return nil
}

// unencoded tells whether a URL's userinfo holds a character a URL holds
// only percent-encoded ('/', '?', '#', '@', a space, a letter outside
// ASCII, a '%' that starts no %XX…). Which ones is not said: that would
// tell something of the password.
func unencoded(userinfo string) bool {
	for i, r := range userinfo {
		ok := r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._:~!$&'()*+,;=", r))
		if r == '%' && i+2 < len(userinfo) && isHex(userinfo[i+1]) && isHex(userinfo[i+2]) {
			ok = true
		}
		if !ok {
			return true
		}
	}
	return false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
