package journal

import (
	"fmt"
	"strings"
	"testing"
)

// TestCanonicalURL: the spellings of one gateway that the issue found as
// two accounts, and the others a URL allows, are one.
func TestCanonicalURL(t *testing.T) {
	for want, spellings := range map[string][]string{
		"http://127.0.0.1/ccpayment": {
			"http://127.0.0.1/ccpayment", "http://127.0.0.1:80/ccpayment", "HTTP://127.0.0.1:080/ccpayment/",
			"http://127.0.0.1//ccpayment", "http://127.0.0.1/./ccpayment", "http://127.0.0.1/x/../ccpayment",
			"http://127.0.0.1/%63cpayment", "http://user:pass@127.0.0.1/ccpayment?a=1#frag", " http://127.0.0.1/ccpayment/// ",
		},
		"https://app.sipay.com.tr/ccpayment": {
			"https://APP.Sipay.com.tr:443/ccpayment", "https://app.sipay.com.tr./ccpayment", "https://u:p@app.sipay.com.tr/ccpayment/",
		},
		"http://[::1]:8080": {"http://[::1]:8080", "http://[0:0:0:0:0:0:0:1]:8080/", "http://[::0001]:8080/."},
		"https://xn--bcher-kva.example/p%2Fq%C3%BC": {
			"https://bücher.example/p%2fq%c3%bc", "https://XN--BCHER-KVA.example/p%2Fq%C3%BC/", "https://Bücher.example/p%2Fq%c3%bc",
		},
	} {
		for _, s := range spellings {
			if got := CanonicalURL(s); got != want {
				t.Errorf("CanonicalURL(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for _, pair := range [][2]string{
		{"http://127.0.0.1/ccpayment", "https://127.0.0.1/ccpayment"},
		{"http://127.0.0.1/ccpayment", "http://127.0.0.1:81/ccpayment"},
		{"http://127.0.0.1/ccpayment", "http://127.0.0.2/ccpayment"},
		{"http://127.0.0.1/ccpayment", "http://127.0.0.1/ccpayment2"},
		{"http://127.0.0.1/a%2Fb", "http://127.0.0.1/a/b"},
		{"https://h:443/x", "http://h:443/x"},
	} {
		if Identity(pair[0], "app") == Identity(pair[1], "app") {
			t.Errorf("%s and %s are one identity", pair[0], pair[1])
		}
	}
	if Identity("http://h/x", "app1") == Identity("http://h/x", "app2") {
		t.Error("two app_ids are one identity")
	}
}

// account is a gateway account a fuzz input names, built only of parts
// whose canonical spelling is known.
type account struct {
	https bool
	host  string
	port  uint16
	segs  []string
	app   string
}

// canonical is the account's canonical base URL, by construction.
func (a account) canonical() string {
	s := "http://"
	if a.https {
		s = "https://"
	}
	s += a.host
	if a.port != 0 && !(a.https && a.port == 443) && !(!a.https && a.port == 80) {
		s += fmt.Sprint(":", a.port)
	}
	for _, g := range a.segs {
		s += "/" + g
	}
	return s
}

// spell writes the account in one of the spellings flags choose.
func (a account) spell(flags uint16) string {
	bit := func(i int) bool { return flags&(1<<i) != 0 }
	s := "http"
	if a.https {
		s = "https"
	}
	if bit(0) {
		s = strings.ToUpper(s)
	}
	s += "://"
	if bit(1) {
		s += "user:p%40ss@"
	}
	host := a.host
	if bit(2) {
		host = strings.ToUpper(host)
	}
	if bit(3) {
		host += "."
	}
	s += host
	switch {
	case a.port != 0:
		if bit(4) {
			s += fmt.Sprint(":0", a.port)
		} else {
			s += fmt.Sprint(":", a.port)
		}
	case bit(5) && a.https:
		s += ":443"
	case bit(5):
		s += ":80"
	}
	for i, g := range a.segs {
		if bit(6) {
			s += "/"
		}
		if bit(7) && i == 0 {
			s += "/./x/.."
		}
		if bit(8) && g != "" {
			g = fmt.Sprintf("%%%x", g[0]) + g[1:]
		} else if bit(9) && g != "" {
			g = fmt.Sprintf("%%%X", g[0]) + g[1:]
		}
		s += "/" + g
	}
	if bit(10) {
		s += "/"
	}
	if bit(11) {
		s += "?x=1"
	}
	if bit(12) {
		s += "#f"
	}
	return s
}

// fuzzAccount builds an account from fuzz input, its parts cut to a safe
// alphabet (lower-case letters, digits and '-' in host and path).
func fuzzAccount(https bool, host string, port uint16, path, app string) (account, bool) {
	keep := func(s string) string {
		return strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' {
				return r
			}
			return -1
		}, s)
	}
	a := account{https: https, host: keep(host), port: port, app: app}
	if a.host == "" || strings.Trim(a.host, "0123456789") == "" {
		return a, false // no host, or a number a URL reads as an address
	}
	for _, g := range strings.Split(path, "/") {
		if g = keep(g); g != "" {
			a.segs = append(a.segs, g)
		}
	}
	return a, true
}

