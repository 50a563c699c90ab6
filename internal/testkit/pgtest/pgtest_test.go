package pgtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartRestart: a server starts, answers psql, survives a crash and a
// restart with its data.
func TestStartRestart(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestDatabaseFromCopiesATemplateMadeOnce: databases from one template
// are made once, hold what it held, and are apart from each other.
func TestDatabaseFromCopiesATemplateMadeOnce(t *testing.T) {
	t.Parallel()
	s := Start(t)
	built := 0
	build := func(t testing.TB, db string) {
		built++
		s.Exec(t, db, "CREATE TABLE kept (n int)", "INSERT INTO kept VALUES (1)")
	}
	a := s.DatabaseFrom(t, "owner_a", "kept", build)
	b := s.DatabaseFrom(t, "owner_a", "kept", build)
	if built != 1 || a == b {
		t.Fatalf("built %d times, databases %s and %s", built, a, b)
	}
	s.Exec(t, b, "INSERT INTO kept VALUES (2)")
	s.Exec(t, a, "DO $$ BEGIN IF (SELECT count(*) FROM kept) <> 1 THEN RAISE 'a copy shares rows with another'; END IF; END $$")
	s.Exec(t, b, "DO $$ BEGIN IF (SELECT count(*) FROM kept) <> 2 OR (SELECT datdba::regrole::text FROM pg_database WHERE datname = current_database()) <> 'owner_a' THEN RAISE 'b is not a copy owned by owner_a'; END IF; END $$")
}

// TestMoveClock: a server started with MovableClock jumps forward by what
// MoveClock says, and stays moved across a crash and restart.
func TestMoveClock(t *testing.T) {
	t.Parallel()
	s := StartWith(t, Options{MovableClock: true})
	psql := filepath.Join(s.bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	query := func() time.Time {
		t.Helper()
		out, err := exec.Command(psql, "-X", "-A", "-t", "-d", s.SuperuserURL(), "-c", "SELECT extract(epoch FROM clock_timestamp())").CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		sec, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			t.Fatal(err)
		}
		return time.Unix(0, int64(sec*1e9))
	}
	before := query()
	if err := s.MoveClock(140 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := query().Sub(before); got < 140*time.Second || got > 200*time.Second {
		t.Fatalf("the server's clock moved %s, want 140s", got)
	}
	if err := s.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := query().Sub(before); got < 140*time.Second {
		t.Fatalf("after a restart the server's clock is %s on, want 140s", got)
	}
	if s.Moved() != 140*time.Second {
		t.Errorf("Moved = %s", s.Moved())
	}
}
