// Package pgtest starts a real PostgreSQL server for tests: initdb and
// pg_ctl from the machine's PostgreSQL (Debian's postgresql package) in a
// temporary folder, listening on a loopback port reserved for it
// (internal/testkit/ports: outside the kernel's ephemeral range, so that
// Restart finds it free again), stopped when the
// test ends, or by a watcher when the test process dies without ending it
// (reap.go; TestServersDieWithTheTestProcess). Run as root, the server runs as the postgres OS user, as
// PostgreSQL refuses to run as root.
//
// Without PostgreSQL a test that asks for a server is skipped, naming the
// package to install; with PAYCLI_REQUIRE_POSTGRES=1 (set by .ci/run) it
// fails instead, so that CI never passes by skipping.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/ports"
)

// RequireEnv makes a missing PostgreSQL a test failure rather than a skip.
const RequireEnv = "PAYCLI_REQUIRE_POSTGRES"

// Superuser is the name of the cluster's superuser role.
const Superuser = "postgres"

// Server is a PostgreSQL server started for a test.
type Server struct {
	bin    string // folder of initdb, pg_ctl, postgres
	data   string // the cluster's data folder
	socket string // the folder of its Unix socket
	log    string // the server's log file
	port   int
	owner  *user.User // the OS user the server runs as; nil: the current one

	roleMu  sync.Mutex // held while a role is created
	mu      sync.Mutex
	running bool
	dbs     int // databases made by Database
	// templates are the databases DatabaseFrom copies, by key.
	templates map[string]*template
	durable   bool
	// clockFile holds the server's clock offset (libfaketime's
	// FAKETIME_TIMESTAMP_FILE) when it was started with MovableClock.
	clockFile string
	clockEnv  []string
	moved     time.Duration
}

// binDir finds the folder holding initdb and pg_ctl: PATH first, then
// Debian's /usr/lib/postgresql/<version>/bin, newest version first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "pg_ctl")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server programs (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin: install Debian's postgresql package (apt-get install postgresql)")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// unavailable skips t, or fails it when RequireEnv is set.
func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("PostgreSQL is required here (%s=1): %v", RequireEnv, err)
	}
	t.Skipf("skipped: %v", err)
}

// Options change how a server runs.
type Options struct {
	// Durable keeps fsync on, as a production server runs: for measuring
	// commit times. Tests run without it: a commit still waits for its WAL
	// to reach the kernel, so a crashed server (Crash) keeps it, and only
	// a crash of the machine, which no test makes, could lose it.
	Durable bool
	// MovableClock runs the server under libfaketime (Debian's libfaketime
	// package) so that MoveClock moves its wall clock: for a test of what
	// happens minutes later by the database's clock without waiting them.
	// The monotonic clock is left alone.
	MovableClock bool
}

// faketimeLib finds libfaketime's shared library.
func faketimeLib() (string, error) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		return "", fmt.Errorf("no libfaketime (/usr/lib/*/faketime/libfaketime.so.1) to move the server's clock: install Debian's libfaketime package (apt-get install libfaketime)")
	}
	return libs[0], nil
}

