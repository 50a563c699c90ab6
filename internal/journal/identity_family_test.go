package journal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paycli/paycli/internal/config"
)

// TestNamedGatewayIsOneIdentity (issue 33, item 3): a gateway named in
// any spelling, and its URL written by hand in another, resolve to one
// base URL before the identity is taken, so that they are one account;
// the same name in the other environment is another.
func TestNamedGatewayIsOneIdentity(t *testing.T) {
	identity := func(profile string) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte("profiles:\n  default:\n    app_id: \"42\"\n    "+profile+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(config.LoadOptions{LookupEnv: func(k string) (string, bool) {
			if k == "PAYCLI_CONFIG" {
				return path, true
			}
			return "", false
		}})
		if err != nil {
			t.Fatal(err)
		}
		return Identity(cfg.BaseURL, cfg.AppID)
	}
	want := identity("gateway: qnbpay")
	for _, p := range []string{
		"gateway: QNBpay\n    base_url: test",
		"base_url: https://TEST.qnbpay.com.tr/ccpayment/",
		"gateway: qnbpay\n    base_url: https://test.qnbpay.com.tr:443/ccpayment",
	} {
		if got := identity(p); got != want {
			t.Errorf("%q: identity %s, want %s", p, got, want)
		}
	}
	if identity("gateway: qnbpay\n    base_url: live") == want || identity("gateway: paybull") == want {
		t.Error("another gateway or environment shares the identity")
	}
}
