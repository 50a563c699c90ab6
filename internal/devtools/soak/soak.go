// Package soak is paycli's chaos soak: a `paycli sandbox serve` process
// with random faults, many concurrent `paycli walletpay` processes over a
// small pool of invoices, and the server killed with SIGKILL and restarted
// at random moments. When the time is up, a checker reconciles what each
// process said (its exit code and output), what the journal recorded and
// what the sandbox holds (check status over HTTP, and its store read
// directly), and reports every disagreement that would mean a buyer
// charged twice, a sale lost, or an attempt nobody can account for.
//
// Everything runs on loopback, in a folder of its own, with an environment
// built from scratch: the soak never touches the user's configuration,
// journal or sandbox.
package soak

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/sandbox"
)

// Config is one soak run. Zero fields take the defaults of withDefaults.
type Config struct {
	// Binary is the paycli executable run as server and clients.
	Binary string
	// Now is the clock (required): the run's deadline, the cards' expiry
	// year and the sandbox the checker opens read it.
	Now func() time.Time
	// Dir is the folder that holds the run's home, state and journal.
	Dir string
	// Duration bounds the time payments are started; the run ends when
	// the last one started has finished and the checker is done.
	Duration time.Duration
	// Workers is how many walletpay processes run at once.
	Workers int
	// Invoices is the size of the invoice pool; every invoice is paid for
	// repeatedly, so that duplicates race.
	Invoices int
	// Kills is how many times the server is killed with SIGKILL (and
	// restarted) during the run.
	Kills int
	// CardSales is how many card sales (every other one a
	// pre-authorization) are made before the run, for refund and
	// pre-authorization processes to act on; the checker holds them to
	// checkCardSale's rules.
	CardSales int
	// Seed makes the run's choices (invoices, kill times, faults)
	// reproducible, given the same scheduling.
	Seed uint64
	// FaultRate is the fraction of API requests the server faults.
	FaultRate float64
	// ClientKillRate is the fraction of processes killed with SIGKILL at
	// a random moment of their first 50 ms (0: none), which leaves journal
	// intents without an outcome.
	ClientKillRate float64
	// MidFlightKillRate is the fraction of processes killed with SIGKILL
	// while their money-moving request is in flight: the moment paycli's
	// --debug log says it is being sent, or (half of them) that its answer
	// came, before the outcome is recorded. Like every process killed on
	// purpose, each is run again at once with the same command line.
	MidFlightKillRate float64
	// BrokenStdoutRate is the fraction of walletpay processes whose
	// stdout breaks: half of them write to /dev/full (ENOSPC), half to a
	// pipe whose reader is already gone (EPIPE; SIGPIPE must not kill
	// them). Each must still exit with its payment's code, and one that
	// charged must name its order on stderr.
	BrokenStdoutRate float64
	// DiskFullRate is the fraction of walletpay processes that run out of
	// disk: their file-size limit (RLIMIT_FSIZE) is set just above the
	// journal's size when they start, so a journal line they write fails
	// with EFBIG, whole or torn. A process that cannot write its intent
	// must send nothing and exit 1; one that cannot write its outcome
	// exits with the payment's code and says so, its intent left open.
	// Linux only; elsewhere no process gets a limit.
	DiskFullRate float64
	// CardOpRate is the fraction of processes that act on a card sale
	// (CardSales) instead of paying: `paycli refund` and `paycli api POST
	// /api/refund` on sales, `paycli preauth capture|cancel` and the same
	// refunds on pre-authorizations. They get kills, re-runs and troubles
	// like walletpay processes. A paycli without one of those commands
	// runs walletpay processes in its place.
	CardOpRate float64
	// ClientTimeout is each walletpay's --timeout; the server's delay
	// fault waits longer than this, so a delay is a client timeout.
	ClientTimeout time.Duration
	// Log receives progress lines (io.Discard when nil).
	Log io.Writer
}

