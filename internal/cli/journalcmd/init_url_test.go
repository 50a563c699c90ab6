package journalcmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/testkit/kindtest"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// runInitWith runs `paycli journal init ARGS…` with stdin and an
// environment; it returns stdout, stderr and the error as paycli would
// print it (its message and hint).
func runInitWith(t *testing.T, stdin string, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Config: func() (*config.Config, error) { return &config.Config{Output: "table"}, nil },
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	cmd := NewCmdInit(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// TestInitNeverShowsPassword (issue 30, defect 10): an owner's URL whose
// password holds a raw '/', '#', '?', space or '@' is refused (exit 2)
// without showing the password or its tail, wherever the URL came from.
func TestInitNeverShowsPassword(t *testing.T) {
	for _, pw := range []string{"QZK/WXJ", "QZK#WXJ", "QZK?WXJ", "QZK WXJ", "QZK@WXJ", "QZK/#? @WXJ"} {
		url := "postgres://desk_admin:" + pw + "@127.0.0.1:1/paycli"
		for _, how := range []struct {
			stdin string
			env   map[string]string
			args  []string
		}{
			{"", nil, []string{"--url", url}},
			{url + "\n", nil, []string{"--url", "-"}},
			{"", map[string]string{OwnerURLEnv: url}, nil},
		} {
			out, errOut, err := runInitWith(t, how.stdin, how.env, how.args...)
			kind, _ := cmdutil.KindOf(err)
			shown := out + errOut + fmtErr(err)
			if err == nil || kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "percent-encoded") {
				t.Errorf("password %q (%v): %v (kind %v), want a usage error saying to percent-encode", pw, how.args, err, kind)
			}
			for _, part := range []string{"QZK", "WXJ"} {
				if strings.Contains(shown, part) {
					t.Errorf("password %q (%v): shows %q in %q", pw, how.args, part, shown)
				}
			}
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error() + "\n" + cmdutil.HintOf(err)
}

// TestInitReadsOwnerURLOffTheCommandLine: --url - reads the URL from
// stdin and PAYCLI_JOURNAL_OWNER_URL gives it when --url is not given,
// without a warning; a password written in --url is warned about.
func TestInitReadsOwnerURLOffTheCommandLine(t *testing.T) {
	url := "postgres://desk_admin:QZK%2FWXJ@127.0.0.1:1/paycli"
	var unavailable *pgjournal.UnavailableError
	for _, how := range []struct {
		stdin string
		env   map[string]string
		args  []string
		warn  bool
	}{
		{url + "\n", nil, []string{"--url", "-"}, false},
		{"", map[string]string{OwnerURLEnv: url}, nil, false},
		{"", nil, []string{"--url", url}, true},
		// A user name alone is no password: nothing to warn about.
		{"", nil, []string{"--url", "postgres://desk_admin@127.0.0.1:1/paycli"}, false},
	} {
		out, errOut, err := runInitWith(t, how.stdin, how.env, how.args...)
		// Reached for: the URL was read (the server at port 1 is not there).
		if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "postgres://xxxxx@127.0.0.1:1/paycli") {
			t.Errorf("%v: %v, want the journal at the URL unavailable", how.args, err)
		}
		if warned := strings.Contains(errOut, "warning: the password in --url is seen by other users (ps)"); warned != how.warn {
			t.Errorf("%v: stderr %q, warning %v, want %v", how.args, errOut, warned, how.warn)
		}
		if shown := out + errOut + fmtErr(err); strings.Contains(shown, "QZK") {
			t.Errorf("%v: the password shows in %q", how.args, shown)
		}
	}
	if _, _, err := runInitWith(t, "", nil, "--url", "-"); err == nil || !strings.Contains(err.Error(), "stdin held no URL") {
		t.Errorf("--url - with nothing on stdin: %v", err)
	}
}

// TestInitBehindSharingPooler: journal init through PgBouncer in
// transaction mode is refused as the configuration's error (exit 2),
// naming the mode and what to use, rather than failing on a prepared
// statement.
func TestInitBehindSharingPooler(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db := srv.Database(t, "desk_admin")
	p := srv.Pooler(t, pgtest.PoolTransaction)
	for range 2 {
		_, _, err := runInitWith(t, "", nil, "--url", p.URL("desk_admin", db))
		kind, _ := cmdutil.KindOf(err)
		if kind != cmdutil.KindUsage || !strings.Contains(err.Error(), "behind a connection pooler in transaction mode") || !strings.Contains(cmdutil.HintOf(err), "pool_mode = session") {
			t.Errorf("journal init behind a transaction pool: %v (kind %v), want exit 2 naming the mode", err, kind)
		}
	}
}
