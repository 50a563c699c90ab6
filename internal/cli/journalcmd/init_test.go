package journalcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/testkit/kindtest"
)

// runInit runs `paycli journal init ARGS…` through its cobra command.
func runInit(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{MoneyKinds: kindtest.Paycli, IOStreams: ios, Config: func() (*config.Config, error) { return &config.Config{Output: "table"}, nil }}
	cmd := NewCmdInit(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), err
}

func TestInit(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db := srv.Database(t, "desk_admin")
	srv.Role(t, "ayse")
	srv.Role(t, "zeynep")
	url := srv.URL("desk_admin", db)

	out, err := runInit(t, "--url", url, "--grant", "ayse", "--lead", "zeynep")
	if err != nil || !strings.Contains(out, "schema version 8 (applied steps 1, 2, 3, 4, 5, 6, 7, 8)") || !strings.Contains(out, "Role ayse may read the journal and append to it.") ||
		!strings.Contains(out, "Role zeynep is a desk lead") {
		t.Fatalf("first init: %q, %v", out, err)
	}
	var lead bool
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), "SELECT pg_has_role('zeynep', 'paycli_lead', 'MEMBER') AND NOT pg_has_role('ayse', 'paycli_lead', 'MEMBER')").Scan(&lead); err != nil || !lead {
		t.Errorf("--lead zeynep: zeynep a lead and ayse not: %v, %v", lead, err)
	}
	out, err = runInit(t, "--url", url, "--jq", ".")
	var res pgjournal.InitResult
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Version != pgjournal.SchemaVersion() || len(res.Applied) != 0 {
		t.Fatalf("second init: %q, %v", out, err)
	}
	// The test server runs with fsync=off: init says what it costs.
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "fsync=off") {
		t.Errorf("warnings on a server without fsync: %q", res.Warnings)
	}
	// An upper-case scheme is a postgres:// URL (it was refused late, exit 1).
	if _, err := runInit(t, "--url", "POSTGRES://"+strings.TrimPrefix(url, "postgres://")); err != nil {
		t.Errorf("POSTGRES://: %v", err)
	}

	for _, tc := range []struct {
		args []string
		kind cmdutil.Kind
		want string
	}{
		{[]string{"--grant", "ayse"}, cmdutil.KindUsage, "missing --url"},
		{[]string{"--url", "mysql://db/x"}, cmdutil.KindUsage, "not a postgres:// URL"},
		{[]string{"--url", url, "--grant", "nobody"}, cmdutil.KindUsage, `no role "nobody"`},
		{[]string{"--url", "postgres://desk_admin:s3cret-pw@127.0.0.1:1/x"}, cmdutil.KindUnavailable, "unavailable"},
		// An operator's role may not create the schema or grant: a wrong
		// role is the user's to fix, not an unexpected error.
		{[]string{"--url", srv.URL("ayse", db), "--grant", "ayse"}, cmdutil.KindUsage, "permission denied"},
	} {
		_, err := runInit(t, tc.args...)
		kind, _ := cmdutil.KindOf(err)
		if err == nil || kind != tc.kind || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (kind %v), want %v %q", tc.args, err, kind, tc.kind, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%v: the password is in %q", tc.args, err)
		}
	}
	var unavailable *pgjournal.UnavailableError
	if _, err := runInit(t, "--url", "postgres://x@127.0.0.1:1/x"); !errors.As(err, &unavailable) {
		t.Errorf("unreachable: %v", err)
	}
}
