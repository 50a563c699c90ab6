package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// ResetOptions are the inputs of `paycli sandbox reset`.
type ResetOptions struct {
	IO       *iostreams.IOStreams
	Now      func() time.Time
	StateDir string
	Yes      bool
	// Merchant is the app_id of the one merchant to reset (--merchant).
	Merchant string
	// URL is the running sandbox --sandbox-url names ("" for the state
	// folder's own server, if one answers).
	URL string
	// Probe reports whether a sandbox answers at a base URL.
	Probe func(ctx context.Context, baseURL string) bool
	// LockTimeout bounds the wait for another process using the state.
	LockTimeout time.Duration
}

// NewCmdReset builds `paycli sandbox reset`.
func NewCmdReset(f *cmdutil.Factory, runF func(context.Context, *ResetOptions) error) *cobra.Command {
	opts := &ResetOptions{IO: f.IOStreams, Now: f.Now, LockTimeout: 2 * time.Second, Probe: sandbox.Probe}
	var state string
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Delete every sale the sandbox remembers",
		Long: `Delete every sale in the sandbox's state (with its refunds and webhook
deliveries), its saved cards and payment links, and its request log, after
a confirmation (or --yes when not on a terminal); --merchant resets one
merchant's alone. A running 'paycli sandbox serve' of the state folder (or
the one --sandbox-url names) is reset over HTTP while it runs, and keeps
its request log.`,
		Example: `  paycli sandbox reset --yes
  paycli sandbox reset --yes --merchant 0f3c...
  paycli sandbox reset --yes --sandbox-url http://127.0.0.1:9000/ccpayment`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.StateDir, opts.URL, err = addressedSandbox(f, cmd, state); err != nil {
				return err
			}
			if !opts.Yes && !opts.IO.CanPrompt() {
				return cmdutil.UsageErrorf("refusing to reset the sandbox without confirmation: pass --yes")
			}
			return cmdutil.Run(cmd, opts, runF, resetRun)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().StringVar(&opts.Merchant, "merchant", "", "reset only this merchant (its `app_id`, or default)")
	_ = cmd.RegisterFlagCompletionFunc("merchant", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable}, Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "the sandbox state is in use by another paycli process"}})
	return cmd
}

// resetRun empties the state: over HTTP when a sandbox serves it,
// otherwise in the state folder.
func resetRun(ctx context.Context, opts *ResetOptions) error {
	url, err := sandboxURL(ctx, opts.URL, opts.StateDir, opts.Probe)
	if err != nil {
		return err
	}
	if url != "" {
		return resetOverHTTP(ctx, opts, url)
	}
	if opts.Merchant != "" && opts.Merchant != sandbox.DefaultMerchant && opts.Merchant != sandbox.AppID {
		dir, err := sandbox.MerchantStateDir(opts.StateDir, opts.Merchant)
		if err != nil {
			return cmdutil.UsageErrorf("invalid --merchant: %v", err)
		}
		one := *opts
		one.Merchant, one.StateDir = "", dir
		return resetStore(ctx, &one, false)
	}
	return resetStore(ctx, opts, opts.Merchant == "")
}

// resetOverHTTP resets the sandbox serving at url.
func resetOverHTTP(ctx context.Context, opts *ResetOptions, url string) error {
	if !opts.Yes {
		what := "every merchant's sales"
		if opts.Merchant != "" {
			what = "the sales of merchant " + opts.Merchant
		}
		ok, err := opts.IO.Confirm(ctx, fmt.Sprintf("Delete %s at the sandbox %s?", what, url))
		if err != nil {
			return err
		}
		if !ok {
			opts.IO.Notef("Nothing was deleted.")
			return nil
		}
	}
	var ans sandbox.ResetAnswer
	err := sandbox.CallAdmin(ctx, url, "POST", sandbox.ResetPath, sandbox.ResetRequest{Merchant: opts.Merchant}, &ans)
	var refusal *sandbox.AdminError
	if errors.As(err, &refusal) && refusal.Field == "merchant" {
		return cmdutil.UsageErrorf("invalid --merchant: %v", err)
	}
	if err != nil {
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("reset the sandbox at %s: %w", url, err), "")
	}
	opts.IO.Notef("Sandbox reset: %s deleted (%s).", render.Count(ans.Sales, "sale", "sales"),
		render.Count(len(ans.Merchants), "merchant", "merchants"))
	return nil
}

// resetStore empties the store in opts.StateDir (with every created
// merchant's when all is set).
func resetStore(ctx context.Context, opts *ResetOptions, all bool) error {
	store, err := sandbox.OpenStore(opts.StateDir, opts.LockTimeout, opts.Now())
	if errors.Is(err, sandbox.ErrLocked) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(opts.StateDir),
			"Stop the running 'paycli sandbox serve' (or wait for the --sandbox command using it), then try again.")
	}
	if err != nil {
		return err
	}
	defer store.Close()
	sales, err := store.Sales()
	if err != nil {
		return err
	}
	if !opts.Yes {
		ok, err := opts.IO.Confirm(ctx, fmt.Sprintf("Delete %s in %s?", render.Count(len(sales), "sale", "sales"), opts.StateDir))
		if err != nil {
			return err
		}
		if !ok {
			opts.IO.Notef("Nothing was deleted.")
			return nil
		}
	}
	if err := store.Reset(); err != nil {
		return err
	}
	if all {
		// The default store's lock is held, so no sandbox serves the
		// merchants either.
		if err := sandbox.ResetMerchants(opts.StateDir, opts.Now()); err != nil {
			return err
		}
	}
	// The store's lock is held, so no sandbox is writing the log.
	if err := sandbox.RemoveRequestLog(opts.StateDir); err != nil {
		return err
	}
	opts.IO.Notef("Sandbox reset: %s deleted.", render.Count(len(sales), "sale", "sales"))
	return nil
}
