package status

import (
	"context"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/render"
)

// TestStatusNamesTheGateway (issue 33, item 3): above a table, stderr
// names the family gateway the profile points at; nothing is said for
// another URL (the sandbox), nor around JSON, which is the gateway's own.
func TestStatusNamesTheGateway(t *testing.T) {
	for _, tc := range []struct {
		format           render.Format
		gateway          string
		want, wantAbsent string
	}{
		{render.Table, "qnbpay", "Gateway: QNBpay (test), http://", ""},
		{render.Table, "", "", "Gateway:"},
		{render.JSON, "qnbpay", "", "Gateway:"},
	} {
		fx := newFixture(t, tc.format)
		cfg, _ := fx.opts.Config()
		named := *cfg
		named.Gateway, named.Environment = tc.gateway, "test"
		fx.opts.Config = func() (*config.Config, error) { return &named, nil }
		fx.opts.Invoice = "PEND-1"
		_ = statusRun(context.Background(), fx.opts)
		if !strings.Contains(fx.errOut.String(), tc.want) || tc.wantAbsent != "" && strings.Contains(fx.errOut.String(), tc.wantAbsent) {
			t.Errorf("%s %q: stderr %q", tc.format, tc.gateway, fx.errOut)
		}
	}
}