// withDefaults fills in zero fields of c.
func (c Config) withDefaults() Config {
	if c.Duration <= 0 {
		c.Duration = 20 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 8
	}
	if c.Invoices <= 0 {
		c.Invoices = 40
	}
	if c.Kills < 0 {
		c.Kills = 0
	}
	if c.FaultRate == 0 {
		c.FaultRate = 0.25
	}
	if c.ClientTimeout <= 0 {
		c.ClientTimeout = 3 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}

// Report is what a run did and found. Its JSON form is what
// `paycli-soak -o json` prints.
type Report struct {
	Seed     uint64  `json:"seed"`
	Duration string  `json:"duration"`
	Workers  int     `json:"workers"`
	Invoices int     `json:"invoices"`
	Rate     float64 `json:"fault_rate"`
	// Attempts is how many walletpay processes ran.
	Attempts int `json:"attempts"`
	// Exits counts the processes by exit code (as a string key for JSON;
	// "killed" for those killed on purpose).
	Exits map[string]int `json:"exits"`
	// Faults counts the faults the server injected, by kind; requests to
	// the token and check-status endpoints included.
	Faults map[string]int `json:"faults"`
	// FaultsOnWalletPay counts the faults injected on walletPay requests.
	FaultsOnWalletPay map[string]int `json:"faults_on_walletpay"`
	Kills             int            `json:"kills"`
	// ClientKills counts the processes killed on purpose.
	ClientKills int `json:"client_kills"`
	// MidFlightKills counts those killed while their money-moving request
	// was in flight, by kind ("refund sent", "api answered", …).
	MidFlightKills map[string]int `json:"mid_flight_kills"`
	// RerunsAfterKill counts the processes run again at once, with the same
	// command line, after one was killed on purpose (as a person would):
	// each is held back by the journal while the killed one's outcome is
	// unknown, and runs when the killed one sent nothing. Payments,
	// refunds, captures, cancels and api refunds alike.
	RerunsAfterKill int `json:"reruns_after_kill"`
	// Troubles counts the walletpay processes given a broken stdout
	// ("stdout /dev/full", "stdout closed pipe") or a full disk ("disk
	// full"), killed ones included.
	Troubles map[string]int `json:"troubles"`
	// JournalRefused counts the processes that could not write their
	// intent and so sent nothing (exit 1).
	JournalRefused int `json:"journal_refused"`
	// RefusedBeforeSending counts the processes the journal held back,
	// sending nothing: another command was in flight on the invoice (exit
	// 6), or an attempt on it had an unknown outcome (exit 2).
	RefusedBeforeSending int `json:"refused_before_sending"`
	// OutcomesUnwritten counts the processes whose outcome line could not
	// be written (their intents are open, listed as unknown).
	OutcomesUnwritten int `json:"outcomes_unwritten"`
	// ResultsUnwritten counts the processes that charged but could not
	// write the result to stdout, and named the order on stderr.
	ResultsUnwritten int `json:"results_unwritten"`
	// TornLines counts the journal lines that could not be read: lines
	// torn by a write that ran out of disk.
	TornLines int `json:"torn_lines"`
	// OpenIntents counts journal intents without an outcome (from the
	// killed processes and those that ran out of disk), each listed as
	// unknown by `paycli journal`.
	OpenIntents int `json:"open_intents"`
	// Journal counts the journal's attempts by outcome class.
	Journal map[string]int `json:"journal"`
	// Sales counts the sandbox's stored sales by state.
	Sales map[string]int `json:"sales"`
	// UnknownCharged counts invoices charged while every attempt that
	// could have charged them was told "outcome unknown" (exit 7): the
	// cases `paycli status` exists for.
	UnknownCharged int `json:"unknown_charged"`
	// CardSales counts the card sales made before the run, by what the
	// sandbox holds after it ("completed", "preauth open", …).
	CardSales map[string]int `json:"card_sales"`
	// CardOps counts the processes that acted on card sales, by kind.
	CardOps map[string]int `json:"card_ops"`
	// RefundRetries counts the `paycli refund --retry` processes: each
	// re-sent a refund whose outcome a process was told is unknown.
	RefundRetries int `json:"refund_retries"`
	// RefundsTold counts the refunds in the store by what the journal
	// said of them: "succeeded", or "unknown" (the cases `paycli refund
	// --retry` exists for); "api succeeded" and "api unknown" for those
	// `paycli api` made.
	RefundsTold map[string]int `json:"refunds_told"`
	// RefundCommands counts the refund command lines with an amount of
	// their own (`paycli refund --amount`, `paycli api POST /api/refund`;
	// a killed one and its re-run are one), each of which may make one
	// refund: the checker finds any that made two.
	RefundCommands int `json:"refund_commands"`
	// Reconciled counts invoices whose three views agree.
	Reconciled int `json:"reconciled"`
	// Problems lists every disagreement; a clean run has none.
	Problems []string `json:"problems"`
}

// attempt is one paycli process and what it said.
type attempt struct {
	// kind is the journal kind of what the process did
	// (kindWalletPay or one of the card operations).
	kind string
	// invoice indexes r.invoices for a walletpay, r.cardSales otherwise.
	invoice int
	// amount is a refund's or capture's --amount; "" for --full or all.
	amount string
	// retryRef is the refund_transaction_id a `paycli refund --retry`
	// re-sends.
	retryRef string
	// rerun: the process runs again, at once, the command line of one
	// killed on purpose; the two are one command, which may refund once.
	rerun bool
	// killOn, when set, kills the process the moment its --debug log
	// writes a line with this message ("http request", "http response")
	// about its money-moving call (killOnLine).
	killOn  string
	exit    int  // -1 when killed by a signal
	killed  bool // killed on purpose
	trouble trouble
	// orderNo is from stdout, or for a process whose stdout broke from
	// the warning on stderr; exit 0 only.
	orderNo string
	stderr  string
}

// trouble is what a walletpay process is given besides the server's
// faults.
type trouble int

const (
	troubleNone trouble = iota
	// troubleDevFull: stdout is /dev/full.
	troubleDevFull
	// troubleClosedPipe: stdout is a pipe nobody reads any more.
	troubleClosedPipe
	// troubleDiskFull: a file-size limit just above the journal's size.
	troubleDiskFull
)

func (t trouble) String() string {
	switch t {
	case troubleDevFull:
		return "stdout /dev/full"
	case troubleClosedPipe:
		return "stdout closed pipe"
	case troubleDiskFull:
		return "disk full"
	}
	return "none"
}

// What walletpay says on stderr when a write fails (internal/moneyop).
const (
	// intentRefused ends a process that could not write its intent.
	intentRefused = "cannot record the attempt in the payment journal; nothing was sent"
	// outcomeUnwrittenPrefix starts the warning of a process whose outcome
	// line failed: "warning: the outcome (CLASS) could not be written …".
	outcomeUnwrittenPrefix = "warning: the outcome ("
	outcomeUnwrittenSuffix = ") could not be written to the journal"
	// resultUnwritten starts the warning of a process whose stdout failed
	// after the outcome; it ends with the outcome and the order.
	resultUnwritten = "warning: the result could not be written to stdout"
)

// What a money-moving command says when the journal holds it back
// (internal/moneyop, internal/journal): another command holds the
// invoice, or an attempt on it has an unknown outcome.
const (
	inFlightRefused = " is in flight"
	unknownRefused  = " whose outcome is unknown "
	nothingSent     = "nothing was sent"
)

// refusedBeforeSending reports whether the journal held the process back
// before it wrote an intent: exit 6 for a command in flight on the
// invoice, exit 2 for an attempt on it of unknown outcome.
func (a attempt) refusedBeforeSending() bool {
	switch a.exit {
	case app.ExitDuplicate:
		return strings.Contains(a.stderr, inFlightRefused) && strings.Contains(a.stderr, nothingSent)
	case app.ExitUsage:
		return strings.Contains(a.stderr, unknownRefused) && strings.Contains(a.stderr, nothingSent)
	}
	return false
}

// refusedByJournal reports whether the process exited 1 because it
// could not write its intent.
func (a attempt) refusedByJournal() bool {
	return a.exit == app.ExitError && strings.Contains(a.stderr, intentRefused)
}

// outcomeUnwritten is the class the process says it could not write to
// the journal, or "".
func (a attempt) outcomeUnwritten() string {
	for line := range strings.SplitSeq(a.stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, outcomeUnwrittenPrefix); ok {
			if class, _, ok := strings.Cut(rest, outcomeUnwrittenSuffix); ok {
				return class
			}
		}
	}
	return ""
}