// Start initialises a cluster in a new temporary folder (a copy of one
// initdb made once per test process) and starts a server on a reserved
// loopback port; it is stopped and removed when t ends.
func Start(t testing.TB) *Server { t.Helper(); return StartWith(t, Options{}) }

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		unavailable(t, err)
	}
	s := &Server{bin: bin, durable: o.Durable}
	if os.Geteuid() == 0 {
		if s.owner, err = user.Lookup("postgres"); err != nil {
			unavailable(t, fmt.Errorf("running as root, and there is no postgres OS user to run the server as: %v", err))
		}
	}
	root, err := os.MkdirTemp("", "paycli-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	s.data, s.socket, s.log = filepath.Join(root, "data"), filepath.Join(root, "run"), filepath.Join(root, "server.log")
	// Before the server exists: a watcher that stops it and removes root
	// if the test process dies without its cleanups (SIGKILL, a timeout).
	w, err := watch(s.data, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.done) // after Stop, registered below
	for _, d := range []string{s.socket} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if s.owner != nil {
		uid, _ := strconv.Atoi(s.owner.Uid)
		gid, _ := strconv.Atoi(s.owner.Gid)
		for _, p := range []string{root, s.socket} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	if o.MovableClock {
		lib, err := faketimeLib()
		if err != nil {
			unavailable(t, err)
		}
		s.clockFile = filepath.Join(root, "clock")
		if err := s.writeClock(0); err != nil {
			t.Fatal(err)
		}
		// Read at every clock reading: once MoveClock returns, every
		// session sees the new time.
		s.clockEnv = []string{"LD_PRELOAD=" + lib, "FAKETIME_TIMESTAMP_FILE=" + s.clockFile, "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"}
	}
	if err := s.copyCluster(); err != nil {
		t.Fatal(err)
	}
	s.port = ports.Reserve(t) // released after Stop, registered below
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// pristine is a cluster made by initdb once per test process, removed
// by its watcher when the process ends; every server starts from a copy
// of it, which costs a fifth of initdb's time.
var pristine struct {
	once  sync.Once
	data  string
	err   error
	watch *watcher // kept: its pipe's write end closes when the process ends
}

// copyCluster fills s.data with a copy of the pristine cluster, made
// first if this is the process's first server.
func (s *Server) copyCluster() error {
	pristine.once.Do(func() {
		root, err := os.MkdirTemp("", "paycli-pg-initdb-")
		if err != nil {
			pristine.err = err
			return
		}
		pristine.data = filepath.Join(root, "data")
		if pristine.watch, err = watch(pristine.data, root); err != nil {
			pristine.err = err
			return
		}
		if s.owner != nil {
			uid, _ := strconv.Atoi(s.owner.Uid)
			gid, _ := strconv.Atoi(s.owner.Gid)
			if err := os.Chown(root, uid, gid); err != nil {
				pristine.err = err
				return
			}
		}
		if out, err := s.run("initdb", "-D", pristine.data, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
			pristine.err = fmt.Errorf("initdb: %v\n%s", err, out)
		}
	})
	if pristine.err != nil {
		return pristine.err
	}
	// -a keeps the files' owner (the server's OS user) and modes (0700).
	if out, err := exec.Command("cp", "-a", pristine.data, s.data).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the initdb cluster: %v\n%s", err, out)
	}
	return nil
}

// run runs one of the server's programs as the server's OS user.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if name == "pg_ctl" {
		cmd.Env = append(cmd.Env, s.clockEnv...)
	}
	if s.owner != nil {
		uid, _ := strconv.Atoi(s.owner.Uid)
		gid, _ := strconv.Atoi(s.owner.Gid)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		cmd.Dir = "/"
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// Restart starts the server (again, after Stop or Kill) on the same port
// and data, and waits until it accepts connections.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", s.port, s.socket)
	if !s.durable {
		opts += " -c fsync=off"
	}
	if out, err := s.run("pg_ctl", "-D", s.data, "-l", s.log, "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(s.log)
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	s.running = true
	return nil
}

// Stop shuts the server down fast: sessions are ended and their
// advisory locks released, as when a database restarts.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	s.running = false
	if out, err := s.run("pg_ctl", "-D", s.data, "-m", "fast", "-w", "-t", "60", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Crash stops the server as a crash would (pg_ctl stop -m immediate: no
// shutdown checkpoint; recovery runs at the next start).
func (s *Server) Crash() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	s.running = false
	if out, err := s.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop -m immediate: %v\n%s", err, out)
	}
	return nil
}

// MoveClock moves the server's wall clock forward by d (it must have been
// started with MovableClock): clock_timestamp(), now() and every time the
// server stamps jump, as after an NTP step.
func (s *Server) MoveClock(d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clockFile == "" {
		return errors.New("pgtest: MoveClock on a server started without MovableClock")
	}
	if d < 0 {
		return errors.New("pgtest: MoveClock moves forward only")
	}
	return s.writeClock(s.moved + d)
}

// Moved is how far MoveClock has moved the server's clock.
func (s *Server) Moved() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moved
}

