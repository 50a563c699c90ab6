package commissionscmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
)

// TestFilterNamingNothingIsBadInput: a --program or --installments item
// the gateway's table does not have is exit 2 naming it, with what the
// table has; filters that each exist but match nothing together are no
// error, and stderr says so. Before, all of them printed nothing, exit 0.
func TestFilterNamingNothingIsBadInput(t *testing.T) {
	for _, c := range []struct {
		args     []string
		err      string
		hint     string
		stderr   string
		wantRows bool
	}{
		{args: []string{"--program", "nosuch"}, err: `invalid --program: no card program's name in the gateway's TRY table contains "nosuch"`,
			hint: "Its programs: Advantage, Axess, Bankkart Combo, Bonus, CardFinans, Maximum, Paraf, World."},
		{args: []string{"--program", "bonus", "--program", "nosuch"}, err: `contains "nosuch"`, hint: "Its programs: "},
		{args: []string{"--installments", "13"}, err: "invalid --installments: the gateway's TRY table lists no installment count 13", hint: "It lists 1-12."},
		{args: []string{"--installments", "3,13-15"}, err: "no installment count 13-15", hint: "It lists 1-12."},
		{args: []string{"--installments", "12-20"}, wantRows: true},
		{args: []string{"--program", "bonus", "--installments", "2-4"}, wantRows: true},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			g := newGateway(t, filepath.Join(sandboxFixtures, "try_merchant_en.json"))
			opts, out, errOut := testOptions(t, g, "TRY", render.Table, false)
			parsed, err := parseArgs(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			opts.Programs, opts.Installments, opts.InstallmentsText = parsed.Programs, parsed.Installments, parsed.InstallmentsText
			err = commissionsRun(context.Background(), opts)
			if c.err == "" {
				if err != nil || (out.Len() > 0) != c.wantRows {
					t.Errorf("err %v, stdout %q, stderr %q", err, out, errOut)
				}
				return
			}
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(cmdutil.HintOf(err), c.hint) {
				t.Errorf("err %v (kind %v), hint %q; want exit 2 with %q and %q", err, k, cmdutil.HintOf(err), c.err, c.hint)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q after bad input", out)
			}
		})
	}
}
