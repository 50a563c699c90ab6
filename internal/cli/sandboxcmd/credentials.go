package sandboxcmd

import (
	"context"
	"fmt"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// CredentialsOptions are the inputs of `paycli sandbox credentials`.
type CredentialsOptions struct {
	IO       *iostreams.IOStreams
	Format   func() (render.Format, error)
	StateDir string
	// Probe reports whether a sandbox answers at a base URL.
	Probe func(ctx context.Context, baseURL string) bool
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
}

// Credentials is the JSON shape printed by `paycli sandbox credentials -o json`.
type Credentials struct {
	BaseURL     string `json:"base_url"`
	AppID       string `json:"app_id"`
	AppSecret   string `json:"app_secret"`
	MerchantKey string `json:"merchant_key"`
}

// NewCmdCredentials builds `paycli sandbox credentials`.
func NewCmdCredentials(f *cmdutil.Factory, runF func(context.Context, *CredentialsOptions) error) *cobra.Command {
	opts := &CredentialsOptions{IO: f.IOStreams, Format: f.OutputFormat, Probe: sandbox.Probe}
	var state string
	cmd := &cobra.Command{
		Use:   "credentials",
		Short: "Print the sandbox's base URL and credentials",
		Long: `Print the sandbox's base URL and its fixed credentials. The base URL is that
of the running 'paycli sandbox serve' when one answers, else the default
address of serve. The credentials are published and move no money, so they
are printed in full.`,
		Example: `  paycli sandbox credentials
  paycli sandbox credentials --jq .base_url`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return credentialsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to report (default <state dir>/paycli/sandbox)")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// credentialsRun prints the credentials.
func credentialsRun(ctx context.Context, opts *CredentialsOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	c := Credentials{
		BaseURL:     "http://" + DefaultAddr + sandbox.Base,
		AppID:       sandbox.AppID,
		AppSecret:   sandbox.AppSecret,
		MerchantKey: sandbox.MerchantKey,
	}
	if u := sandbox.ReadAddress(opts.StateDir); u != "" && opts.Probe(ctx, u) {
		c.BaseURL = u
	}
	header := []string{"base_url", "app_id", "app_secret", "merchant_key"}
	row := []string{c.BaseURL, c.AppID, c.AppSecret, c.MerchantKey}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, c)
	case render.CSV, render.TSV:
		return render.WriteRecords(opts.IO.Out, format, header, [][]string{row})
	}
	for i, name := range header {
		if _, err := fmt.Fprintf(opts.IO.Out, "%-13s %s\n", name+":", row[i]); err != nil {
			return err
		}
	}
	return nil
}
