// Package versioncmd implements `paycli version`.
package versioncmd

import (
	"context"
	"fmt"

	"github.com/paycli/paycli/internal/buildinfo"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli version`.
type Options struct {
	cmdutil.Deps
	Info buildinfo.Info
}

// NewCmdVersion builds `paycli version`.
func NewCmdVersion(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.Deps{IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print paycli's version, commit and build date",
		Long: `Print paycli's version, commit and build date. It reads no configuration:
the format is -o or --jq on its command line, else a line of text.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Info = f.Build()
			// The version reads no configuration (and so no keyring):
			// only -o and --jq on its command line choose the format.
			opts.Format = opts.JSON.Format(cmdutil.FlagOutputFormat(cmd))
			return cmdutil.Run(cmd, opts, runF, versionRun)
		},
	}
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// versionRun prints the version.
func versionRun(ctx context.Context, opts *Options) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	i := opts.Info
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, i)
	case render.CSV, render.TSV:
		return render.WriteRecords(opts.IO.Out, format, []string{"version", "commit", "date", "go"},
			[][]string{{i.Version, i.Commit, i.Date, i.Go}})
	}
	line := "paycli " + i.Version
	if i.Commit != "" {
		line += " (" + i.Commit
		if i.Date != "" {
			line += ", " + i.Date
		}
		line += ")"
	}
	_, err = fmt.Fprintln(opts.IO.Out, line)
	return err
}
