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
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/sandbox"
)

// Config is one soak run. Zero fields take the defaults of withDefaults.
type Config struct {
	// Binary is the paycli executable run as server and clients.
	Binary string
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
	// Seed makes the run's choices (invoices, kill times, faults)
	// reproducible, given the same scheduling.
	Seed uint64
	// FaultRate is the fraction of API requests the server faults.
	FaultRate float64
	// ClientKillRate is the fraction of walletpay processes killed with
	// SIGKILL at a random moment of their first 50 ms (0: none), which
	// leaves journal intents without an outcome.
	ClientKillRate float64
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
// `paycli sandbox soak -o json` prints.
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
	// ClientKills counts the walletpay processes killed on purpose.
	ClientKills int `json:"client_kills"`
	// OpenIntents counts journal intents without an outcome (from the
	// killed processes), each listed as unknown by `paycli journal`.
	OpenIntents int `json:"open_intents"`
	// Journal counts the journal's attempts by outcome class.
	Journal map[string]int `json:"journal"`
	// Sales counts the sandbox's stored sales by state.
	Sales map[string]int `json:"sales"`
	// UnknownCharged counts invoices charged while every attempt that
	// could have charged them was told "outcome unknown" (exit 7): the
	// cases `paycli status` exists for.
	UnknownCharged int `json:"unknown_charged"`
	// Reconciled counts invoices whose three views agree.
	Reconciled int `json:"reconciled"`
	// Problems lists every disagreement; a clean run has none.
	Problems []string `json:"problems"`
}

// attempt is one walletpay process and what it said.
type attempt struct {
	invoice int
	exit    int    // -1 when killed by a signal
	killed  bool   // killed on purpose
	orderNo string // from stdout, exit 0 only
	stderr  string
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
	if cfg.Binary == "" || cfg.Dir == "" {
		return nil, errors.New("soak: Binary and Dir are required")
	}
	r := &run{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x50a4)), report: &Report{
		Seed: cfg.Seed, Duration: cfg.Duration.String(), Workers: cfg.Workers, Invoices: cfg.Invoices, Rate: cfg.FaultRate,
		Exits: map[string]int{}, Faults: map[string]int{}, FaultsOnWalletPay: map[string]int{},
		Journal: map[string]int{}, Sales: map[string]int{}, Problems: []string{},
	}}
	if err := r.prepare(); err != nil {
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
	now := time.Now()
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
		case <-time.After(50 * time.Millisecond):
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
	deadline := time.Now().Add(r.cfg.Duration)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	var wg sync.WaitGroup
	for w := range r.cfg.Workers {
		rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(w)+1))
		wg.Go(func() {
			for ctx.Err() == nil {
				var killAfter time.Duration
				if rng.Float64() < r.cfg.ClientKillRate {
					killAfter = time.Duration(1+rng.IntN(50)) * time.Millisecond
				}
				r.pay(context.WithoutCancel(ctx), rng.IntN(len(r.invoices)), killAfter)
			}
		})
	}
	// Kill times, spread over the middle of the run.
	var at []time.Duration
	for range r.cfg.Kills {
		at = append(at, time.Duration((0.1+0.8*r.rng.Float64())*float64(r.cfg.Duration)))
	}
	slices.Sort(at)
	start := time.Now()
	for _, d := range at {
		if pause.For(ctx, time.Until(start.Add(d))) != nil {
			break
		}
		r.stopServer(syscall.SIGKILL)
		r.report.Kills++
		r.logf("killed the sandbox (kill %d of %d)", r.report.Kills, r.cfg.Kills)
		// Down for a moment: clients meet a refused connection meanwhile.
		time.Sleep(time.Duration(r.rng.IntN(500)) * time.Millisecond)
		if err := r.startServer(context.WithoutCancel(ctx)); err != nil {
			r.addProblem("restart after kill %d: %v", r.report.Kills, err)
			break
		}
	}
	wg.Wait()
}

// pay runs one walletpay process for invoice i, killing it with SIGKILL
// after killAfter if that is not zero. The process's own --timeout bounds
// it; the context only guards against a hung binary.
func (r *run) pay(ctx context.Context, i int, killAfter time.Duration) {
	inv := r.invoices[i]
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ClientTimeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.cfg.Binary, "walletpay", "--invoice", inv.id, "--token", inv.token,
		"--name", "Soak", "--surname", "Tester", "--email", "soak@example.com", "--yes",
		"-o", "json", "--timeout", r.cfg.ClientTimeout.String())
	cmd.Env = r.env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	a := attempt{invoice: i, exit: -1}
	if err := cmd.Start(); err != nil {
		r.addProblem("start walletpay: %v", err)
		return
	}
	var killed atomic.Bool
	if killAfter > 0 {
		t := time.AfterFunc(killAfter, func() {
			killed.Store(true)
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
	a.killed = killed.Load() && a.exit == -1
	if a.exit == 0 {
		a.orderNo = orderNoOf(stdout.String())
	}
	r.mu.Lock()
	r.attempts = append(r.attempts, a)
	r.mu.Unlock()
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
