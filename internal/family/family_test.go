package family

import (
	"strings"
	"testing"
)

// TestTheFamilyTable pins the table against the sources docs/protocol.md
// names: every member, each with an https test and live URL ending in
// /ccpayment, the two distinct, no URL shared by two members.
func TestTheFamilyTable(t *testing.T) {
	want := []string{"sipay", "halkode", "iqmoney", "parolapara", "paybull", "qnbpay", "vepara"}
	if got := Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	seen := map[string]string{}
	for _, m := range Members() {
		for _, u := range []string{m.TestURL, m.LiveURL} {
			if !strings.HasPrefix(u, "https://") || !strings.HasSuffix(u, "/ccpayment") {
				t.Errorf("%s: %q is not an https base URL ending in /ccpayment", m.Name, u)
			}
			if other, dup := seen[u]; dup {
				t.Errorf("%s and %s share %s", m.Name, other, u)
			}
			seen[u] = m.Name
		}
	}
	q, _ := Lookup("qnbpay")
	if q.TestURL != "https://test.qnbpay.com.tr/ccpayment" || q.LiveURL != "https://portal.qnbpay.com.tr/ccpayment" {
		t.Errorf("QNBpay's URLs are not its API pages': %+v", q)
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	for _, name := range []string{"qnbpay", "QNBpay", " QNBPAY "} {
		if m, ok := Lookup(name); !ok || m.Name != "qnbpay" {
			t.Errorf("Lookup(%q) = %+v, %v", name, m, ok)
		}
	}
	for _, name := range []string{"", "qnb", "sipay2", "https://test.qnbpay.com.tr/ccpayment"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found a member", name)
		}
	}
}

func TestBaseURLNeverLiveByDefault(t *testing.T) {
	m, _ := Lookup("paybull")
	if m.BaseURL(Live) != m.LiveURL || m.BaseURL(Test) != m.TestURL || m.BaseURL("") != m.TestURL {
		t.Errorf("BaseURL: %q %q %q", m.BaseURL(Live), m.BaseURL(Test), m.BaseURL(""))
	}
}

func TestByURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://test.qnbpay.com.tr/ccpayment":       "qnbpay test",
		"HTTPS://Portal.QNBpay.com.tr/ccpayment/":    "qnbpay live",
		"https://portal.qnbpay.com.tr:443/ccpayment": "qnbpay live",
		"https://app.sipay.com.tr/ccpayment":         "sipay live",
		"http://127.0.0.1:8080/ccpayment":            "",
		"https://test.qnbpay.com.tr/other":           "",
		"not a url":                                  "",
	} {
		m, env, ok := ByURL(raw)
		got := ""
		if ok {
			got = m.Name + " " + string(env)
		}
		if got != want {
			t.Errorf("ByURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
