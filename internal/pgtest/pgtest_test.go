package pgtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStartRestart: a server starts, answers psql, survives a crash and a
// restart with its data.
func TestStartRestart(t *testing.T) {
	s := Start(t)
	s.Exec(t, "postgres", "CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)")
	if err := s.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	s.Exec(t, "postgres", "DO $$ BEGIN IF (SELECT count(*) FROM kept) <> 1 THEN RAISE 'lost a row'; END IF; END $$")
}

// TestPoolerLetsRolesIn: a PgBouncer in each mode lets a role created
// after it started in as itself, without a password, and is gone when
// its test ends.
func TestPoolerLetsRolesIn(t *testing.T) {
	s := Start(t)
	psql := filepath.Join(s.bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	for _, mode := range []PoolMode{PoolSession, PoolTransaction, PoolStatement} {
		var port int
		t.Run(string(mode), func(t *testing.T) {
			p := s.Pooler(t, mode)
			port = p.Port()
			s.Role(t, "clerk_"+string(mode))
			out, err := exec.Command(psql, "-X", "-A", "-t", "-d", p.URL("clerk_"+string(mode), "postgres"),
				"-c", "SELECT current_user").CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "clerk_"+string(mode) {
				t.Fatalf("psql through the %s pooler: %v\n%s\n%s", mode, err, out, p.Log())
			}
		})
		if c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			c.Close()
			t.Errorf("the %s pooler still listens after its test", mode)
		}
	}
}
