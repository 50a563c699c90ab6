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
	// LockTimeout bounds the wait for another process using the state.
	LockTimeout time.Duration
}

// NewCmdReset builds `paycli sandbox reset`.
func NewCmdReset(f *cmdutil.Factory, runF func(context.Context, *ResetOptions) error) *cobra.Command {
	opts := &ResetOptions{IO: f.IOStreams, Now: f.Now, LockTimeout: 2 * time.Second}
	var state string
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Delete every sale the sandbox remembers",
		Long: `Delete every sale in the sandbox's state (with its refunds and webhook
deliveries), its saved cards and payment links, and its request log, after
a confirmation (or --yes when not on a terminal). A running 'paycli sandbox
serve' holds the state: stop it first.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if !opts.Yes && !opts.IO.CanPrompt() {
				return cmdutil.UsageErrorf("refusing to reset the sandbox without confirmation: pass --yes")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return resetRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable}, Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "the sandbox state is in use by another paycli process"}})
	return cmd
}

// resetRun empties the state.
func resetRun(ctx context.Context, opts *ResetOptions) error {
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
			fmt.Fprintln(opts.IO.ErrOut, "Nothing was deleted.")
			return nil
		}
	}
	if err := store.Reset(); err != nil {
		return err
	}
	// The store's lock is held, so no sandbox is writing the log.
	if err := sandbox.RemoveRequestLog(opts.StateDir); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Sandbox reset: %s deleted.\n", render.Count(len(sales), "sale", "sales"))
	return nil
}
