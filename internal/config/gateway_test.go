package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/family"
)

// TestGatewayPicksTheBaseURL (issue 33, item 3): the gateway key picks
// the base URL from the family table, test unless base_url says live; a
// base_url that is a URL overrides it; test and live without a gateway
// are Sipay's; the gateway is named by the key, else by a base_url that
// is one of the table's URLs.
func TestGatewayPicksTheBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name, profile, env                      string
		wantURL, wantGateway, wantEnv, wantFrom string
	}{
		{"name alone: test", "gateway: qnbpay", "", "https://test.qnbpay.com.tr/ccpayment", "qnbpay", "test", "gateway"},
		{"name in any case", "gateway: QNBpay\n    base_url: LIVE", "", "https://portal.qnbpay.com.tr/ccpayment", "qnbpay", "live", "file"},
		{"live", "gateway: paybull\n    base_url: live", "", "https://app.paybull.com/ccpayment", "paybull", "live", "file"},
		{"environment word from the environment", "gateway: vepara", "live", "https://app.vepara.com.tr/ccpayment", "vepara", "live", "env"},
		{"a URL overrides", "gateway: qnbpay\n    base_url: https://proxy.example/ccpayment/", "", "https://proxy.example/ccpayment", "qnbpay", "", "file"},
		{"test without a gateway is Sipay's", "base_url: test", "", TestBaseURL, "sipay", "test", "file"},
		{"a family URL names its gateway", "base_url: https://app.halkode.com.tr/ccpayment", "", "https://app.halkode.com.tr/ccpayment", "halkode", "live", "file"},
		{"another URL names none", "base_url: https://gw.example/ccpayment", "", "https://gw.example/ccpayment", "", "", "file"},
		{"nothing", "app_id: x", "", "", "", "", "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, "profiles:\n  default:\n    "+tc.profile+"\n")
			env := map[string]string{"PAYCLI_CONFIG": path}
			if tc.env != "" {
				env["PAYCLI_BASE_URL"] = tc.env
			}
			cfg, err := Load(LoadOptions{LookupEnv: mapEnv(env)})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tc.wantURL || cfg.Get("base_url") != tc.wantURL || cfg.Gateway != tc.wantGateway ||
				string(cfg.Environment) != tc.wantEnv || string(cfg.Source("base_url")) != tc.wantFrom {
				t.Errorf("BaseURL %q (get %q, from %s), Gateway %q, Environment %q; want %q from %s, %q, %q",
					cfg.BaseURL, cfg.Get("base_url"), cfg.Source("base_url"), cfg.Gateway, cfg.Environment,
					tc.wantURL, tc.wantFrom, tc.wantGateway, tc.wantEnv)
			}
			if tc.wantGateway != "" && cfg.Get("gateway") != tc.wantGateway {
				t.Errorf("get gateway = %q", cfg.Get("gateway"))
			}
		})
	}
}

// TestUnknownGatewayNamesTheKnownOnes: a gateway the table does not hold
// is refused where it was set, with the family's names.
func TestUnknownGatewayNamesTheKnownOnes(t *testing.T) {
	path := writeConfig(t, "profiles:\n  default:\n    gateway: qnb\n")
	_, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": path})})
	var ue *UnknownGatewayError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), strings.Join(family.Names(), ", ")) {
		t.Fatalf("err = %v", err)
	}
	if _, err := ResolveBaseURL("qnb", "live"); !errors.As(err, &ue) {
		t.Errorf("ResolveBaseURL: %v", err)
	}
}

// TestSandboxOverlayIsNoFamilyMember: under --sandbox the base URL is the
// emulator's, whatever gateway the profile names, and an address not yet
// known is not replaced by the gateway's.
func TestSandboxOverlayIsNoFamilyMember(t *testing.T) {
	path := writeConfig(t, "profiles:\n  default:\n    base_url: https://app.sipay.com.tr/ccpayment\n")
	cfg, err := Load(LoadOptions{LookupEnv: mapEnv(map[string]string{"PAYCLI_CONFIG": path, "PAYCLI_GATEWAY": "qnbpay"})})
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://127.0.0.1:9/ccpayment", ""} {
		out, err := cfg.Overlaid("sandbox", SourceSandbox, map[string]string{"base_url": url})
		if err != nil {
			t.Fatal(err)
		}
		if out.BaseURL != url || out.Gateway != "" || out.GatewayTitle() != "" {
			t.Errorf("overlay %q: BaseURL %q, Gateway %q", url, out.BaseURL, out.Gateway)
		}
	}
	if cfg.GatewayTitle() != "QNBpay" {
		t.Errorf("GatewayTitle = %q (a QNBpay profile behind Sipay's URL)", cfg.GatewayTitle())
	}
}
