package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// shutdownGrace bounds how long serve waits for in-flight requests.
const shutdownGrace = 10 * time.Second

// ServeOptions are the inputs of `paycli sandbox serve`.
type ServeOptions struct {
	IO       *iostreams.IOStreams
	Addr     string
	StateDir string
	Public   bool
	Faults   bool
	// FaultRate, with Faults, is the fraction of API requests without the
	// fault header that get a random fault anyway (0: none).
	FaultRate float64
	// FaultSeed seeds the random faults (0: a random seed, printed).
	FaultSeed uint64
	// FaultDelay is how long a random delay fault waits.
	FaultDelay time.Duration
	// Latency is a fixed wait before each answer, as of a distant gateway.
	Latency time.Duration
	// NewSeed makes a seed when FaultSeed is 0.
	NewSeed func() uint64
	// LockTimeout bounds the wait for another process using the state.
	LockTimeout time.Duration
	// Listen opens the listener (net.Listen outside tests).
	Listen func(network, addr string) (net.Listener, error)
	// NoPartialRefunds makes the sandbox a merchant that may only refund
	// a sale whole (partial refunds answer 110).
	NoPartialRefunds bool
	// Ready, when set, is called with the base URL once serving (tests).
	Ready func(baseURL string)
	// Webhooks are the registered web hook keys (--webhook KEY=URL).
	Webhooks map[string]sandbox.WebhookEndpoint
	// WebhookBackoff is the first retry delay of a webhook delivery.
	WebhookBackoff time.Duration
	// WebhookAttempts is how many times a delivery is tried.
	WebhookAttempts int
	// Now is the sandbox's clock.
	Now func() time.Time
	// Bodies keeps masked request and answer bodies in the request log.
	Bodies bool
	// As is the gateway of the family the sandbox answers as
	// (sandbox.AsNames); "" for its own shapes.
	As string
	// Durable fsyncs every commit before its answer (--durable).
	Durable bool
	// FlushTicks times the flushes to disk without Durable (a ticker of
	// flushInterval outside tests).
	FlushTicks func() (<-chan time.Time, func())
}

// flushInterval is how often serve puts its commits on the disk without
// --durable: what a power loss may take.
const flushInterval = time.Second

// ticker is FlushTicks outside tests: a ticker of d and its stop.
func ticker(d time.Duration) func() (<-chan time.Time, func()) {
	return func() (<-chan time.Time, func()) {
		t := time.NewTicker(d)
		return t.C, t.Stop
	}
}

