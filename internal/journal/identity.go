package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/redact"
)

// SandboxPrefix starts the gateway identity of every sandbox account
// (sandboxmode.Identity); a live account's identity is plain hex. A line's
// identity alone thus says whether it was made against the sandbox, for
// any reader and for a shared journal's database, which refuses such
// lines.
const SandboxPrefix = "sandbox-"

// IsSandboxIdentity reports whether id names a sandbox account.
func IsSandboxIdentity(id string) bool { return strings.HasPrefix(id, SandboxPrefix) }

// Identity is the name paycli gave a gateway account before accounts were
// named by their merchant (AccountIdentity): a short hash of the base URL,
// in its canonical form (CanonicalURL), and the app_id. A rotated app_id
// changed it, so lines that carry it are read as the account of the app_id
// the run has (Scope.Alias, Entry.AppGateway). The keyring still names a
// profile's secrets by it.
func Identity(baseURL, appID string) string {
	sum := sha256.Sum256([]byte(CanonicalURL(baseURL) + "\n" + appID))
	return hex.EncodeToString(sum[:8])
}

// AccountIdentity names a gateway account without holding its secrets: a
// short hash of the base URL, in its canonical form, and the merchant_key,
// which names the merchant and survives a change of the API credentials
// (app_id, app_secret). It is the one name of an account: the invoice
// locks, resumed batches, the spool and every journal line go by it, so
// that two spellings of one gateway are one account, a desk that rotates
// its credentials keeps its history, and a profile pointed at another
// gateway (or one that merely shares a name) does not inherit it.
func AccountIdentity(baseURL, merchantKey string) string {
	sum := sha256.Sum256([]byte(CanonicalURL(baseURL) + "\nmerchant_key\n" + merchantKey))
	return hex.EncodeToString(sum[:8])
}

// AccountOf is the identity of the account a profile acts on: its
// merchant_key's (AccountIdentity) when it has one, else its app_id's
// (Identity).
func AccountOf(baseURL, appID, merchantKey string) string {
	if merchantKey == "" {
		return Identity(baseURL, appID)
	}
	return AccountIdentity(baseURL, merchantKey)
}

// AppAlias is the name an earlier paycli gave the account identity, acted
// on with appID at baseURL: Identity of the two, whose lines are the
// account's too (Scope.WithAlias, Entry.AppGateway); "" when identity is
// that name already or names the sandbox.
func AppAlias(identity, baseURL, appID string) string {
	alias := Identity(baseURL, appID)
	if IsSandboxIdentity(identity) || alias == identity {
		return ""
	}
	return alias
}

// CanonicalURL is how base URLs are compared: what does not change which
// server and path a request reaches is dropped or normalised. Scheme and
// host in lower case (a Unicode host label in its punycode form, a
// trailing dot dropped, an IPv6 address in its short form), the scheme's
// default port dropped (http 80, https 443), the path cleaned (dot
// segments, duplicate and trailing slashes; percent-encoding with the
// unreserved characters decoded and the others in upper-case hex); user
// info (which may be masked where it was stored), query and fragment
// removed. A text that is no URL with a host is only trimmed.
func CanonicalURL(raw string) string {
	// Userinfo first, the way it is masked where it is stored, so that a
	// password url.Parse would refuse still names the same gateway.
	raw = redact.URL(strings.TrimSpace(raw))
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return strings.TrimRight(raw, "/")
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := canonicalHost(u.Hostname()), u.Port()
	if port != "" {
		if port = strings.TrimLeft(port, "0"); port == "" {
			port = "0"
		}
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host + canonicalPath(u.EscapedPath())
}

// canonicalHost is a host name or address in one spelling.
func canonicalHost(h string) string {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String()
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	labels := strings.Split(h, ".")
	for i, l := range labels {
		if !isASCII(l) && utf8.ValidString(l) {
			labels[i] = "xn--" + punycode(l)
		}
	}
	return strings.Join(labels, ".")
}

// canonicalPath cleans an escaped path: escapes normalised (an unreserved
// character decoded, the hex of the others in upper case), then dot
// segments, duplicate and trailing slashes removed. An encoded slash
// (%2F) stays encoded: it is no separator. The root path is "".
func canonicalPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && i+2 < len(p) && ishex(p[i+1]) && ishex(p[i+2]) {
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteString("%" + strings.ToUpper(p[i+1:i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	clean := path.Clean("/" + b.String())
	if clean == "/" {
		return ""
	}
	return clean
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// punycode encodes a label as RFC 3492 does, for canonicalHost: a Unicode
// host and its xn-- spelling are one host.
func punycode(label string) string {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, points int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / points
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	runes := []rune(label)
	var out []byte
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	basic := len(out)
	h := basic
	if basic > 0 {
		out = append(out, '-')
	}
	n, delta, bias := initialN, 0, initialBias
	for h < len(runes) {
		m := int(^uint(0) >> 1)
		for _, r := range runes {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range runes {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := base; ; k += base {
				t := k - bias
				switch {
				case t < tmin:
					t = tmin
				case t > tmax:
					t = tmax
				}
				if q < t {
					break
				}
				out = append(out, digit(t+(q-t)%(base-t)))
				q = (q - t) / (base - t)
			}
			out = append(out, digit(q))
			bias = adapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return string(out)
}