// orderFromWarning is the order number in the warning of a process whose
// stdout failed: "…; it is in the journal: succeeded, order VP…".
func orderFromWarning(stderr string) string {
	for line := range strings.SplitSeq(stderr, "\n") {
		if !strings.HasPrefix(line, resultUnwritten) {
			continue
		}
		if _, order, ok := strings.Cut(line, ", order "); ok {
			return strings.TrimSpace(order)
		}
	}
	return ""
}

// invoice is one member of the pool.
type invoice struct {
	id     string
	amount string
	token  string
}

// Run runs a soak. The error is for a run that could not be carried out
// (no binary, a server that does not start); what the checker finds is in
// Report.Problems.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	if cfg.Binary == "" || cfg.Dir == "" || cfg.Now == nil {
		return nil, errors.New("soak: Binary, Dir and Now are required")
	}
	r := &run{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x50a4)), report: &Report{
		Seed: cfg.Seed, Duration: cfg.Duration.String(), Workers: cfg.Workers, Invoices: cfg.Invoices, Rate: cfg.FaultRate,
		Exits: map[string]int{}, MidFlightKills: map[string]int{}, Faults: map[string]int{}, FaultsOnWalletPay: map[string]int{}, Troubles: map[string]int{}, CardSales: map[string]int{}, CardOps: map[string]int{}, RefundsTold: map[string]int{},
		Journal: map[string]int{}, Sales: map[string]int{}, Problems: []string{},
	}}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	r.probeCommands(ctx)
	if err := r.makeCardSales(ctx, cfg.CardSales); err != nil {
		return nil, err
	}
	if err := r.startServer(ctx); err != nil {
		return nil, err
	}
	defer r.stopServer(syscall.SIGKILL)
	r.load(ctx)
	r.stopServer(syscall.SIGTERM)
	if err := r.check(ctx); err != nil {
		return r.report, err
	}
	return r.report, nil
}

