package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/ports"
	"github.com/paycli/paycli/internal/testkit/tiedproc"
)

// PoolerRequireEnv makes a missing PgBouncer a test failure rather than a
// skip (.ci/run sets it, as it sets RequireEnv).
const PoolerRequireEnv = "PAYCLI_REQUIRE_PGBOUNCER"

// PoolMode is PgBouncer's pool_mode: when a server connection goes back to
// the pool for another client.
type PoolMode string

const (
	// PoolSession: when the client disconnects.
	PoolSession PoolMode = "session"
	// PoolTransaction: at the end of each transaction.
	PoolTransaction PoolMode = "transaction"
	// PoolStatement: after each statement (transaction blocks refused).
	PoolStatement PoolMode = "statement"
)

// PoolerOption sets one more of PgBouncer's settings for Server.Pooler.
type PoolerOption func(*poolerSettings)

type poolerSettings struct {
	roundRobin bool
}

// RoundRobin hands idle server connections out in turn, the one idle
// longest first (server_round_robin = 1), where PgBouncer's default reuses
// the one idle last first.
func RoundRobin() PoolerOption { return func(s *poolerSettings) { s.roundRobin = true } }

// Pooler is a PgBouncer started for a test in front of a Server.
type Pooler struct {
	port int
	mode PoolMode
	log  string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Pooler starts Debian's pgbouncer in front of s, in mode, on a reserved
// loopback port (internal/testkit/ports); it is killed when t ends (and, on Linux, when the test
// process dies). It logs every role in as itself without a password, as
// the server does: it asks the server who exists (auth_query as the
// superuser), so roles a test creates later are let in too. Without
// pgbouncer t is skipped (or failed, under PoolerRequireEnv=1). opts set
// more of its settings (RoundRobin).
func (s *Server) Pooler(t testing.TB, mode PoolMode, opts ...PoolerOption) *Pooler {
	t.Helper()
	var set poolerSettings
	for _, o := range opts {
		o(&set)
	}
	roundRobin := 0
	if set.roundRobin {
		roundRobin = 1
	}
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if os.Getenv(PoolerRequireEnv) == "1" {
			t.Fatalf("PgBouncer is required here (%s=1): %v", PoolerRequireEnv, err)
		}
		t.Skipf("skipped: no pgbouncer on PATH: install Debian's pgbouncer package (apt-get install pgbouncer): %v", err)
	}
	dir, err := os.MkdirTemp("", "paycli-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	port := ports.Reserve(t)
	p := &Pooler{port: port, mode: mode, log: filepath.Join(dir, "pgbouncer.log")}
	users := filepath.Join(dir, "users.txt")
	ini := filepath.Join(dir, "pgbouncer.ini")
	// Large pools: a test's operators each hold a few connections for
	// their life in session mode; in transaction mode the pool is shared
	// all the same (a server connection idle is reused first).
	conf := fmt.Sprintf(`[databases]
* = host=127.0.0.1 port=%d
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
pool_mode = %s
auth_type = trust
auth_file = %s
auth_user = %s
max_client_conn = 1000
default_pool_size = 150
max_db_connections = 150
ignore_startup_parameters = extra_float_digits
server_round_robin = %d
`, s.port, port, mode, users, Superuser, roundRobin)
	for name, text := range map[string]string{users: fmt.Sprintf("%q \"\"\n", Superuser), ini: conf} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, ini)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if s.owner != nil { // pgbouncer refuses to run as root
		uid, _ := strconv.Atoi(s.owner.Uid)
		gid, _ := strconv.Atoi(s.owner.Gid)
		for _, f := range []string{dir, users, ini, p.log} {
			if err := os.Chown(f, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		cmd.Dir = "/"
	}
	if err := tiedproc.Start(cmd); err != nil {
		t.Fatalf("pgbouncer: %v", err)
	}
	p.cmd = cmd
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { p.Kill(); <-exited })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("pgbouncer exited at start:\n%s", p.Log())
		case <-ctx.Done():
			t.Fatalf("pgbouncer did not listen on port %d within 30s:\n%s", port, p.Log())
		case <-pause(20 * time.Millisecond):
		}
	}
	return p
}

// pause is a channel closed after d: a timer, not a read of the clock.
func pause(d time.Duration) <-chan time.Time { return time.NewTimer(d).C }

// Kill stops the pooler at once (SIGKILL): its clients' connections end.
func (p *Pooler) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// Mode is the pooler's pool_mode.
func (p *Pooler) Mode() PoolMode { return p.mode }

// Port is the pooler's TCP port on 127.0.0.1.
func (p *Pooler) Port() int { return p.port }

// URL is the postgres:// URL of database db as role through the pooler.
func (p *Pooler) URL(role, db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(role), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)), Path: "/" + db,
		RawQuery: "sslmode=disable"}
	return u.String()
}

// Log is what pgbouncer logged so far, for a failing test's message.
func (p *Pooler) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(bytes.TrimSpace(b))
}
