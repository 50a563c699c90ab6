package configcmd

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/spf13/cobra"
)

// TestInitGateway (issue 33, item 3): config init --gateway keeps the
// gateway's name and makes base_url the environment's word, so that the
// profile reaches that gateway's URL from the table; --base-url with a
// URL still overrides it.
func TestInitGateway(t *testing.T) {
	for _, tc := range []struct {
		name, existing string
		args           []string
		wantFile       string
		wantURL        string
	}{
		{"test by default", "", []string{"--gateway", "QNBpay"},
			"    gateway: qnbpay\n    base_url: test\n", "https://test.qnbpay.com.tr/ccpayment"},
		{"live", "", []string{"--gateway", "qnbpay", "--base-url", "live"},
			"    gateway: qnbpay\n    base_url: live\n", "https://portal.qnbpay.com.tr/ccpayment"},
		{"a URL overrides", "", []string{"--gateway", "paybull", "--base-url", "https://proxy.example/ccpayment"},
			"    gateway: paybull\n    base_url: https://proxy.example/ccpayment\n", "https://proxy.example/ccpayment"},
		{"a live Sipay profile moves to the live QNBpay", "profiles:\n  default:\n    base_url: " + config.LiveBaseURL + "\n",
			[]string{"--gateway", "qnbpay"}, "    base_url: live\n    gateway: qnbpay\n", "https://portal.qnbpay.com.tr/ccpayment"},
		{"the profile's gateway makes live a word", "profiles:\n  default:\n    gateway: vepara\n",
			[]string{"--base-url", "live"}, "    gateway: vepara\n    base_url: live\n", "https://app.vepara.com.tr/ccpayment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, tc.existing)
			fx.env["PAYCLI_APP_ID"], fx.env["PAYCLI_APP_SECRET"], fx.env["PAYCLI_MERCHANT_KEY"] = "42", appSecret, merchantKey
			cmd := NewCmdInit(fx.factory(), func(ctx context.Context, o *InitOptions) error {
				o.InsecureStorage, o.Verify = true, nil
				return initRun(ctx, o)
			})
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(fx.file(), tc.wantFile) {
				t.Errorf("file lacks %q:\n%s", tc.wantFile, fx.file())
			}
			delete(fx.env, "PAYCLI_APP_ID")
			cfg, err := config.Load(fx.where())
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tc.wantURL {
				t.Errorf("base URL %q, want %q", cfg.BaseURL, tc.wantURL)
			}
		})
	}
}

// TestGatewayFlagRefusesUnknownNames: --gateway with a name not in the
// table is a usage error (exit 2) naming the known ones; nothing written.
func TestGatewayFlagRefusesUnknownNames(t *testing.T) {
	want := `invalid --gateway: "qnb" is not a gateway paycli knows: use one of sipay, halkode, iqmoney, parolapara, paybull, qnbpay, vepara`
	for name, cmd := range map[string]func(*fixture) error{
		"init": func(fx *fixture) error {
			return fx.runUnderRoot(NewCmdInit(fx.factory(), nil), "--gateway", "qnb", "--no-verify")
		},
		"set": func(fx *fixture) error {
			return fx.runUnderRoot(NewCmdSet(fx.factory(), nil), "lang", "tr", "--gateway", "qnb")
		},
	} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture(t, "")
			wantUsage(t, cmd(fx), want)
			if _, err := os.Stat(fx.path); err == nil {
				t.Error("a file was written")
			}
		})
	}
	fx := newFixture(t, "")
	err := fx.runUnderRoot(NewCmdSet(fx.factory(), nil), "gateway", "QNB")
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "use one of sipay, halkode") {
		t.Errorf("config set gateway QNB: %v", err)
	}
}

