package journalcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/kindtest"
	"github.com/spf13/cobra"
)

const (
	liveBase = "https://gw.example/ccpayment"
	liveApp  = "app-live"
)

// twoAccounts writes a journal holding a live refund and two sandbox
// ones (the sandbox's identity), all succeeded, all today.
func twoAccounts(t *testing.T) (path, live, sandbox string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), journal.FileName)
	live, sandbox = journal.Identity(liveBase, liveApp), journal.SandboxPrefix+"0123456789abcdef"
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	code := 100
	for i, gw := range []string{live, sandbox, sandbox} {
		profile, base := "default", liveBase
		if gw == sandbox {
			profile, base = "sandbox", "http://127.0.0.1:40111/ccpayment"
		}
		e := journal.Entry{Type: journal.TypeIntent, Kind: "refund", Gateway: gw, Attempt: "a" + string(rune('1'+i)),
			Time: t0.Add(-time.Hour), Profile: profile, BaseURL: base, Invoice: "INV-" + string(rune('1'+i)), Amount: "100.00", Currency: "TRY", Ref: "R" + string(rune('1'+i))}
		_ = j.Append(e)
		e.Type, e.Outcome, e.StatusCode = journal.TypeOutcome, journal.Succeeded, &code
		_ = j.Append(e)
	}
	return path, live, sandbox
}

// accountFactory is a factory whose profile is the live account, or with
// sandbox the sandbox.
func accountFactory(path, sandbox string, on bool) (*cmdutil.Factory, *iostreams.IOStreams) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Now: func() time.Time { return t0 }, JournalPath: func() (string, error) { return path, nil }, Journal: fileJournal(path),
		Config: func() (*config.Config, error) {
			return &config.Config{Profile: "default", BaseURL: "https://user:secret@gw.example:443/ccpayment/", AppID: liveApp, Output: "table"}, nil
		},
		GatewayIdentity: func() (string, error) {
			if on {
				return sandbox, nil
			}
			return journal.Identity("https://user:secret@gw.example:443/ccpayment/", liveApp), nil
		},
	}
	return f, ios
}

func execute(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
}

// TestListingShowsOneAccount: `paycli journal` lists the profile's
// account (under --sandbox the sandbox's) and says so, with how many
// attempts of others it left out; --all-accounts lists all, keeping the
// PROFILE column at 80 columns.
func TestListingShowsOneAccount(t *testing.T) {
	path, _, sandbox := twoAccounts(t)
	for _, c := range []struct {
		sandbox bool
		args    []string
		rows    int
		note    string
	}{
		{false, nil, 1, "Gateway account: profile \"default\" at https://xxxxx@gw.example:443/ccpayment/; 2 attempts of other accounts not shown (--all-accounts lists them).\n"},
		{true, nil, 2, "Gateway account: the sandbox; 1 attempt of other accounts not shown (--all-accounts lists them).\n"},
		{false, []string{"--all-accounts"}, 3, ""},
	} {
		f, ios := accountFactory(path, sandbox, c.sandbox)
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(80)
		execute(t, NewCmdJournal(f, nil), c.args...)
		out, errOut := ios.Out.(interface{ String() string }).String(), ios.ErrOut.(interface{ String() string }).String()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if strings.Count(out, " refund ") != c.rows || !strings.HasPrefix(errOut, c.note) {
			t.Errorf("sandbox %v %v: stdout\n%s\nstderr %q, want %d rows and %q", c.sandbox, c.args, out, errOut, c.rows, c.note)
		}
		if c.args != nil && (!strings.Contains(lines[0], "PROFILE") || !strings.Contains(out, "sandbox")) {
			t.Errorf("all accounts at 80 columns lost the profile:\n%s", out)
		}
	}
}

// TestSummaryShowsOneAccount: a live summary never adds the sandbox's
// amounts; --all-accounts totals each account apart.
func TestSummaryShowsOneAccount(t *testing.T) {
	path, live, sandbox := twoAccounts(t)
	f, ios := accountFactory(path, sandbox, false)
	execute(t, NewCmdSummary(f, nil), "--since", "today")
	out, errOut := ios.Out.(interface{ String() string }).String(), ios.ErrOut.(interface{ String() string }).String()
	if !strings.Contains(out, "refund  succeeded         1  100.00 TRY") || strings.Contains(out, "200.00") || !strings.Contains(errOut, "Gateway account: profile \"default\"") {
		t.Errorf("live summary:\n%s%s", out, errOut)
	}
	f, ios = accountFactory(path, sandbox, false)
	execute(t, NewCmdSummary(f, nil), "--since", "today", "--all-accounts")
	out = ios.Out.(interface{ String() string }).String()
	row := func(id, rest string) bool {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, id+" ") && strings.HasSuffix(l, rest) {
				return true
			}
		}
		return false
	}
	if !row(live, "refund  succeeded         1  100.00 TRY") || !row(sandbox, "refund  succeeded         2  200.00 TRY") {
		t.Errorf("all accounts:\n%s", out)
	}
	_ = context.Background
}
