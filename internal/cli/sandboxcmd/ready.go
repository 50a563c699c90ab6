package sandboxcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// ReadyOptions are the inputs of `paycli sandbox ready`.
type ReadyOptions struct {
	IO       *iostreams.IOStreams
	StateDir string
	// URL is the sandbox --sandbox-url names ("": the state folder's
	// serve, else the default address).
	URL string
	// Wait is how long to wait for the sandbox to become ready (0: ask
	// once).
	Wait time.Duration
	// Ready reports whether the sandbox at a base URL is ready.
	Ready func(ctx context.Context, baseURL string) bool
	// Sleep waits between attempts.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewCmdReady builds `paycli sandbox ready`.
func NewCmdReady(f *cmdutil.Factory, runF func(context.Context, *ReadyOptions) error) *cobra.Command {
	opts := &ReadyOptions{IO: f.IOStreams, Ready: sandboxReady, Sleep: pause.For}
	var state string
	cmd := &cobra.Command{
		Use:   "ready",
		Short: "Exit 0 once the sandbox is ready, 8 if it is not",
		Long: `Ask the sandbox whether it is ready (GET /ccpayment/__sandbox/ready), waiting
up to --wait for it: exit 0 once it is, 8 if it never is. The sandbox is the
one --sandbox-url names, else the running 'paycli sandbox serve' of the state
folder, else the default address of serve. It is a container's healthcheck,
or a CI step's wait for a sandbox service.`,
		Example: `  paycli sandbox ready --wait 30s
  paycli sandbox ready --sandbox-url http://sandbox:8787`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.StateDir, opts.URL, err = addressedSandbox(f, cmd, state); err != nil {
				return err
			}
			if opts.Wait < 0 {
				return cmdutil.UsageErrorf("invalid --wait %v: want a duration of 0 or more, e.g. 30s", opts.Wait)
			}
			return cmdutil.Run(cmd, opts, runF, readyRun)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to ask (default <state dir>/paycli/sandbox)")
	cmd.Flags().DurationVar(&opts.Wait, "wait", 0, "wait this long for the sandbox to become ready, e.g. 30s")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	_ = cmd.RegisterFlagCompletionFunc("wait", noValueCompletion)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable},
		Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "the sandbox is not ready"}})
	return cmd
}

func readyRun(ctx context.Context, opts *ReadyOptions) error {
	// The address file is read again on every try: a serve started with
	// --addr :0, or restarted on another port, writes it while we wait.
	target := func() string {
		if opts.URL != "" {
			return opts.URL
		}
		if url := sandbox.ReadAddress(opts.StateDir); url != "" {
			return url
		}
		return "http://" + DefaultAddr + sandbox.Base
	}
	var url string
	// The wait is counted in pauses, not read from a clock: a check
	// that hangs (up to its own time limit) makes the wait longer, never
	// shorter.
	const every = 200 * time.Millisecond
	for tries := int(opts.Wait / every); ; tries-- {
		url = target()
		if opts.Ready(ctx, url) {
			opts.IO.Notef("The sandbox at %s is ready.", url)
			return nil
		}
		if tries <= 0 {
			break
		}
		if err := opts.Sleep(ctx, every); err != nil {
			return err
		}
	}
	what := "is not ready"
	if opts.Wait > 0 {
		what = fmt.Sprintf("was not ready within %s", opts.Wait)
	}
	return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("the sandbox at %s %s", url, what),
		"Start it with 'paycli sandbox serve' (or name it with --sandbox-url).")
}

// sandboxReady asks the sandbox's readiness endpoint.
func sandboxReady(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var ans map[string]any
	return sandbox.CallAdmin(ctx, baseURL, "GET", sandbox.ReadyPath, nil, &ans) == nil && ans["status"] == "ready"
}
