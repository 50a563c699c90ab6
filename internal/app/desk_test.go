//go:build unix

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// desk is a support desk sharing one journal on a real PostgreSQL: one
// sandbox (one gateway account) that counts every request it gets and can
// hold refunds at its gate, and operators who are real paycli processes
// with homes and database roles of their own.
type desk struct {
	*refundSandbox // the sandbox: its gate, its counters
	srv            *pgtest.Server
	db             string
	// requests counts every request that reached the sandbox.
	requests atomic.Int32
	// sent counts the refund requests that reached the sandbox by their
	// refund_transaction_id.
	sentMu sync.Mutex
	sent   map[string]int
}

// resent lists the refund_transaction_ids the sandbox received more than
// once.
func (d *desk) resent() []string {
	d.sentMu.Lock()
	defer d.sentMu.Unlock()
	var ids []string
	for id, n := range d.sent {
		if n > 1 {
			ids = append(ids, fmt.Sprintf("%s (%d times)", id, n))
		}
	}
	return ids
}

// deskOwner is the role that owns the desk's database and runs
// `paycli journal init`.
const deskOwner = "desk_admin"

// deskPostgres is the package's shared PostgreSQL server, for desks whose
// tests never stop, crash or hang it (a database each); StopSharedPostgres
// (from TestMain) stops it.
var deskPostgres pgtest.Shared

// StopSharedPostgres stops the server shared by the package's tests.
func StopSharedPostgres() { deskPostgres.Stop() }

// newDesk starts a PostgreSQL server of its own (tests stop and crash
// it), a database owned by deskOwner, and a sandbox. Operators are added
// with desk.operator.
func newDesk(t *testing.T) *desk {
	t.Helper()
	return newDeskOn(t, pgtest.Start(t))
}

// newSharedDesk is newDesk on the package's shared server, for a test
// that leaves the server running.
func newSharedDesk(t *testing.T) *desk {
	t.Helper()
	return newDeskOn(t, deskPostgres.Start(t))
}