// TestSetGateway: config set gateway (or --gateway beside another key)
// stores the name; a base_url that is a family URL becomes its word so
// that the gateway's URL is used, another URL stays with a note.
func TestSetGateway(t *testing.T) {
	for _, tc := range []struct {
		name, existing string
		args           []string
		wantFile       []string
		wantURL        string
		wantStderr     string
	}{
		{"a Sipay test URL follows", "profiles:\n  default:\n    base_url: " + config.TestBaseURL + "\n",
			[]string{"gateway", "Paybull"}, []string{"base_url: test", "gateway: paybull"}, "https://test.paybull.com/ccpayment",
			"base_url is now test: Paybull's test URL, https://test.paybull.com/ccpayment."},
		{"a proxy stays", "profiles:\n  default:\n    base_url: https://proxy.example/ccpayment\n",
			[]string{"gateway", "qnbpay"}, []string{"base_url: https://proxy.example/ccpayment", "gateway: qnbpay"}, "https://proxy.example/ccpayment",
			"note: base_url https://proxy.example/ccpayment stays and overrides QNBpay's URL"},
		{"--gateway beside base_url", "",
			[]string{"base_url", "live", "--gateway", "halkode"}, []string{"base_url: live", "gateway: halkode"}, "https://app.halkode.com.tr/ccpayment",
			`Set gateway in profile "default": halkode.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, tc.existing)
			if err := fx.runUnderRoot(NewCmdSet(fx.factory(), func(ctx context.Context, o *SetOptions) error {
				return setRun(ctx, o)
			}), tc.args...); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wantFile {
				if !strings.Contains(fx.file(), w) {
					t.Errorf("file lacks %q:\n%s", w, fx.file())
				}
			}
			if !strings.Contains(fx.stderr(), tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, fx.stderr())
			}
			cfg, err := config.Load(fx.where())
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tc.wantURL {
				t.Errorf("base URL %q, want %q", cfg.BaseURL, tc.wantURL)
			}
		})
	}
}

// TestGatewayCompletion: --gateway and config set gateway offer the
// family's names.
func TestGatewayCompletion(t *testing.T) {
	fx := newFixture(t, "")
	for _, cmd := range []*cobra.Command{NewCmdInit(fx.factory(), nil), NewCmdSet(fx.factory(), nil)} {
		fn, ok := cmd.GetFlagCompletionFunc("gateway")
		if !ok {
			t.Fatalf("%s: no completion for --gateway", cmd.Name())
		}
		got, _ := fn(cmd, nil, "")
		if len(got) != 7 || got[5] != "qnbpay\tQNBpay" {
			t.Errorf("%s --gateway completes %v", cmd.Name(), got)
		}
	}
	got, _ := completeSetArgs(nil, []string{"gateway"}, "")
	if len(got) != 7 || !strings.HasPrefix(got[0], "sipay\t") {
		t.Errorf("config set gateway completes %v", got)
	}
}

// TestInitGatewayOnTerminal: with --gateway the prompt offers that
// gateway's URLs, and a choice is kept as its word; a profile that was on
// Sipay's live URL is offered live (Enter keeps the environment, not
// Sipay's URL).
func TestInitGatewayOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		existing, answer, wantBase, wantDefault string
	}{
		{"", "2\n", "base_url: live", "[1]"},
		{"profiles:\n  default:\n    base_url: " + config.LiveBaseURL + "\n    app_id: \"7\"\n", "\n", "base_url: live", "[2]"},
	} {
		fx := newFixture(t, tc.existing)
		fx.terminal()
		fx.in.WriteString(tc.answer + "12345\n" + appSecret + "\n" + merchantKey + "\n\n")
		err := initRun(context.Background(), &InitOptions{IO: fx.ios, Where: fx.where(), LookupEnv: fx.lookupEnv,
			Flags: map[string]string{"gateway": "qnbpay"}, InsecureStorage: true})
		if err != nil {
			t.Fatal(err)
		}
		want := "Base URL of QNBpay:\n  1) test  https://test.qnbpay.com.tr/ccpayment\n  2) live  https://portal.qnbpay.com.tr/ccpayment\nChoose 1 or 2, or type a URL " + tc.wantDefault
		if !strings.Contains(fx.stderr(), want) || !strings.Contains(fx.stderr(), "base_url         live (https://portal.qnbpay.com.tr/ccpayment)") {
			t.Errorf("stderr:\n%s", fx.stderr())
		}
		if !strings.Contains(fx.file(), tc.wantBase) || !strings.Contains(fx.file(), "gateway: qnbpay") {
			t.Errorf("file:\n%s", fx.file())
		}
	}
}