// run is the state of one soak.
type run struct {
	cfg    Config
	rng    *rand.Rand // used by the coordinating goroutine only
	report *Report

	home, stateDir, sandboxDir, addr string
	env                              []string
	invoices                         []invoice
	cardSales                        []cardSale
	has                              map[string]bool // card operations the binary has
	// refundCommands counts, per card sale, the refund command lines with
	// an amount drawn so far: refundAmount makes each one's amount
	// different from every other's on the sale; guarded by mu.
	refundCommands map[int]int
	// retries are refunds whose outcome was unknown (exit 7), waiting
	// for a `paycli refund --retry` process; guarded by mu.
	retries []attempt

	mu       sync.Mutex // guards server, attempts and report's fault counts
	server   *exec.Cmd
	serverN  int
	attempts []attempt
	faultsWG sync.WaitGroup
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "soak: "+format+"\n", args...)
}

// prepare makes the folders, the environment, a free port and the
// invoice pool with its wallet tokens.
func (r *run) prepare() error {
	r.home = filepath.Join(r.cfg.Dir, "home")
	r.stateDir = filepath.Join(r.home, "state")
	r.sandboxDir = filepath.Join(r.stateDir, "paycli", "sandbox")
	for _, d := range []string{r.home, r.sandboxDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	// A port for every incarnation of the server: clients keep one base URL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("soak: find a free port: %w", err)
	}
	r.addr = ln.Addr().String()
	ln.Close()
	r.env = []string{
		"HOME=" + r.home,
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, "cache"),
		"XDG_STATE_HOME=" + r.stateDir,
		"PAYCLI_BASE_URL=http://" + r.addr + sandbox.Base,
		"PAYCLI_APP_ID=" + sandbox.AppID,
		"PAYCLI_APP_SECRET=" + sandbox.AppSecret,
		"PAYCLI_MERCHANT_KEY=" + sandbox.MerchantKey,
		"NO_COLOR=1",
	}
	if tmp, ok := os.LookupEnv("TMPDIR"); ok {
		r.env = append(r.env, "TMPDIR="+tmp)
	}
	// Cards of four programs (BONUS, WORLD, AXESS, ADVANTAGE) and a foreign one.
	var cards []string
	for _, bin := range []string{"552879", "540667", "435508", "492130", "411111"} {
		cards = append(cards, luhnComplete(bin+"123456789"))
	}
	now := r.cfg.Now()
	for i := range r.cfg.Invoices {
		// Every fifth invoice is declined (.41), every fifth pending (.69).
		var amount string
		switch i % 5 {
		case 3:
			amount = fmt.Sprintf("%d.41", 10+i)
		case 4:
			amount = fmt.Sprintf("%d.69", 10+i)
		default:
			amount = fmt.Sprintf("%d.%02d", 10+i, i%40)
		}
		wallet := sandbox.WalletDeviceVendor
		if i%2 == 1 {
			wallet = sandbox.WalletOther
		}
		tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{
			Amount: decimal.RequireFromString(amount), Currency: "TRY", CardNumber: cards[i%len(cards)],
			Wallet: wallet, TTL: r.cfg.Duration + time.Hour,
		}, now, fmt.Sprintf("soak-%d-%d", r.cfg.Seed, i))
		if err != nil {
			return fmt.Errorf("soak: wallet token: %w", err)
		}
		r.invoices = append(r.invoices, invoice{id: fmt.Sprintf("SOAK-%d-%03d", r.cfg.Seed, i), amount: amount, token: tok})
	}
	return nil
}

