//go:build unix

package app

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/pause"
)

// The chaos test's seed and length: PAYCLI_DESK_CHAOS_SEED replays a run's
// choices (which invoices, which processes are killed and when, when the
// database crashes), given the same scheduling; PAYCLI_DESK_CHAOS_DURATION
// (a Go duration) runs it longer than CI's few seconds.
const (
	deskChaosSeedEnv     = "PAYCLI_DESK_CHAOS_SEED"
	deskChaosDurationEnv = "PAYCLI_DESK_CHAOS_DURATION"
)

// chaosRun is what the operators' processes of a chaos run did.
type chaosRun struct {
	mu     sync.Mutex
	runs   int
	killed int
	exits  map[int]int
	// reconciles counts the desk lead's reconciles during the run.
	reconciles int
}

func (c *chaosRun) record(code int, killed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs++
	if killed {
		c.killed++
		return
	}
	c.exits[code]++
}

// TestDeskChaos (issue 26): operators run refund batches (and the first,
// now and then, `journal reconcile`) over one pool of
// meant refunds (several of each invoice, each with its id) against one
// shared journal while their processes are killed
// (SIGKILL) at random moments, some with a refund in flight at the
// gateway, and the database crashes and restarts mid-batch. Afterwards,
// once each operator's next command has written its spool and `journal
// reconcile` has settled the unknown outcomes against the sandbox:
//
//   - every attempt in the journal has an outcome, and no spool is left;
//   - every refund request that reached the sandbox has its intent, and
//     none reached it twice (by refund_transaction_id): no double send;
//   - the refunds the sandbox holds are, id for id, the ones the journal
//     shows made: nothing made that the journal does not know, nothing
//     the journal calls made that was not.
func TestDeskChaos(t *testing.T) {
	t.Parallel()
	seed := uint64(26)
	if s := os.Getenv(deskChaosSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", deskChaosSeedEnv, s, err)
		}
	}
	duration := 6 * time.Second
	if s := os.Getenv(deskChaosDurationEnv); s != "" {
		var err error
		if duration, err = time.ParseDuration(s); err != nil {
			t.Fatalf("%s=%q: %v", deskChaosDurationEnv, s, err)
		}
	}
	const operators, pool, perInvoice, crashes = 8, 40, 12, 2
	t.Logf("chaos seed %d (%s=%d replays it), %s of batches by %d operators over %d refunds of %d invoices, %d database crashes",
		seed, deskChaosSeedEnv, seed, duration, operators, pool*perInvoice, pool, crashes)

	d := newDesk(t)
	ops := d.operators(t, operators)
	invoices := make([]string, pool)
	var meant []string // batch lines: 12 refunds of 10.00 of each 150.00 sale
	for i := range invoices {
		invoices[i] = fmt.Sprintf("DC-%03d", i+1)
		d.sale(t, invoices[i], "150.00")
		for k := range perInvoice {
			meant = append(meant, fmt.Sprintf(`{"invoice":%q,"amount":"10.00","id":"%s-%02d"}`, invoices[i], invoices[i], k+1))
		}
	}
	// The gateway takes a moment over each refund, so that some kills
	// land while one is in flight.
	gate := func(int32) { _ = pause.For(context.Background(), 20*time.Millisecond) }
	d.gate.Store(&gate)

	run := &chaosRun{exits: map[int]int{}}
	start := time.Now()
	deadline := start.Add(duration)
	var wg sync.WaitGroup
	for i, op := range ops {
		rng := rand.New(rand.NewPCG(seed, uint64(i+1)))
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				if i == 0 && n%5 == 4 {
					// The desk lead settles what it can meanwhile.
					code, stdout, stderr := op.exec(t, "journal", "reconcile")
					if code != ExitOK && code != ExitOutcomeUnknown && code != ExitUnavailable {
						t.Errorf("journal reconcile during the chaos: exit %d\n%s\n%s", code, stdout, stderr)
					}
					run.reconciles++
					continue
				}
				code, killed := chaosBatch(t, op, rng, meant, n)
				run.record(code, killed)
				if code == ExitUnavailable {
					_ = pause.For(context.Background(), 50*time.Millisecond) // the database is down
				}
			}
		})
	}
	dbRng := rand.New(rand.NewPCG(seed, 0))
	for i := range crashes {
		at := start.Add(duration * time.Duration(i+1) / (crashes + 1)).Add(time.Duration(dbRng.IntN(400)) * time.Millisecond)
		_ = pause.For(context.Background(), time.Until(at))
		if err := d.srv.Crash(); err != nil {
			t.Fatal(err)
		}
		_ = pause.For(context.Background(), time.Duration(100+dbRng.IntN(500))*time.Millisecond)
		if err := d.srv.Restart(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	d.gate.Store(nil)

	for code := range run.exits {
		if !slices.Contains([]int{ExitOK, ExitDuplicate, ExitOutcomeUnknown, ExitUnavailable}, code) {
			t.Errorf("%d batches exited %d", run.exits[code], code)
		}
	}
	before := d.attempts(t)
	unknown := 0
	for _, a := range before {
		if a.outcome == "" {
			unknown++
		}
	}

	// Each operator's next command writes their spool; reconcile then
	// settles what the kills left unknown, once the time limit (--timeout)
	// of every attempt is over.
	for _, op := range ops {
		if code, _, stderr := op.exec(t, "journal", "reconcile", "--dry-run"); code != ExitOK {
			t.Fatalf("journal reconcile --dry-run: exit %d\n%s", code, stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(op.home, "state", "paycli", "journal-spool*")); len(left) != 0 {
			t.Errorf("spool files left after the next command: %v", left)
		}
	}
	// Reconcile settles what check status names now; an answer that does
	// not name the attempt, once the journal's intents are aged past their
	// time limit and journal.InFlightMargin.
	code, stdout, stderr := ops[0].exec(t, "journal", "reconcile")
	if code != ExitOK && code != ExitOutcomeUnknown {
		t.Fatalf("journal reconcile: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code != ExitOK {
		d.age(t, 10*time.Minute)
		code, stdout, stderr = ops[0].exec(t, "journal", "reconcile")
		if code != ExitOK && code != ExitOutcomeUnknown {
			t.Fatalf("journal reconcile once every request is over: exit %d\n%s\n%s", code, stdout, stderr)
		}
	}
	// A refund killed before it reached the gateway is not found by check
	// status, which settles nothing however long ago it was: the desk
	// re-sends its own ref (the gateway makes a ref once), as reconcile
	// says, and that answer settles it.
	if code != ExitOK {
		for _, a := range d.attempts(t) {
			if a.outcome != "" && a.outcome != "unknown" {
				continue
			}
			if rc, out, errOut := ops[0].exec(t, "refund", "--retry", a.ref, "--yes"); rc != ExitOK {
				t.Fatalf("refund --retry %s: exit %d\n%s\n%s", a.ref, rc, out, errOut)
			}
		}
		if code, stdout, stderr := ops[0].exec(t, "journal", "reconcile"); code != ExitOK {
			t.Fatalf("journal reconcile after the re-sends: exit %d\n%s\n%s", code, stdout, stderr)
		}
	}

	after := d.attempts(t)
	// A killed attempt whose ref a re-send made is settled by that answer.
	resentMade := map[string]bool{}
	for _, a := range after {
		if a.outcome == "succeeded" {
			resentMade[a.invoice+"\x00"+a.ref] = true
		}
	}
	made := map[string][]string{}
	settled := map[string]int{}
	for _, a := range after {
		settled[a.outcome]++
		switch a.outcome {
		case "", "unknown", "pending":
			if resentMade[a.invoice+"\x00"+a.ref] {
				settled["re-sent"]++
				continue
			}
			t.Errorf("attempt %s (refund %s of %s by %s) is left %q", a.attempt, a.ref, a.invoice, a.operator, a.outcome)
		case "succeeded":
			made[a.invoice] = append(made[a.invoice], a.ref)
		}
	}
	if n := int(d.arrived.Load()); n > len(after) {
		t.Errorf("%d refund requests reached the sandbox, but the journal holds %d intents", n, len(after))
	}
	if again := d.resent(); len(again) != 0 {
		t.Errorf("refunds sent more than once: %v", again)
	}
	refunded := 0
	for _, inv := range invoices {
		_, refunds := d.status(t, inv)
		var ids []string
		for _, r := range refunds {
			ids = append(ids, fmt.Sprint(r["refund_transaction_id"]))
		}
		sort.Strings(ids)
		sort.Strings(made[inv])
		if !slices.Equal(ids, made[inv]) {
			t.Errorf("%s: the sandbox holds refunds %v, the journal shows %v made", inv, ids, made[inv])
		}
		refunded += len(ids)
	}
	t.Logf("%d batch processes in %s, %d killed, exits %v, %d reconciles meanwhile; %d attempts, %d without an outcome at the end; settled %v; %d of %d meant refunds made",
		run.runs, duration, run.killed, run.exits, run.reconciles, len(after), unknown, settled, refunded, pool*perInvoice)
}

// chaosBatch runs one refund batch of op of a few of the meant lines,
// killed with SIGKILL at a random moment one time in three, and returns
// its exit code, or killed.
func chaosBatch(t *testing.T, op *refundSandbox, rng *rand.Rand, meant []string, n int) (code int, killed bool) {
	t.Helper()
	var lines strings.Builder
	for _, i := range rng.Perm(len(meant))[:3+rng.IntN(4)] {
		lines.WriteString(meant[i] + "\n")
	}
	file := filepath.Join(op.home, fmt.Sprintf("batch-%d.jsonl", n))
	if err := os.WriteFile(file, []byte(lines.String()), 0o600); err != nil {
		t.Error(err)
		return 0, false
	}
	cmd := op.command(t, "refund", "--batch", file, "--yes", "--parallel", "2", "--timeout", "3s")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return 0, false
	}
	if rng.IntN(3) == 0 {
		kill := time.AfterFunc(time.Duration(rng.IntN(300))*time.Millisecond, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		defer kill.Stop()
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return ExitOK, false
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 0, true
		}
		if c := exitErr.ExitCode(); !slices.Contains([]int{ExitDuplicate, ExitOutcomeUnknown, ExitUnavailable}, c) {
			t.Errorf("a batch exited %d:\n%s%s", c, stdout.String(), stderr.String())
		}
		return exitErr.ExitCode(), false
	}
	t.Error(err)
	return 0, false
}

// age moves the time and deadline of every intent in the shared journal
// back by ago, as if its attempts had been made that much earlier: their
// requests are then long over. History is append-only, so the
// superuser lifts the trigger that says so for the while.
func (d *desk) age(t *testing.T, ago time.Duration) {
	t.Helper()
	shift := fmt.Sprintf("interval '%d seconds'", int(ago.Seconds()))
	d.srv.Exec(t, d.db, `BEGIN;
ALTER TABLE paycli.journal_lines DISABLE TRIGGER journal_lines_append_only;
UPDATE paycli.journal_lines SET entry = jsonb_set(entry, '{time}', to_jsonb((entry ->> 'time')::timestamptz - `+shift+`))
    WHERE type = 'intent';
UPDATE paycli.journal_lines SET entry = jsonb_set(entry, '{deadline}', to_jsonb((entry ->> 'deadline')::timestamptz - `+shift+`))
    WHERE type = 'intent' AND entry ? 'deadline';
UPDATE paycli.journal_lines SET db_deadline = db_deadline - `+shift+` WHERE db_deadline IS NOT NULL;
ALTER TABLE paycli.journal_lines ENABLE TRIGGER journal_lines_append_only;
COMMIT;`)
}