// writeClock writes the offset for libfaketime, whole seconds ("+140"),
// readable by the server's OS user; atomically, as the server reads it
// at every clock reading.
func (s *Server) writeClock(offset time.Duration) error {
	tmp := s.clockFile + ".new"
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%+d\n", int64(offset/time.Second)), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.clockFile); err != nil {
		return err
	}
	s.moved = offset.Truncate(time.Second)
	return nil
}

// Port is the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// URL is the postgres:// URL of database db as role (no password: the
// test cluster trusts loopback connections).
func (s *Server) URL(role, db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(role), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + db,
		RawQuery: "sslmode=disable"}
	return u.String()
}

// SuperuserURL is the URL of the postgres database as the superuser.
func (s *Server) SuperuserURL() string { return s.URL(Superuser, "postgres") }

// Exec runs SQL statements as the superuser through psql, each in its own
// transaction (CREATE DATABASE needs that), for setting up a test (roles,
// databases); it fails t on an error.
func (s *Server) Exec(t testing.TB, db string, statements ...string) {
	t.Helper()
	psql := filepath.Join(s.bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		if psql, err = exec.LookPath("psql"); err != nil {
			t.Fatalf("psql not found: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", s.URL(Superuser, db)}
	for _, st := range statements {
		args = append(args, "-c", st)
	}
	if out, err := exec.CommandContext(ctx, psql, args...).CombinedOutput(); err != nil {
		t.Fatalf("psql %q: %v\n%s", statements, err, strings.TrimSpace(string(out)))
	}
}

// Shared is one server for the tests of a package that need no restart:
// started by the first test that asks, stopped by Stop (from TestMain).
// Tests that stop or crash the server start their own with Start.
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
	stop func()
}

// Start returns the shared server, starting it on first use; t is skipped
// (or failed, see RequireEnv) when there is no PostgreSQL.
func (sh *Shared) Start(t testing.TB) *Server {
	t.Helper()
	sh.once.Do(func() {
		var cleanups []func()
		tb := &mainTB{cleanup: &cleanups}
		func() {
			defer func() {
				if r := recover(); r != nil && tb.err == nil {
					tb.err = fmt.Errorf("%v", r)
				}
			}()
			sh.srv = Start(tb)
		}()
		sh.err = tb.err
		sh.stop = func() {
			for i := len(cleanups) - 1; i >= 0; i-- {
				cleanups[i]()
			}
		}
	})
	if sh.err != nil {
		var skip skipError
		if errors.As(sh.err, &skip) {
			unavailable(t, skip.err)
		}
		t.Fatal(sh.err)
	}
	return sh.srv
}

// Stop stops the shared server if it was started.
func (sh *Shared) Stop() {
	if sh.stop != nil {
		sh.stop()
	}
}

// mainTB is the testing.TB Start runs on for a shared server: it keeps
// the cleanups for Stop and turns a skip or a failure into an error.
type mainTB struct {
	testing.TB
	cleanup *[]func()
	err     error
}

type skipError struct{ err error }

func (e skipError) Error() string { return e.err.Error() }

func (m *mainTB) Helper()          {}
func (m *mainTB) Cleanup(f func()) { *m.cleanup = append(*m.cleanup, f) }
func (m *mainTB) Skipf(f string, a ...any) {
	m.err = skipError{fmt.Errorf(f, a...)}
	panic(m.err)
}
func (m *mainTB) Fatal(a ...any) { m.err = errors.New(fmt.Sprint(a...)); panic(m.err) }
func (m *mainTB) Fatalf(f string, a ...any) {
	m.err = fmt.Errorf(f, a...)
	panic(m.err)
}

// Database creates a database owned by owner (a role created if missing,
// with LOGIN: OwnerRole) with a name unique to t, and returns its name.
func (s *Server) Database(t testing.TB, owner string) string {
	t.Helper()
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("test_%d", s.dbs)
	s.mu.Unlock()
	s.OwnerRole(t, owner)
	s.Exec(t, "postgres", fmt.Sprintf("CREATE DATABASE %s OWNER %s", name, quoteIdent(owner)))
	return name
}

// Role creates a LOGIN role if the cluster has none of that name. Roles
// belong to the whole cluster: parallel tests creating the same one take
// turns, else both see none and one CREATE ROLE fails.
func (s *Server) Role(t testing.TB, name string) {
	t.Helper()
	s.roleMu.Lock()
	defer s.roleMu.Unlock()
	s.Exec(t, "postgres", fmt.Sprintf(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) THEN CREATE ROLE %s LOGIN; END IF; END $$`,
		quoteLiteral(name), quoteIdent(name)))
}

// OwnerRole is Role for a database's owner, which may also create roles
// (CREATEROLE): the journal's schema step 5 creates the desk lead's role,
// paycli_lead, as a desk's owner with that right does. Operators' roles
// (Role) have no such right.
func (s *Server) OwnerRole(t testing.TB, name string) {
	t.Helper()
	if name == Superuser {
		return
	}
	s.roleMu.Lock() // ALTER ROLE at once from two sessions: "tuple concurrently updated"
	defer s.roleMu.Unlock()
	s.Exec(t, "postgres", fmt.Sprintf(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) THEN CREATE ROLE %s LOGIN; END IF; END $$;
ALTER ROLE %s CREATEROLE`, quoteLiteral(name), quoteIdent(name), quoteIdent(name)))
}