// startServer starts `paycli sandbox serve` on r.addr and waits until it
// answers.
func (r *run) startServer(ctx context.Context) error {
	r.mu.Lock()
	r.serverN++
	n := r.serverN
	r.mu.Unlock()
	// Each incarnation gets its own fault seed, derived from the run's.
	seed := r.cfg.Seed*1000 + uint64(n)
	cmd := exec.Command(r.cfg.Binary, "sandbox", "serve", "--faults",
		"--fault-rate", strconv.FormatFloat(r.cfg.FaultRate, 'f', -1, 64),
		"--fault-seed", strconv.FormatUint(seed, 10),
		"--fault-delay", (r.cfg.ClientTimeout + 2*time.Second).String(),
		"--state", r.sandboxDir, "--addr", r.addr)
	cmd.Env = r.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("soak: start the sandbox: %w", err)
	}
	exited := make(chan struct{})
	r.faultsWG.Add(1)
	go func() {
		defer r.faultsWG.Done()
		defer close(exited)
		r.countFaults(stderr)
	}()
	base := "http://" + r.addr + sandbox.Base
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range 200 { // up to 10 s
		if sandbox.Probe(ctx, base) {
			r.mu.Lock()
			r.server = cmd
			r.mu.Unlock()
			return nil
		}
		select {
		case <-exited:
			_ = cmd.Wait()
			return fmt.Errorf("soak: the sandbox exited at start (%v)", cmd.ProcessState)
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return ctx.Err()
		case <-tick.C:
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return errors.New("soak: the sandbox did not answer within 10s")
}

// countFaults reads a server's stderr until it closes, counting the
// "fault: METHOD PATH VALUE" lines serve writes for each fault.
func (r *run) countFaults(stderr io.Reader) {
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[0] != "fault:" {
			continue
		}
		kind := sandbox.FaultKind(fields[3])
		r.mu.Lock()
		r.report.Faults[kind]++
		if strings.HasSuffix(fields[2], "/api/walletPay") {
			r.report.FaultsOnWalletPay[kind]++
		}
		r.mu.Unlock()
	}
}

// stopServer stops the running server with sig and waits for it.
func (r *run) stopServer(sig syscall.Signal) {
	r.mu.Lock()
	cmd := r.server
	r.server = nil
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	_ = cmd.Wait()
	r.faultsWG.Wait()
}

// load runs the workers and the killer until the duration is over.
func (r *run) load(ctx context.Context) {
	deadline := r.cfg.Now().Add(r.cfg.Duration)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	var wg sync.WaitGroup
	for w := range r.cfg.Workers {
		rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(w)+1))
		wg.Go(func() {
			for ctx.Err() == nil {
				var killAfter time.Duration
				var killOn string
				switch x := rng.Float64(); {
				case x < r.cfg.ClientKillRate:
					killAfter = time.Duration(1+rng.IntN(50)) * time.Millisecond
				case x < r.cfg.ClientKillRate+r.cfg.MidFlightKillRate:
					killOn = []string{httpRequestSent, httpAnswered}[rng.IntN(2)]
				}
				tr := troubleNone
				switch x := rng.Float64(); {
				case x < r.cfg.BrokenStdoutRate/2:
					tr = troubleDevFull
				case x < r.cfg.BrokenStdoutRate:
					tr = troubleClosedPipe
				case x < r.cfg.BrokenStdoutRate+r.cfg.DiskFullRate:
					tr = troubleDiskFull
				}
				a := r.pick(rng)
				a.killOn = killOn
				if r.runProcess(context.WithoutCancel(ctx), a, killAfter, tr, rng.Int64N(diskFullSlack)) {
					r.mu.Lock()
					r.report.RerunsAfterKill++
					r.mu.Unlock()
					a.rerun, a.killOn = true, ""
					r.runProcess(context.WithoutCancel(ctx), a, 0, troubleNone, 0)
				}
			}
		})
	}
	// Kill times, spread over the middle of the run.
	var at []time.Duration
	for range r.cfg.Kills {
		at = append(at, time.Duration((0.1+0.8*r.rng.Float64())*float64(r.cfg.Duration)))
	}
	slices.Sort(at)
	start := r.cfg.Now()
	for _, d := range at {
		if pause.For(ctx, start.Add(d).Sub(r.cfg.Now())) != nil {
			break
		}
		r.stopServer(syscall.SIGKILL)
		r.report.Kills++
		r.logf("killed the sandbox (kill %d of %d)", r.report.Kills, r.cfg.Kills)
		// Down for a moment: clients meet a refused connection meanwhile.
		_ = pause.For(context.WithoutCancel(ctx), time.Duration(r.rng.IntN(500))*time.Millisecond)
		if err := r.startServer(context.WithoutCancel(ctx)); err != nil {
			r.addProblem("restart after kill %d: %v", r.report.Kills, err)
			break
		}
	}
	wg.Wait()
}

