package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
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
	// LockTimeout bounds the wait for another process using the state.
	LockTimeout time.Duration
	// Listen opens the listener (net.Listen outside tests).
	Listen func(network, addr string) (net.Listener, error)
	// Ready, when set, is called with the base URL once serving (tests).
	Ready func(baseURL string)
}

// NewCmdServe builds `paycli sandbox serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, Listen: net.Listen, LockTimeout: 2 * time.Second}
	var state string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the gateway emulator over HTTP until interrupted",
		Long: `Serve the gateway emulator on a loopback address. The base URL and the
sandbox credentials are printed to stderr, and the address is recorded in the
state folder so that --sandbox finds this server. Ctrl-C (or SIGTERM) stops it
after in-flight requests finish; every sale answered with status_code 100 is
on disk before its answer is sent.

With --faults, the X-Paycli-Fault request header can delay a request, answer
an HTTP status, reset the connection before or after handling, or truncate
the body (see docs/sandbox.md).`,
		Example: `  paycli sandbox serve
  paycli sandbox serve --addr 127.0.0.1:0 --state ./sandbox-state --faults`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
				return cmdutil.UsageErrorf("invalid --addr %q: want host:port, e.g. %s", opts.Addr, DefaultAddr)
			}
			if !opts.Public && !sandbox.IsLoopback(opts.Addr) {
				return cmdutil.UsageHint(fmt.Errorf("refusing to serve on %s: not a loopback address", opts.Addr),
					"The sandbox accepts fixed, published credentials. Add --public to expose it to the network anyway.")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return ServeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", DefaultAddr, "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().StringVar(&state, "state", "", "state folder (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVar(&opts.Public, "public", false, "allow a non-loopback --addr")
	cmd.Flags().BoolVar(&opts.Faults, "faults", false, "honour the X-Paycli-Fault request header")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	_ = cmd.RegisterFlagCompletionFunc("addr", noValueCompletion)
	return cmd
}

// ServeRun serves until ctx is cancelled, then shuts down gracefully and
// returns nil.
func ServeRun(ctx context.Context, opts *ServeOptions) error {
	ln, err := opts.Listen("tcp", opts.Addr)
	if err != nil {
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("cannot listen on %s: %w", opts.Addr, err),
			"Is another sandbox running? Pick another address with --addr (port 0 picks a free one).")
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{
		StateDir:    opts.StateDir,
		LockTimeout: opts.LockTimeout,
		Gateway:     sandbox.Options{Faults: opts.Faults},
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

	w := opts.IO.ErrOut
	fmt.Fprintf(w, "paycli sandbox serving %s\n", srv.BaseURL)
	fmt.Fprintf(w, "  app_id:       %s\n", sandbox.AppID)
	fmt.Fprintf(w, "  app_secret:   %s\n", sandbox.AppSecret)
	fmt.Fprintf(w, "  merchant_key: %s\n", sandbox.MerchantKey)
	fmt.Fprintf(w, "  state:        %s\n", opts.StateDir)
	if opts.Faults {
		fmt.Fprintf(w, "  faults:       on (%s header)\n", sandbox.FaultHeader)
	}
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
		fmt.Fprintf(w, "warning: sandbox did not stop cleanly: %v\n", err)
	}
	fmt.Fprintln(w, "paycli sandbox stopped")
	return nil
}