func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// RequirePassword makes role log in over TCP with password only (SCRAM),
// as a production server asks, leaving every other role trusted: for
// tests of a refused login. It returns once the server asks it.
func (s *Server) RequirePassword(t testing.TB, role, password string) {
	t.Helper()
	s.Role(t, role)
	s.Exec(t, "postgres", fmt.Sprintf("ALTER ROLE %s PASSWORD %s", quoteIdent(role), quoteLiteral(password)))
	hba := filepath.Join(s.data, "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("host all %s 127.0.0.1/32 scram-sha-256\n", quoteIdent(role))
	if err := os.WriteFile(hba, append([]byte(line), old...), 0o600); err != nil {
		t.Fatal(err)
	}
	if s.owner != nil {
		uid, _ := strconv.Atoi(s.owner.Uid)
		gid, _ := strconv.Atoi(s.owner.Gid)
		_ = os.Chown(hba, uid, gid)
	}
	if out, err := s.run("pg_ctl", "-D", s.data, "reload"); err != nil {
		t.Fatalf("pg_ctl reload: %v\n%s", err, out)
	}
	// The postmaster reads the file when the signal reaches it: wait
	// until a login without the password is refused.
	psql := filepath.Join(s.bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		if psql, err = exec.LookPath("psql"); err != nil {
			t.Fatalf("psql not found: %v", err)
		}
	}
	for range 200 {
		cmd := exec.Command(psql, "-X", "-w", "-d", s.URL(role, "postgres"), "-c", "SELECT 1")
		cmd.Env = append(os.Environ(), "PGPASSWORD=")
		if out, err := cmd.CombinedOutput(); err != nil && strings.Contains(string(out), "password") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server still lets %s in without a password", role)
}

// MoreParallel lets up to n tests that call t.Parallel run at once, when
// the command line does not say (-parallel): for TestMain, before m.Run.
// go test's default is the number of CPUs, but tests of a database spend
// most of their time waiting on its server and on each other's
// processes, not on a CPU.
func MoreParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