// diskFullSlack bounds how far above the journal's size, when it starts,
// a disk-full process may write. The journal grows by a few KiB while the
// process gets going (the other workers write to it too), so limits
// drawn from this range give every case: the intent refused, the intent
// written and the outcome refused, both written, and lines torn midway.
const diskFullSlack = 4 << 10

// Kinds of operation, as the journal lines the soak reads name them (the
// operations declare them: walletpay.KindWalletPay, refund.KindRefund…;
// the soak reads paycli from outside, as a user's journal would be read,
// and never links the commands); an api refund is journaled as an api
// call, or, by a paycli that journals an api call under the operation's
// own kind, as a refund.
const (
	kindWalletPay = "walletpay"
	kindRefund    = "refund"
	kindCapture   = "preauth-capture"
	kindCancel    = "preauth-cancel"
	kindAPI       = "api"
)

// fullRefundsOnly reports whether the refunds of card sale i are all full
// (--full): a refund of all that remains has an amount of the gateway's
// reckoning, which could equal another command's, so such sales get no
// refund with an amount of its own, and on the others every refund
// command's amount is its own (refundAmount).
func fullRefundsOnly(i int) bool { return i%3 == 0 }

// pick draws what a process does: pay for an invoice of the pool, or
// act on a card sale (a refund of part or all of a sale, by `paycli
// refund` or `paycli api`; a capture of all or part of a
// pre-authorization, a cancel, or a refund of one).
func (r *run) pick(rng *rand.Rand) attempt {
	walletPay := attempt{kind: kindWalletPay, invoice: rng.IntN(len(r.invoices))}
	if len(r.cardSales) == 0 || rng.Float64() >= r.cfg.CardOpRate {
		return walletPay
	}
	if rng.IntN(2) == 0 {
		r.mu.Lock()
		if n := len(r.retries); n > 0 {
			a := r.retries[n-1]
			r.retries = r.retries[:n-1]
			r.mu.Unlock()
			return a
		}
		r.mu.Unlock()
	}
	i := rng.IntN(len(r.cardSales))
	cs := r.cardSales[i]
	a := attempt{kind: kindRefund, invoice: i}
	if cs.preauth {
		switch x := rng.Float64(); {
		case x < 0.45:
			a.kind = kindCapture
		case x < 0.65:
			a.kind = kindCancel
		}
	}
	if a.kind == kindRefund && !fullRefundsOnly(i) && rng.IntN(3) == 0 {
		a.kind = kindAPI
	}
	if !r.has[a.kind] {
		return walletPay
	}
	switch {
	case a.kind == kindCancel:
	case a.kind == kindCapture && rng.IntN(2) == 0:
		a.amount = cs.amount.Div(decimal.NewFromInt(2)).RoundDown(2).StringFixed(2)
	case a.kind == kindRefund && fullRefundsOnly(i):
	case a.kind == kindRefund, a.kind == kindAPI:
		a.amount = r.refundAmount(i)
	}
	return a
}

// refundAmount draws the amount of a new refund command on card sale i,
// different from every other refund command's on the sale, so that two
// refunds of one amount in the sandbox are one command that refunded
// twice. Every fifth ends in .01, which the sandbox queues for approval
// (101); the others end in .02 to .99.
func (r *run) refundAmount(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refundCommands == nil {
		r.refundCommands = map[int]int{}
	}
	r.refundCommands[i]++
	n := r.refundCommands[i]
	if n%5 == 0 {
		return fmt.Sprintf("%d.01", n)
	}
	return fmt.Sprintf("%d.%02d", 5+n/98, 2+n%98)
}

