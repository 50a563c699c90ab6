package cmdutil

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/testkit/replay"
)

func TestNewGatewayClientRefusesBadConfiguration(t *testing.T) {
	full := config.Config{Profile: "live", BaseURL: "https://gw.example/ccpayment", AppID: "id", AppSecret: "secret", Timeout: time.Second}
	tests := []struct {
		name     string
		edit     func(*config.Config)
		wantErr  string
		wantHint string
	}{
		{"nothing set", func(c *config.Config) { c.BaseURL, c.AppID, c.AppSecret = "", "", "" },
			`profile "live" has no base_url, app_id, app_secret`,
			"Run 'paycli config init' to set up the profile, or set PAYCLI_BASE_URL, PAYCLI_APP_ID, PAYCLI_APP_SECRET. To try paycli without an account, add --sandbox."},
		{"no secret", func(c *config.Config) { c.AppSecret = "" }, `profile "live" has no app_secret`, "PAYCLI_APP_SECRET."},
		{"plain http", func(c *config.Config) { c.BaseURL = "http://gw.example/ccpayment" },
			"uses plain http to a host that is not loopback", `Set base_url of profile "live" to the gateway's https address`},
		{"bad ca_cert", func(c *config.Config) { c.CACert = filepath.Join(t.TempDir(), "none.pem") },
			"ca_cert: open", `Fix ca_cert in profile "live"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := full
			tt.edit(&cfg)
			_, err := NewGatewayClient(&cfg, GatewayOptions{CacheDir: t.TempDir(), Now: time.Now})
			if k, _ := KindOf(err); k != KindUsage {
				t.Fatalf("err = %v (kind %v), want a usage error", err, k)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(HintOf(err), tt.wantHint) {
				t.Errorf("err %q / hint %q; want %q / %q", err, HintOf(err), tt.wantErr, tt.wantHint)
			}
		})
	}
	cfg := full
	c, err := NewGatewayClient(&cfg, GatewayOptions{CacheDir: t.TempDir(), UserAgent: "paycli/test", Now: time.Now})
	if err != nil || c.BaseURL() != cfg.BaseURL {
		t.Errorf("a complete profile: %v, %v", c, err)
	}
}

// TestRequireAppSecret: a profile without app_secret is a usage error
// saying what the secret is for and how to set it; with one, it is the
// secret.
func TestRequireAppSecret(t *testing.T) {
	_, err := RequireAppSecret(&config.Config{Profile: "live"}, "it signs things")
	if k, _ := KindOf(err); k != KindUsage || err.Error() != `no app_secret configured for profile "live": it signs things` ||
		!strings.Contains(HintOf(err), "'paycli config set app_secret -'") {
		t.Errorf("no app_secret: %v (hint %q), want a usage error with a hint", err, HintOf(err))
	}
	if got, err := RequireAppSecret(&config.Config{Profile: "live", AppSecret: "s3"}, "it signs things"); got != "s3" || err != nil {
		t.Errorf("with app_secret: %q, %v", got, err)
	}
}

// TestNewGatewayClientReadsTheProfilesGateway (issue 40, item 3): the
// client reads answers in the dialect of the gateway the profile names:
// QNBpay's check status, an array of one object, is read for a QNBpay
// profile and for a base URL that is no member's, and refused as
// unreadable for a Sipay one.
func TestNewGatewayClientReadsTheProfilesGateway(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	for gw, wantRead := range map[string]bool{"qnbpay": true, "": true, "sipay": false} {
		s := replay.New(t)
		s.Answer(http.MethodPost, "/ccpayment/api/token", 200, "../gateway/testdata/recorded/token.json")
		s.Answer(http.MethodPost, "/ccpayment/api/checkstatus", 200, "../gateway/testdata/recorded/checkstatus_qnbpay_array.json")
		cfg := config.Config{Profile: "p", BaseURL: s.URL + "/ccpayment", Gateway: gw, AppID: "id", AppSecret: "secret", MerchantKey: "key", Timeout: time.Second}
		c, err := NewGatewayClient(&cfg, GatewayOptions{CacheDir: t.TempDir(), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CheckStatus(context.Background(), "33491162435928")
		if read := err == nil; read != wantRead || !read && !errors.Is(err, gateway.ErrUnreadable) {
			t.Errorf("gateway %q: %v, want read %v", gw, err, wantRead)
		}
	}
}