// FuzzIdentity: every spelling of an account is one identity, and
// accounts that differ in host, port, path or app_id never are.
func FuzzIdentity(f *testing.F) {
	f.Add(false, "localhost", uint16(0), "ccpayment", "app", uint16(0), "other", uint16(81))
	f.Add(true, "app-sipay-com", uint16(443), "api/v2", "x", uint16(0xffff), "api", uint16(8443))
	f.Fuzz(func(t *testing.T, https bool, host string, port uint16, path, app string, flags uint16, other string, otherPort uint16) {
		a, ok := fuzzAccount(https, host, port, path, app)
		if !ok {
			return
		}
		id := Identity(a.canonical(), app)
		spelled := a.spell(flags)
		if got := Identity(spelled, app); got != id {
			t.Fatalf("%q: identity %s, want that of %q (%s): canonical %q", spelled, got, a.canonical(), id, CanonicalURL(spelled))
		}
		b, ok := fuzzAccount(https, other, otherPort, path+"/"+other, app+"!")
		if !ok {
			return
		}
		for _, c := range []account{
			{https: a.https, host: b.host, port: a.port, segs: a.segs},
			{https: a.https, host: a.host, port: b.port, segs: a.segs},
			{https: a.https, host: a.host, port: a.port, segs: b.segs},
		} {
			if c.canonical() == a.canonical() {
				continue
			}
			if Identity(c.spell(flags), app) == id {
				t.Fatalf("%q and %q are one identity", c.spell(flags), spelled)
			}
		}
		if Identity(spelled, b.app) == id {
			t.Fatalf("app_ids %q and %q are one identity", app, b.app)
		}
	})
}

// TestSandboxIdentity: a live identity is plain hex, never taken for the
// sandbox's; a sandbox's carries the prefix.
func TestSandboxIdentity(t *testing.T) {
	live := Identity("http://127.0.0.1/ccpayment", "app")
	if IsSandboxIdentity(live) || strings.Trim(live, "0123456789abcdef") != "" {
		t.Errorf("live identity %q", live)
	}
	if !IsSandboxIdentity(SandboxPrefix+live) || !(Entry{Gateway: SandboxPrefix + "x"}).MadeInSandbox("") {
		t.Error("a sandbox identity is not taken for one")
	}
	if !(Entry{Gateway: live}).MadeInSandbox(SandboxPrefix+live) || (Entry{Gateway: live}).MadeInSandbox(SandboxPrefix+"other") {
		t.Error("a line of the sandbox's identity before the prefix is not read as such")
	}
}

// TestStoryGoesOnAcrossTheAccountsNewName: a refund of unknown outcome
// written by an earlier paycli (the app_id's identity) and its re-send
// under the merchant's account, which the gateway made: one story, told.
func TestStoryGoesOnAcrossTheAccountsNewName(t *testing.T) {
	const base = "https://gw.example/ccpayment"
	old, account := Identity(base, "app"), AccountIdentity(base, "mk")
	code := 100
	first := Attempt{Intent: Entry{Type: TypeIntent, Kind: "refund", Gateway: old, Attempt: "a1", Invoice: "INV", Ref: "RF-1"}}
	resend := Attempt{
		Intent:  Entry{Type: TypeIntent, Kind: "refund", Gateway: account, AppGateway: old, Attempt: "a2", Invoice: "INV", Ref: "RF-1"},
		Outcome: &Entry{Type: TypeOutcome, Kind: "refund", Gateway: account, AppGateway: old, Attempt: "a2", Invoice: "INV", Ref: "RF-1", Outcome: Succeeded, StatusCode: &code},
	}
	if open := UnresolvedAll([]Attempt{first, resend}); len(open) != 0 {
		t.Errorf("unresolved %v; want the re-send made under the new name to tell the first", open[0].Intent.Attempt)
	}
	scope := ScopeFor("refund", "p", base, account, false).WithAlias(old)
	if !scope.InScope(first) {
		t.Error("the earlier paycli's line is not the account's")
	}
	if other := ScopeFor("refund", "p", base, account, false); other.InScope(first) {
		t.Error("without the alias, an app_id's line is taken for the merchant's account")
	}
}

// TestAccountIdentitySurvivesRotation: the merchant_key names the account;
// the app_id does not change it, the base URL and merchant_key do.
func TestAccountIdentitySurvivesRotation(t *testing.T) {
	const base = "https://gw.example/ccpayment"
	if AccountOf(base, "app-1", "mk") != AccountOf(base+"/", "app-2", "mk") {
		t.Error("a new app_id (or another spelling of the URL) changed the account")
	}
	if AccountOf(base, "app", "mk") == AccountOf(base, "app", "mk-2") || AccountOf(base, "app", "mk") == AccountOf("https://other.example", "app", "mk") {
		t.Error("another merchant_key or gateway is the same account")
	}
	if AccountOf(base, "app", "") != Identity(base, "app") {
		t.Error("a profile without a merchant_key is not named by its app_id")
	}
	if AppAlias(AccountOf(base, "app", ""), base, "app") != "" || AppAlias(SandboxPrefix+"x", base, "app") != "" {
		t.Error("an alias for an account named by its app_id already, or for the sandbox")
	}
}