// probeCommands finds which card operations the binary has (`paycli X
// --help` exits 0): a paycli from before `paycli refund` or `paycli
// preauth` runs walletpay processes in their place.
func (r *run) probeCommands(ctx context.Context) {
	r.has = map[string]bool{}
	for kind, args := range map[string][]string{
		kindRefund:  {"refund", "--help"},
		kindCapture: {"preauth", "capture", "--help"},
		kindCancel:  {"preauth", "cancel", "--help"},
		kindAPI:     {"api", "--help"},
	} {
		cmd := exec.CommandContext(ctx, r.cfg.Binary, args...)
		cmd.Env = r.env
		r.has[kind] = cmd.Run() == nil
		if !r.has[kind] && r.cfg.CardOpRate > 0 {
			r.logf("this paycli has no %q command: no %s processes", strings.Join(args[:len(args)-1], " "), kind)
		}
	}
}

// args are the command line of the process a stands for.
func (r *run) args(a attempt) []string {
	tail := []string{"--yes", "-o", "json", "--timeout", r.cfg.ClientTimeout.String()}
	if a.killOn != "" {
		tail = append(tail, "--debug")
	}
	if a.kind == kindWalletPay {
		inv := r.invoices[a.invoice]
		return append([]string{"walletpay", "--invoice", inv.id, "--token", inv.token,
			"--name", "Soak", "--surname", "Tester", "--email", "soak@example.com"}, tail...)
	}
	id := r.cardSales[a.invoice].id
	var args []string
	switch a.kind {
	case kindRefund:
		args = []string{"refund", "--invoice", id, "--full"}
		if a.retryRef != "" {
			args = []string{"refund", "--retry", a.retryRef}
		} else if a.amount != "" {
			args = []string{"refund", "--invoice", id, "--amount", a.amount}
		}
	case kindCapture:
		args = []string{"preauth", "capture", "--invoice", id}
		if a.amount != "" {
			args = append(args, "--amount", a.amount)
		}
	case kindCancel:
		args = []string{"preauth", "cancel", "--invoice", id}
	case kindAPI:
		// As the api's help shows a refund: no refund_transaction_id, so
		// only paycli's journal stands between a re-run and a second
		// refund.
		args = []string{"api", "POST", "/api/refund", "--credentials", "--merchant-key", "--hash", "refund",
			"-f", "invoice_id=" + id, "-f", "amount=" + a.amount}
	}
	return append(args, tail...)
}

// runProcess runs one paycli process, killing it with SIGKILL after
// killAfter if that is not zero, and giving it trouble: for
// troubleDiskFull, a file-size limit of the journal's size plus slack.
// The process's own --timeout bounds it; the context only guards against
// a hung binary. It reports whether the process was killed on purpose.
func (r *run) runProcess(ctx context.Context, a attempt, killAfter time.Duration, tr trouble, slack int64) (killed bool) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ClientTimeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.cfg.Binary, r.args(a)...)
	cmd.Env = r.env
	var stdout strings.Builder
	var killing atomic.Bool
	stderr := &lineWatch{}
	if a.killOn != "" {
		stderr.onLine = func(line string) {
			if killOnLine(line, a.killOn) && !killing.Swap(true) {
				_ = cmd.Process.Kill()
			}
		}
	}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if (tr == troubleDevFull || tr == troubleDiskFull) && runtime.GOOS != "linux" {
		tr = troubleNone // /dev/full and prlimit(2) are Linux's
	}
	// The process's end of its stdout, closed here once it runs.
	childEnd, err := troubledStdout(tr)
	if err != nil {
		r.addProblem("%v", err)
		return false
	}
	if childEnd != nil {
		cmd.Stdout = childEnd
	}
	a.exit, a.trouble = -1, tr
	var limit int64
	if tr == troubleDiskFull {
		info, err := os.Stat(r.journalPath())
		if err == nil {
			limit = info.Size()
		}
		limit += slack
	}
	err = cmd.Start()
	if childEnd != nil {
		childEnd.Close()
	}
	if err != nil {
		r.addProblem("start %s: %v", a.kind, err)
		return false
	}
	if tr == troubleDiskFull {
		// Set before the intent (written after the configuration is read);
		// one set too late only makes this an ordinary process.
		if err := limitFileSize(cmd.Process.Pid, limit); err != nil {
			r.addProblem("limit the file size of %s: %v", a.kind, err)
		}
	}
	if killAfter > 0 {
		t := time.AfterFunc(killAfter, func() {
			killing.Store(true)
			_ = cmd.Process.Kill()
		})
		defer t.Stop()
	}
	_ = cmd.Wait()
	a.stderr = strings.TrimSpace(stderr.String())
	if cmd.ProcessState != nil {
		a.exit = cmd.ProcessState.ExitCode()
	}
	// A process that ended by itself before the kill keeps its exit code.
	a.killed = killing.Load() && a.exit == -1
	r.record(a, stdout.String())
	return a.killed
}

