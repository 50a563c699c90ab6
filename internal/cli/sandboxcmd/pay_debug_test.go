package sandboxcmd

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// TestPayDebugLogsThroughTheGatewayClient: with --debug, pay's calls are
// the gateway client's, logged with its redaction: every call named, the
// card and the secrets never whole.
func TestPayDebugLogsThroughTheGatewayClient(t *testing.T) {
	srv := paySandbox(t)
	for _, args := range [][]string{
		{"--amount", "10", "--currency", "TRY", "--debug"},
		{"--amount", "10", "--currency", "TRY", "--3d", "--debug"},
	} {
		f, _ := testFactory(t, nil)
		var ran *PayOptions
		cmd := NewCmdPay(f, func(ctx context.Context, o *PayOptions) error { ran = o; return nil })
		// --debug is the root command's flag.
		root := &cobra.Command{Use: "paycli"}
		root.PersistentFlags().Bool("debug", false, "")
		root.AddCommand(cmd)
		root.SetArgs(append([]string{"pay"}, args...))
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		if ran.Debug == nil {
			t.Fatalf("%v: no debug log", args)
		}
		var log bytes.Buffer
		ran.Debug = &log
		ran.Format = func() (render.Format, error) { return render.JSON, nil }
		ran.BaseURL = func(context.Context) (string, error) { return srv.BaseURL, nil }
		if err := PayRun(context.Background(), ran); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		text := log.String()
		want := []string{"/api/token", "/api/paySmart2D", "/api/checkstatus"}
		if ran.ThreeD {
			want = []string{"/api/token", "/api/paySmart3D", sandbox.ChallengePath, "/api/checkstatus"}
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: the debug log names no %s:\n%s", args, w, text)
			}
		}
		for _, secret := range []string{sandbox.DefaultWalletCard, sandbox.AppSecret, sandbox.MerchantKey, url.QueryEscape(sandbox.MerchantKey)} {
			if strings.Contains(text, secret) {
				t.Errorf("%v: the debug log holds %q", args, secret)
			}
		}
	}
}