// NewCmdServe builds `paycli sandbox serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, Listen: net.Listen, LockTimeout: 2 * time.Second, NewSeed: rand.Uint64, Now: f.Now,
		FlushTicks: ticker(flushInterval)}
	var state, webhookEncoding string
	var webhooks []string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the gateway emulator over HTTP until interrupted",
		Long: `Serve the gateway emulator on a loopback address. The base URL and the
sandbox credentials are printed to stderr, and the address is recorded in the
state folder so that --sandbox finds this server. Ctrl-C (or SIGTERM) stops it
after in-flight requests finish.

Every sale answered with status_code 100 is written to the state file before
its answer is sent, so it survives the server being killed (kill -9) and a
restart. The writes reach the disk every second and when the server stops:
a power loss or a crash of the machine may lose the last second, or leave
the state unreadable ('paycli sandbox reset' starts afresh). --durable
syncs every write to the disk before its answer (fsync), which survives a
power loss too and answers fewer payments a second.

With --faults, the X-Paycli-Fault request header can delay a request, answer
an HTTP status, reset the connection before or after handling, or truncate
the body (see docs/sandbox.md). --fault-rate makes it pick such faults itself,
at random, for that fraction of API requests, so that unmodified clients meet
them; each fault it injects is logged on stderr.

--as qnbpay answers in QNBpay's documented shapes where they differ from
the sandbox's own (docs/sandbox.md): order ids all digits, check status
as an array of one object with order_id and product_price JSON numbers,
refund's order_no (and an all-digit invoice_id) JSON numbers. --as sipay is
the sandbox's own shapes.

With --no-partial-refunds the sandbox plays a merchant that may only refund a
sale whole, at once: any other refund is answered 110.

--latency waits that long before handling each request, like a gateway on
the other side of the world: it is how the batch runner's --parallel is
measured (docs/performance.md). paycli's own health check of the sandbox
is answered at once.

--webhook KEY=URL registers a web hook key, as the merchant panel does: a
sale naming it in sale_web_hook_key (paycli sandbox pay --webhook-key KEY),
or a refund in refund_web_hook_key, is POSTed to URL with a valid hash_key
once it is committed (form-encoded; --webhook-encoding json for JSON). The
delivery is queued in the state with the sale, so it survives a crash and
a restart, and is retried until the URL answers 2xx: after --webhook-backoff,
then twice as long each time (at most 5 minutes apart), --webhook-attempts
times in all. 'paycli sandbox webhooks' lists the deliveries. URLs must be
on this machine unless --public.

Every answer carries an X-Request-Id header (the client's own, when it sent
a sane one) that 'paycli sandbox logs' shows. --bodies keeps each request's
and answer's body in the request log too, masked: secrets (keys, hash_keys,
tokens, the payer's e-mail, security codes) as their first and last four
characters, card numbers as their first six and last four digits.`,
		Example: `  paycli sandbox serve
  paycli sandbox serve --addr 127.0.0.1:0 --state ./sandbox-state --faults
  paycli sandbox serve --faults --fault-rate 0.2 --fault-seed 7
  paycli sandbox serve --latency 50ms
  paycli sandbox serve --bodies
  paycli sandbox serve --durable
  paycli sandbox serve --as qnbpay
  paycli sandbox serve --webhook sales=http://127.0.0.1:9000/hooks`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if err := cmdutil.CheckListenAddr(opts.Addr, DefaultAddr); err != nil {
				return err
			}
			if !opts.Public && !cmdutil.LoopbackOnly(opts.Addr) {
				return cmdutil.UsageHint(fmt.Errorf("refusing to serve on %s: not a loopback address", opts.Addr),
					"The sandbox accepts fixed, published credentials. Add --public to expose it to the network anyway.")
			}
			if opts.FaultRate < 0 || opts.FaultRate > 1 {
				return cmdutil.UsageErrorf("invalid --fault-rate %v: want a fraction between 0 and 1, e.g. 0.2", opts.FaultRate)
			}
			if opts.FaultRate > 0 && !opts.Faults {
				return cmdutil.UsageErrorf("--fault-rate needs --faults")
			}
			if opts.FaultDelay <= 0 {
				return cmdutil.UsageErrorf("invalid --fault-delay %v: want a positive duration, e.g. 5s", opts.FaultDelay)
			}
			var err2 error
			if opts.Webhooks, err2 = parseWebhookFlags(webhooks, webhookEncoding, opts.Public); err2 != nil {
				return err2
			}
			if opts.WebhookBackoff <= 0 {
				return cmdutil.UsageErrorf("invalid --webhook-backoff %v: want a positive duration, e.g. 1s", opts.WebhookBackoff)
			}
			if opts.WebhookAttempts < 1 || opts.WebhookAttempts > 100 {
				return cmdutil.UsageErrorf("invalid --webhook-attempts %d: want a whole number from 1 to 100", opts.WebhookAttempts)
			}
			if opts.As != "" && !slices.Contains(sandbox.AsNames(), strings.ToLower(opts.As)) {
				return cmdutil.UsageErrorf("invalid --as %q: the sandbox answers as one of %s", config.Shorten(opts.As), strings.Join(sandbox.AsNames(), ", "))
			}
			opts.As = strings.ToLower(opts.As)
			if opts.Latency < 0 {
				return cmdutil.UsageErrorf("invalid --latency %v: want a duration of 0 or more, e.g. 50ms", opts.Latency)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if _, set := f.LookupEnv("GOGC"); !set {
				debug.SetGCPercent(serveGCPercent)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", DefaultAddr, "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().StringVar(&state, "state", "", "state folder (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVar(&opts.Public, "public", false, "allow a non-loopback --addr")
	cmd.Flags().BoolVar(&opts.Faults, "faults", false, "honour the X-Paycli-Fault request header")
	cmd.Flags().Float64Var(&opts.FaultRate, "fault-rate", 0, "with --faults, fault this fraction of API requests at random (0 to 1)")
	cmd.Flags().Uint64Var(&opts.FaultSeed, "fault-seed", 0, "seed of the random faults (default: a random seed, printed)")
	cmd.Flags().DurationVar(&opts.FaultDelay, "fault-delay", 5*time.Second, "how long a random delay fault waits")
	cmd.Flags().StringVar(&opts.As, "as", "", "answer in the shapes of a gateway of the family: "+strings.Join(sandbox.AsNames(), " or "))
	_ = cmd.RegisterFlagCompletionFunc("as", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return sandbox.AsNames(), cobra.ShellCompDirectiveNoFileComp
	})
	cmd.Flags().BoolVar(&opts.NoPartialRefunds, "no-partial-refunds", false, "refuse partial refunds (status_code 110), as for a merchant without them")
	cmd.Flags().DurationVar(&opts.Latency, "latency", 0, "wait this long before answering each request, e.g. 50ms")
	cmd.Flags().BoolVar(&opts.Durable, "durable", false, "sync every write to the disk before its answer (survives a power loss; slower)")
	cmd.Flags().BoolVar(&opts.Bodies, "bodies", false, "keep each request's and answer's body in the request log, masked (paycli sandbox logs shows them)")
	cmd.Flags().StringArrayVar(&webhooks, "webhook", nil, "register a web hook key: `KEY=URL` (repeatable)")
	cmd.Flags().StringVar(&webhookEncoding, "webhook-encoding", "form", "body of the webhooks sent: form or json")
	cmd.Flags().DurationVar(&opts.WebhookBackoff, "webhook-backoff", sandbox.DefaultWebhookBackoff, "wait before a failed webhook delivery's first retry (doubled for each next one)")
	cmd.Flags().IntVar(&opts.WebhookAttempts, "webhook-attempts", sandbox.DefaultWebhookAttempts, "attempts of a webhook delivery before it is marked failed")
	_ = cmd.RegisterFlagCompletionFunc("webhook", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("webhook-encoding", cobra.FixedCompletions([]string{"form", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("webhook-backoff", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("webhook-attempts", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("latency", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("fault-rate", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("fault-seed", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("fault-delay", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	_ = cmd.RegisterFlagCompletionFunc("addr", noValueCompletion)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable}, Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "the sandbox state is in use by another paycli process"}})
	return cmd
}

// serveGCPercent is the garbage collector's target while serve runs (Go's
// default is 100). The sandbox keeps a few MiB live and a walletPay
// allocates some 30 KiB, so at the default the collector ran every few
// hundred requests and took a sixth of a payment's CPU; serve trades a few
// tens of MiB for it (docs/performance.md). GOGC, when set, decides.
const serveGCPercent = 400

// serveRun serves until ctx is cancelled, then shuts down gracefully and
// returns nil.
func serveRun(ctx context.Context, opts *ServeOptions) error {
	ln, err := opts.Listen("tcp", opts.Addr)
	if err != nil {
		// The address is the user's to change (busy, or not this
		// machine's): a usage error, as for 'paycli webhook listen'.
		return cmdutil.UsageHint(fmt.Errorf("cannot listen on %s: %w", opts.Addr, err),
			"Is another sandbox running? Pick another address with --addr (port 0 picks a free one).")
	}
	w := opts.IO.ErrOut
	gopts := sandbox.Options{Now: opts.Now, Faults: opts.Faults, NoPartialRefunds: opts.NoPartialRefunds, LogBodies: opts.Bodies, As: opts.As,
		Webhooks: sandbox.WebhookOptions{Endpoints: opts.Webhooks, Backoff: opts.WebhookBackoff, MaxAttempts: opts.WebhookAttempts,
			Logf: lineLogger(w)}}
	pick, seed, err := randomFaults(opts, w)
	if err != nil {
		ln.Close()
		return err
	}
	gopts.PickFault = pick
	var flushTicks <-chan time.Time
	if !opts.Durable && opts.FlushTicks != nil {
		ticks, stop := opts.FlushTicks()
		defer stop()
		flushTicks = ticks
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{
		StateDir:    opts.StateDir,
		LockTimeout: opts.LockTimeout,
		Gateway:     gopts,
		Wrap:        withLatency(opts.Latency),
		Public:      opts.Public,
		Durable:     opts.Durable,
		FlushTicks:  flushTicks,
	})
	if errors.Is(err, sandbox.ErrLocked) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(opts.StateDir),
			"Another 'paycli sandbox serve' (or a --sandbox command) is using it; stop it or pass another --state.")
	}
	if err != nil {
		return err
	}
	if err := sandbox.WriteAddress(opts.StateDir, srv.BaseURL); err != nil {
		_ = srv.Shutdown(context.Background())
		return fmt.Errorf("record the sandbox address: %w", err)
	}
	defer sandbox.RemoveAddress(opts.StateDir, srv.BaseURL)

	printServing(w, opts, srv.BaseURL, seed, gopts.PickFault != nil)
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
	if opts.Ready != nil {
		opts.Ready(srv.BaseURL)
	}

	select {
	case <-ctx.Done():
	case err := <-srv.Done():
		_ = srv.Shutdown(context.Background())
		return fmt.Errorf("sandbox server stopped: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		opts.IO.Warnf("sandbox did not stop cleanly: %v", err)
	}
	fmt.Fprintln(w, "paycli sandbox stopped")
	return nil
}

// randomFaults is the picker of --fault-rate's random faults (nil
// without it), logging each fault it picks on w, and the seed it draws by.
func randomFaults(opts *ServeOptions, w io.Writer) (func(*http.Request) string, uint64, error) {
	seed := opts.FaultSeed
	if !opts.Faults || opts.FaultRate <= 0 {
		return nil, seed, nil
	}
	if seed == 0 {
		seed = opts.NewSeed()
	}
	picker, err := sandbox.NewRandomFaults(seed, opts.FaultRate, opts.FaultDelay)
	if err != nil {
		return nil, seed, cmdutil.UsageErrorf("%v", err)
	}
	var logMu sync.Mutex
	return func(r *http.Request) string {
		v := picker.Pick(r)
		if v != "" {
			// One line per fault, whole, so a reader (the soak) can
			// count them even if this process is killed.
			logMu.Lock()
			fmt.Fprintf(w, "fault: %s %s %s\n", r.Method, r.URL.Path, v)
			logMu.Unlock()
		}
		return v
	}, seed, nil
}

// printServing tells the user where the sandbox serves, its credentials
// and what it was started with.
func printServing(w io.Writer, opts *ServeOptions, baseURL string, seed uint64, random bool) {
	fmt.Fprintf(w, "paycli sandbox serving %s\n", baseURL)
	fmt.Fprintf(w, "  app_id:       %s\n", sandbox.AppID)
	fmt.Fprintf(w, "  app_secret:   %s\n", sandbox.AppSecret)
	fmt.Fprintf(w, "  merchant_key: %s\n", sandbox.MerchantKey)
	fmt.Fprintf(w, "  state:        %s\n", opts.StateDir)
	if opts.As != "" {
		fmt.Fprintf(w, "  answers as:   %s\n", opts.As)
	}
	if opts.Latency > 0 {
		fmt.Fprintf(w, "  latency:      %s before each answer\n", opts.Latency)
	}
	for _, key := range slices.Sorted(maps.Keys(opts.Webhooks)) {
		ep := opts.Webhooks[key]
		fmt.Fprintf(w, "  webhook:      %s → %s (%s)\n", key, ep.URL, ep.Encoding)
	}
	if opts.Faults {
		fmt.Fprintf(w, "  faults:       on (%s header)\n", sandbox.FaultHeader)
		if random {
			fmt.Fprintf(w, "  random:       %v of API requests, seed %d\n", opts.FaultRate, seed)
		}
	}
}

// withLatency delays each request by d before it is handled (nil for 0).
// The wait ends early when the client goes away. The health check is not
// delayed: it is paycli asking whether its own sandbox runs (with a short
// time limit, sandbox.Probe), not a call to the gateway being emulated, and
// a --latency of a second or more would otherwise make every --sandbox
// command think the sandbox is down.
func withLatency(d time.Duration) func(http.Handler) http.Handler {
	if d <= 0 {
		return nil
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == sandbox.HealthPath {
				next.ServeHTTP(w, r)
				return
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