// troubledStdout is the stdout of a process given trouble tr: the full
// device, or a pipe whose reader is gone before the process writes a byte;
// nil for any other trouble.
func troubledStdout(tr trouble) (*os.File, error) {
	switch tr {
	case troubleDevFull:
		f, err := os.OpenFile(fullDevice, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %v", fullDevice, err)
		}
		return f, nil
	case troubleClosedPipe:
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("make a pipe: %v", err)
		}
		pr.Close()
		return pw, nil
	}
	return nil, nil
}

// record adds a finished process to the run, with the order number it
// printed, and queues the --retry of a refund it left unknown.
func (r *run) record(a attempt, stdout string) {
	if a.killed && a.killOn != "" {
		r.mu.Lock()
		r.report.MidFlightKills[a.kind+" "+map[string]string{httpRequestSent: "sent", httpAnswered: "answered"}[a.killOn]]++
		r.mu.Unlock()
	}
	if a.exit == app.ExitOK {
		a.orderNo = orderNoOf(stdout)
		if a.trouble == troubleDevFull || a.trouble == troubleClosedPipe {
			a.orderNo = orderFromWarning(a.stderr)
		}
	}
	r.mu.Lock()
	r.attempts = append(r.attempts, a)
	if ref := retryRefOf(a.stderr); a.kind == kindRefund && a.exit == app.ExitOutcomeUnknown && ref != "" {
		r.retries = append(r.retries, attempt{kind: kindRefund, invoice: a.invoice, retryRef: ref})
	}
	r.mu.Unlock()
}

// The messages of paycli's --debug log (internal/gateway) for a request
// about to be sent and for its answer.
const (
	httpRequestSent = "http request"
	httpAnswered    = "http response"
)

// moneyPaths are the gateway paths of the calls the soak's processes make
// that move money.
var moneyPaths = []string{"/api/walletPay", "/api/refund", "/api/confirmPayment"}

// killOnLine reports whether line, of a process's --debug log, says that
// its money-moving request is being sent (msg httpRequestSent) or was
// answered (httpAnswered): the moment to kill it mid-flight. Its other
// calls (the token, check status) do not count.
func killOnLine(line, msg string) bool {
	if !strings.Contains(line, `msg="`+msg+`"`) {
		return false
	}
	_, url, ok := strings.Cut(line, " url=")
	url, _, _ = strings.Cut(url, " ")
	return ok && slices.ContainsFunc(moneyPaths, func(p string) bool { return strings.HasSuffix(url, p) })
}

// lineWatch is a process's stderr: it keeps all the process wrote and
// hands each complete line, as it arrives, to onLine (when set).
type lineWatch struct {
	mu      sync.Mutex
	all     strings.Builder
	partial []byte
	onLine  func(string)
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	if w.onLine == nil {
		return len(p), nil
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.onLine(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// retryRefOf is the refund_transaction_id in the command `paycli refund`
// suggests after an unknown outcome: "paycli refund --retry REF …".
func retryRefOf(stderr string) string {
	_, rest, ok := strings.Cut(stderr, "paycli refund --retry ")
	if !ok {
		return ""
	}
	ref, _, _ := strings.Cut(rest, " ")
	return strings.Trim(strings.TrimSpace(ref), "'")
}

// fullDevice is a device whose every write fails with ENOSPC.
const fullDevice = "/dev/full"

// journalPath is the journal every walletpay process of the run writes.
func (r *run) journalPath() string {
	return filepath.Join(r.stateDir, "paycli", journal.FileName)
}

func (r *run) addProblem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report.Problems = append(r.report.Problems, fmt.Sprintf(format, args...))
}

// luhnComplete appends the Luhn check digit to the digits of partial.
func luhnComplete(partial string) string {
	sum := 0
	for i := range len(partial) {
		d := int(partial[len(partial)-1-i] - '0')
		if i%2 == 0 { // doubled: these are odd positions once the digit is added
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return partial + strconv.Itoa((10-sum%10)%10)
}
