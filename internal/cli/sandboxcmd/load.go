package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// maxScenarioFile bounds a scenario file read by `paycli sandbox load`.
const maxScenarioFile = 4 << 20

// LoadOptions are the inputs of `paycli sandbox load`.
type LoadOptions struct {
	IO       *iostreams.IOStreams
	Now      func() time.Time
	StateDir string
	// File is the scenario's path ("-": standard input).
	File string
	// URL is the running sandbox --sandbox-url names.
	URL string
	// Probe reports whether a sandbox answers at a base URL.
	Probe func(ctx context.Context, baseURL string) bool
	// LockTimeout bounds the wait for another process using the state.
	LockTimeout time.Duration
}

// NewCmdLoad builds `paycli sandbox load`.
func NewCmdLoad(f *cmdutil.Factory, runF func(context.Context, *LoadOptions) error) *cobra.Command {
	opts := &LoadOptions{IO: f.IOStreams, Now: f.Now, Probe: sandbox.Probe, LockTimeout: 2 * time.Second}
	var state string
	cmd := &cobra.Command{
		Use:   "load FILE",
		Short: "Seed the sandbox from a scenario file (merchants, sales, cards, links)",
		Long: `Apply a scenario file (YAML or JSON) to the sandbox in one call: merchants
with fixed credentials, sales in any state (completed, failed, pending,
cancelled, awaiting_3d, awaiting_completion, pre-authorizations) with their
refunds, saved cards and payment links. docs/sandbox.md, "Scenarios",
describes the file.

Loading is idempotent (each item replaces what its key held; the same file
twice leaves the sandbox as once) and all or nothing: every item is checked
first, and a mistake, named by item and field, applies none of it. The
running 'paycli sandbox serve' of the state folder (or the one --sandbox-url
names) loads it over HTTP; without one, the state folder is loaded directly.
FILE - reads standard input.`,
		Example: `  paycli sandbox load testdata/sandbox.yaml
  paycli sandbox load seed.json --sandbox-url http://127.0.0.1:9000/ccpayment`,
		Args: cmdutil.ExactArgs(1, "a scenario FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.StateDir, opts.URL, err = addressedSandbox(f, cmd, state); err != nil {
				return err
			}
			opts.File = args[0]
			return cmdutil.Run(cmd, opts, runF, loadRun)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder (default <state dir>/paycli/sandbox)")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable},
		Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "the sandbox named does not answer, or its state is in use"}})
	return cmd
}

// scenarioHint follows a scenario's refusal.
const scenarioHint = "Nothing of it was applied. docs/sandbox.md, \"Scenarios\", describes the file."

// loadRun checks the scenario, then applies it over HTTP: at the running
// sandbox, or at one started in this process over the state folder.
func loadRun(ctx context.Context, opts *LoadOptions) error {
	data, err := readScenario(opts)
	if err != nil {
		return err
	}
	if _, err := sandbox.ParseScenario(data); err != nil {
		return cmdutil.UsageHint(fmt.Errorf("scenario %s: %w", opts.File, err), scenarioHint)
	}
	url, err := sandboxURL(ctx, opts.URL, opts.StateDir, opts.Probe)
	if err != nil {
		return err
	}
	if url == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: opts.StateDir, LockTimeout: opts.LockTimeout,
			Gateway: sandbox.Options{Now: opts.Now}})
		if errors.Is(err, sandbox.ErrLocked) {
			return cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(opts.StateDir),
				"Another paycli command is using the sandbox; run 'paycli sandbox serve' so that commands can share it.")
		}
		if err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		url = srv.BaseURL
	}
	var res sandbox.ScenarioResult
	err = sandbox.CallAdmin(ctx, url, "POST", sandbox.LoadPath, data, &res)
	var refusal *sandbox.AdminError
	if errors.As(err, &refusal) && refusal.Status/100 == 4 {
		return cmdutil.UsageHint(fmt.Errorf("scenario %s: %w", opts.File, err), scenarioHint)
	}
	if err != nil {
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("load the scenario at %s: %w", url, err), "")
	}
	opts.IO.Notef("Scenario loaded: %s, %s, %s, %s.", render.Count(res.Merchants, "merchant", "merchants"),
		render.Count(res.Sales, "sale", "sales"), render.Count(res.Cards, "card", "cards"), render.Count(res.Links, "link", "links"))
	return nil
}

func readScenario(opts *LoadOptions) ([]byte, error) {
	var r io.Reader
	if opts.File == "-" {
		r = opts.IO.In
	} else {
		f, err := os.Open(opts.File)
		if err != nil {
			return nil, cmdutil.UsageErrorf("cannot read the scenario: %v", strings.TrimPrefix(err.Error(), "open "))
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxScenarioFile+1))
	if err != nil {
		return nil, cmdutil.UsageErrorf("cannot read the scenario %s: %v", opts.File, err)
	}
	if len(data) > maxScenarioFile {
		return nil, cmdutil.UsageErrorf("the scenario %s is larger than %d bytes", opts.File, maxScenarioFile)
	}
	return data, nil
}
