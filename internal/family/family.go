// Package family names the gateways that run the same ccpayment protocol
// (Sipay and its white-label siblings) and the test and live base URLs of
// each: the one table paycli picks a base URL from by a gateway's name
// (the gateway key, config init --gateway) and the sandbox answers as
// (sandbox serve --as). docs/protocol.md says where each URL comes from.
package family

import (
	"net/url"
	"slices"
	"strings"
)

// Environment is which of a gateway's two base URLs: test or live.
type Environment string

const (
	Test Environment = "test"
	Live Environment = "live"
)

// Member is one gateway of the family.
type Member struct {
	// Name is how paycli spells it (the gateway key's value): lower case.
	Name string
	// Title is how the gateway writes its own name.
	Title   string
	TestURL string
	LiveURL string
}

// DefaultName is the gateway whose URLs paycli offered before gateways
// had names: the shortcuts test and live without a gateway mean it.
const DefaultName = "sipay"

// Members returns the family in the order paycli lists it: Sipay first,
// then by name. The URLs are the ones the public clients name
// (docs/protocol.md, The family of gateways).
func Members() []Member {
	return []Member{
		{Name: "sipay", Title: "Sipay", TestURL: "https://provisioning.sipay.com.tr/ccpayment", LiveURL: "https://app.sipay.com.tr/ccpayment"},
		{Name: "halkode", Title: "Halkode", TestURL: "https://testapp.halkode.com.tr/ccpayment", LiveURL: "https://app.halkode.com.tr/ccpayment"},
		{Name: "iqmoney", Title: "IQmoney", TestURL: "https://provisioning.iqmoneytr.com/ccpayment", LiveURL: "https://app.iqmoneytr.com/ccpayment"},
		{Name: "parolapara", Title: "ParolaPara", TestURL: "https://testccpayment.parolapara.com/ccpayment", LiveURL: "https://ccpayment.parolapara.com/ccpayment"},
		{Name: "paybull", Title: "Paybull", TestURL: "https://test.paybull.com/ccpayment", LiveURL: "https://app.paybull.com/ccpayment"},
		{Name: "qnbpay", Title: "QNBpay", TestURL: "https://test.qnbpay.com.tr/ccpayment", LiveURL: "https://portal.qnbpay.com.tr/ccpayment"},
		{Name: "vepara", Title: "Vepara", TestURL: "https://test.vepara.com.tr/ccpayment", LiveURL: "https://app.vepara.com.tr/ccpayment"},
	}
}

// Names returns the members' names, in the order of Members.
func Names() []string {
	var names []string
	for _, m := range Members() {
		names = append(names, m.Name)
	}
	return names
}

// Lookup finds a member by name, in any case and without surrounding
// blanks: QNBpay, qnbpay and " QNBPAY " are one gateway.
func Lookup(name string) (Member, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	members := Members()
	i := slices.IndexFunc(members, func(m Member) bool { return m.Name == name })
	if i < 0 {
		return Member{}, false
	}
	return members[i], true
}

// ParseEnvironment reads test or live, in any case; ok is false for any
// other text.
func ParseEnvironment(s string) (env Environment, ok bool) {
	switch Environment(strings.ToLower(strings.TrimSpace(s))) {
	case Test:
		return Test, true
	case Live:
		return Live, true
	}
	return "", false
}

// BaseURL is the member's base URL in env (the test one for anything but
// Live: a name alone never reaches live money).
func (m Member) BaseURL(env Environment) string {
	if env == Live {
		return m.LiveURL
	}
	return m.TestURL
}

// ByURL finds the member and environment whose base URL raw is, compared
// by scheme, host (in any case) and path without its trailing slashes; ok
// is false for any other URL (the sandbox, a proxy).
func ByURL(raw string) (m Member, env Environment, ok bool) {
	key := urlKey(raw)
	if key == "" {
		return Member{}, "", false
	}
	for _, m := range Members() {
		switch key {
		case urlKey(m.TestURL):
			return m, Test, true
		case urlKey(m.LiveURL):
			return m, Live, true
		}
	}
	return Member{}, "", false
}

func urlKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Host), ".")
	host = strings.TrimSuffix(host, ":443")
	return strings.ToLower(u.Scheme) + "://" + host + strings.TrimRight(u.Path, "/")
}
