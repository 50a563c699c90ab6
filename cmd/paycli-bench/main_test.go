package main

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
)

// TestBenchCommandLine runs paycli-bench as its main does: without a
// running sandbox it says how to start one and exits 8, printing nothing
// on stdout; bad flags are usage errors (exit 2) before anything is sent.
func TestBenchCommandLine(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 8, `(?m)^error: no running sandbox found for state folder .*sandbox\n.*paycli sandbox serve`},
		{[]string{"--duplicates", "0.1", "--endpoint", "commissions"}, 2, `(?m)^error: --duplicates applies only to --endpoint walletpay$`},
		{[]string{"--duplicates", "1"}, 2, `must be a ratio from 0 up to \(not including\) 1`},
		{[]string{"--endpoint", "refund"}, 2, `(?m)^error: invalid --endpoint`},
		{[]string{"--base-url", "http://127.0.0.1:1/ccpayment", "-n", "1"}, 8, `Is .paycli sandbox serve. running there\?`},
	} {
		ios, _, out, errOut := iostreams.Test()
		code := app.RunTool(context.Background(), tt.args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			func(f *cmdutil.Factory) *cobra.Command { return NewCmdBench(f, nil) })
		if code != tt.code || !regexp.MustCompile(tt.stderr).MatchString(errOut.String()) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and stderr matching %s", tt.args, code, out, errOut, tt.code, tt.stderr)
		}
	}
}