func newDeskOn(t *testing.T, srv *pgtest.Server) *desk {
	t.Helper()
	d := &desk{srv: srv, sent: map[string]int{}}
	d.db = d.srv.Database(t, deskOwner)
	d.refundSandbox = &refundSandbox{home: t.TempDir(), gatedPaths: []string{"/api/refund"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	count := func(h http.Handler) http.Handler {
		h = d.gated(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d.requests.Add(1)
			if strings.HasSuffix(r.URL.Path, "/api/refund") {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var refund struct {
					ID string `json:"refund_transaction_id"`
				}
				_ = json.Unmarshal(body, &refund)
				d.sentMu.Lock()
				d.sent[refund.ID]++
				d.sentMu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	}
	sb, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: t.TempDir(), Wrap: count, Gateway: sandbox.Options{Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Shutdown(context.Background()) })
	d.baseURL = sb.BaseURL
	return d
}

// operator is a desk member: role's own home, config and state, and the
// shared journal as role (granted by `paycli journal init --grant`, run as
// the owner). password, when set, goes into the journal URL (the test
// cluster trusts loopback and ignores it).
func (d *desk) operator(t *testing.T, role, password string) *refundSandbox {
	t.Helper()
	d.srv.Role(t, role)
	if code, stdout, stderr := d.exec(t, "journal", "init", "--url", d.srv.URL(deskOwner, d.db), "--grant", role); code != ExitOK {
		t.Fatalf("journal init --grant %s: exit %d\n%s\n%s", role, code, stdout, stderr)
	}
	url := d.srv.URL(role, d.db)
	if password != "" {
		url = strings.Replace(url, role+"@", role+":"+password+"@", 1)
	}
	return &refundSandbox{baseURL: d.baseURL, home: t.TempDir(), journalURL: url}
}

// sale makes a sale of invoice at the sandbox, as a buyer would.
func (d *desk) sale(t *testing.T, invoice, amount string) {
	t.Helper()
	sandboxSale(t, d.baseURL, sandboxcmd.PayOptions{Invoice: invoice, Amount: decimal.RequireFromString(amount)})
}

// lines are the shared journal's lines of invoice, oldest first, read as
// the owner: type and outcome, and the operator the database recorded.
func (d *desk) lines(t *testing.T, invoice string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), d.srv.URL(deskOwner, d.db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), "SELECT type, outcome, operator FROM paycli.journal_lines WHERE invoice = $1 ORDER BY seq", invoice)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var typ, outcome, operator string
		if err := rows.Scan(&typ, &outcome, &operator); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSuffix(typ+" "+outcome, " ")+" by "+operator)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// exec runs the real paycli (the test binary standing in for it) in rs's
// home and waits for it; a run that takes a minute is killed.
func (rs *refundSandbox) exec(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := rs.command(t, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	default:
		t.Fatalf("paycli %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errOut.String()
}

// hostname is this machine's name, as the operators' commands give it.
func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDeskSharesInvoiceLocksAcrossOperators (issue 26): two operators with
// homes and roles of their own share one journal on PostgreSQL.
//
//   - While ayşe's refund is held at the gateway, mehmet's refund of the
//     same invoice is refused at once (exit 6), naming her command, pid,
//     since when and role@host; another invoice is free.
//   - Her process is killed (SIGKILL) with the request gone: the outcome
//     is unknown, and mehmet's refund is refused (exit 2) with the
//     commands that settle it.
//   - Once the gateway has made it, mehmet's `journal reconcile` settles
//     it as made, and his refund goes ahead; another of hers, killed the
//     same way, is settled by her `paycli status`.
//   - The sandbox holds exactly the two refunds that were meant.
func TestDeskSharesInvoiceLocksAcrossOperators(t *testing.T) {
	t.Parallel()
	d := newSharedDesk(t)
	ayse, mehmet := d.operator(t, "ayse", ""), d.operator(t, "mehmet", "")
	d.sale(t, "DK-1", "150.00")
	d.sale(t, "DK-2", "150.00")
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	gate := func(n int32) {
		if n == 1 {
			arrived <- struct{}{}
			<-release
		}
	}
	d.gate.Store(&gate)
	var released atomic.Bool
	releaseOnce := func() {
		if released.CompareAndSwap(false, true) {
			close(release)
		}
	}
	defer releaseOnce()

	// 10s: longer than mehmet's two commands below take on a busy machine,
	// so that her refund is still in flight when it is killed.
	held := ayse.start(t, "refund", "--invoice", "DK-1", "--amount", "10.00", "--yes", "--timeout", "10s")
	waitFor(t, arrived, "ayşe's refund to reach the gateway")
	code, _, stderr := mehmet.exec(t, "refund", "--invoice", "DK-1", "--amount", "20.00", "--yes")
	want := fmt.Sprintf("a refund on invoice DK-1 is in flight in pid %d since ", held.Process.Pid)
	if code != ExitDuplicate || !strings.Contains(stderr, want) || !strings.Contains(stderr, "(ayse@"+hostname(t)+")") {
		t.Errorf("mehmet's refund while ayşe's is in flight: exit %d, want 6 with %q (ayse@host)\n%s", code, want, stderr)
	}
	if code, _, stderr := mehmet.exec(t, "refund", "--invoice", "DK-2", "--amount", "5.00", "--yes"); code != ExitOK {
		t.Errorf("mehmet's refund of another invoice: exit %d\n%s", code, stderr)
	}

	if err := held.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = held.Wait()
	if got := d.lines(t, "DK-1"); strings.Join(got, ", ") != "intent by ayse" {
		t.Fatalf("the shared journal after the kill: %q, want ayşe's intent alone", got)
	}
	code, _, stderr = mehmet.exec(t, "refund", "--invoice", "DK-1", "--amount", "20.00", "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") || !strings.Contains(stderr, "paycli refund --retry RF") {
		t.Errorf("mehmet's refund after ayşe's was killed: exit %d, want 2 naming --retry\n%s", code, stderr)
	}

	releaseOnce()
	d.refunded(t, "DK-1", "10")
	// Her intent's time limit (10s) must be over before reconcile trusts
	// the gateway's answer about a refund that may still be on its way.
	var out string
	for range 100 {
		code, out, stderr = mehmet.exec(t, "journal", "reconcile")
		if code == ExitOK {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code != ExitOK {
		t.Fatalf("mehmet's journal reconcile: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := d.lines(t, "DK-1"); strings.Join(got, ", ") != "intent by ayse, reconcile succeeded by mehmet" {
		t.Errorf("the shared journal after reconcile: %q", got)
	}
	if code, _, stderr := mehmet.exec(t, "refund", "--invoice", "DK-1", "--amount", "20.00", "--yes"); code != ExitOK {
		t.Errorf("mehmet's refund once settled: exit %d\n%s", code, stderr)
	}

	// Her own refund of DK-2, killed the same way, is settled by her
	// `paycli status` once the gateway has made it.
	arrived2, release2 := make(chan struct{}, 1), make(chan struct{})
	held2Nth := d.arrived.Load() + 1
	gate2 := func(n int32) {
		if n == held2Nth {
			arrived2 <- struct{}{}
			<-release2
		}
	}
	d.gate.Store(&gate2)
	held2 := ayse.start(t, "refund", "--invoice", "DK-2", "--amount", "7.00", "--yes", "--timeout", "2s")
	waitFor(t, arrived2, "ayşe's second refund to reach the gateway")
	if err := held2.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = held2.Wait()
	close(release2)
	d.refunded(t, "DK-2", "12")
	if code, _, stderr := ayse.exec(t, "status", "--invoice", "DK-2"); code != ExitOK || !strings.Contains(stderr, "Recorded in the journal: refund RF") {
		t.Errorf("ayşe's status of DK-2: exit %d, want its refund recorded\n%s", code, stderr)
	}
	if got := d.lines(t, "DK-2"); strings.Join(got, ", ") != "intent by mehmet, outcome succeeded by mehmet, intent by ayse, reconcile succeeded by ayse" {
		t.Errorf("the shared journal of DK-2: %q", got)
	}

	for invoice, want := range map[string][]string{"DK-1": {"10", "20"}, "DK-2": {"5", "7"}} {
		total, refunds := d.status(t, invoice)
		var amounts []string
		for _, r := range refunds {
			amounts = append(amounts, fmt.Sprint(r["amount"]))
		}
		if len(refunds) != len(want) {
			t.Errorf("%s: the sandbox holds refunds %v (total %s), want %v", invoice, amounts, total, want)
		}
	}
	if n := d.arrived.Load(); n != 4 {
		t.Errorf("%d refund requests reached the gateway, want 4", n)
	}
}

// TestDeskDatabaseDownSendsNothing (issue 26): with the shared journal's
// database down (stopped, or crashed) a payment and a refund are refused
// before anything reaches the gateway: exit 8, an error naming the
// journal with its password masked, and advice about its database (not
// the gateway's base_url).
func TestDeskDatabaseDownSendsNothing(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	ayse := d.operator(t, "ayse", "s3cret-pw")
	d.sale(t, "DD-1", "150.00")
	for _, down := range []struct {
		name string
		stop func() error
	}{{"stopped", d.srv.Stop}, {"crashed", d.srv.Crash}} {
		t.Run(down.name, func(t *testing.T) {
			if err := down.stop(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := d.srv.Restart(); err != nil {
					t.Fatal(err)
				}
			})
			before := d.requests.Load()
			for _, args := range [][]string{
				{"refund", "--invoice", "DD-1", "--amount", "10.00", "--yes"},
				{"walletpay", "--invoice", "DD-2", "--token", sandboxWalletToken(t, "30.00"), "--name", "Ada", "--surname", "Lovelace",
					"--email", "ada@example.com", "--yes"},
			} {
				code, stdout, stderr := ayse.exec(t, args...)
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if code != ExitUnavailable || stdout != "" || len(lines) != 2 || strings.Contains(stderr, "s3cret-pw") ||
					!strings.Contains(lines[0], "nothing was sent") ||
					!strings.Contains(lines[0], fmt.Sprintf("the shared journal at postgres://xxxxx@127.0.0.1:%d/%s", d.srv.Port(), d.db)) ||
					!strings.Contains(lines[1], "shared journal's database") {
					t.Errorf("%s with the database %s: exit %d, want 8, the error naming the journal (password masked) and advice about its database\nstdout: %s\nstderr: %s",
						args[0], down.name, code, stdout, stderr)
				}
			}
			if n := d.requests.Load() - before; n != 0 {
				t.Errorf("%d requests reached the gateway with the journal down, want none", n)
			}
		})
	}
}

// TestDeskOutcomeSpooledWhileDatabaseDown (issue 26): the database goes
// down after ayşe's refund intent was committed and while the gateway
// makes it. Her command still reports the refund made (exit 0) and keeps
// the outcome in her spool; meanwhile the shared journal shows the refund
// unsettled, and mehmet may not refund the invoice; her next command
// writes the outcome, and nothing is lost.
func TestDeskOutcomeSpooledWhileDatabaseDown(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	ayse, mehmet := d.operator(t, "ayse", ""), d.operator(t, "mehmet", "")
	d.sale(t, "DS-1", "150.00")
	var stopErr error
	gate := func(n int32) {
		if n == 1 {
			stopErr = d.srv.Stop()
		}
	}
	d.gate.Store(&gate)
	code, stdout, stderr := ayse.exec(t, "refund", "--invoice", "DS-1", "--amount", "10.00", "--yes", "-o", "json")
	d.gate.Store(nil)
	if stopErr != nil {
		t.Fatal(stopErr)
	}
	if code != ExitOK || !strings.Contains(stdout, `"refund_transaction_id"`) {
		t.Fatalf("ayşe's refund with the database gone mid-flight: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	// The spool is named by the database's identity (not the URL).
	spools, _ := filepath.Glob(filepath.Join(ayse.home, "state", "paycli", "journal-spool-db-*.jsonl"))
	if len(spools) != 1 {
		t.Fatalf("ayşe's spools: %q, want one", spools)
	}
	spool := spools[0]
	spooled, _, err := journal.Entries(spool)
	if err != nil || len(spooled) != 1 || spooled[0].Type != journal.TypeOutcome || spooled[0].Outcome != journal.Succeeded {
		t.Fatalf("ayşe's spool: %+v, %v; want the refund's outcome", spooled, err)
	}
	if err := d.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := d.lines(t, "DS-1"); strings.Join(got, ", ") != "intent by ayse" {
		t.Errorf("the shared journal before ayşe's next command: %q", got)
	}
	code, _, stderr = mehmet.exec(t, "refund", "--invoice", "DS-1", "--amount", "20.00", "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "has a refund whose outcome is unknown") {
		t.Errorf("mehmet's refund while ayşe's outcome is in her spool: exit %d, want 2\n%s", code, stderr)
	}
	if code, _, stderr := ayse.exec(t, "status", "--invoice", "DS-1"); code != ExitOK {
		t.Errorf("ayşe's next command: exit %d\n%s", code, stderr)
	}
	if got := d.lines(t, "DS-1"); strings.Join(got, ", ") != "intent by ayse, outcome succeeded by ayse" {
		t.Errorf("the shared journal after ayşe's next command: %q", got)
	}
	if left, _ := filepath.Glob(spool + "*"); len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
	if code, _, stderr := mehmet.exec(t, "refund", "--invoice", "DS-1", "--amount", "20.00", "--yes"); code != ExitOK {
		t.Errorf("mehmet's refund once the outcome is written: exit %d\n%s", code, stderr)
	}
	if total, refunds := d.status(t, "DS-1"); !total.Equal(decimal.RequireFromString("30")) || len(refunds) != 2 {
		t.Errorf("the sandbox shows %s refunded in %d refunds, want 30 in 2", total, len(refunds))
	}
}

// decodeJSON decodes s into v, failing t.
func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
}

// TestDeskSpoolBelongsToItsDatabase: an outcome spooled for one shared
// journal is written into that journal, never into another database the
// same operator's next command uses (another profile's desk).
func TestDeskSpoolBelongsToItsDatabase(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	ayse := d.operator(t, "ayse", "")
	other := d.srv.Database(t, deskOwner)
	if code, stdout, stderr := d.exec(t, "journal", "init", "--url", d.srv.URL(deskOwner, other), "--grant", "ayse"); code != ExitOK {
		t.Fatalf("journal init of the other desk: exit %d\n%s\n%s", code, stdout, stderr)
	}
	d.sale(t, "DS-2", "150.00")
	var stopErr error
	gate := func(n int32) {
		if n == 1 {
			stopErr = d.srv.Stop()
		}
	}
	d.gate.Store(&gate)
	code, _, stderr := ayse.exec(t, "refund", "--invoice", "DS-2", "--amount", "10.00", "--yes")
	d.gate.Store(nil)
	if stopErr != nil {
		t.Fatal(stopErr)
	}
	if code != ExitOK {
		t.Fatalf("ayşe's refund with the database gone mid-flight: exit %d\n%s", code, stderr)
	}
	if err := d.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	atOther := &refundSandbox{baseURL: d.baseURL, home: ayse.home, journalURL: d.srv.URL("ayse", other)}
	if code, _, stderr := atOther.exec(t, "journal"); code != ExitOK {
		t.Fatalf("ayşe's listing of the other desk: exit %d\n%s", code, stderr)
	}
	conn, err := pgx.Connect(context.Background(), d.srv.URL(deskOwner, other))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var foreign int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM paycli.journal_lines").Scan(&foreign); err != nil || foreign != 0 {
		t.Errorf("the other desk's journal took %d lines (%v), want none", foreign, err)
	}
	if code, _, stderr := ayse.exec(t, "status", "--invoice", "DS-2"); code != ExitOK {
		t.Errorf("ayşe's next command on her desk: exit %d\n%s", code, stderr)
	}
	if got := d.lines(t, "DS-2"); strings.Join(got, ", ") != "intent by ayse, outcome succeeded by ayse" {
		t.Errorf("her desk's journal after her next command there: %q", got)
	}
}
