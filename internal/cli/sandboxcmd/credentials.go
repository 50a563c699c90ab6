package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/sandboxmode"
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
	// New creates an isolated merchant at the running sandbox and prints
	// its credentials.
	New bool
	// Webhooks are the new merchant's own web hook keys (KEY=URL).
	Webhooks map[string]string
	// URL is the running sandbox --sandbox-url names.
	URL string
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
	var webhooks []string
	cmd := &cobra.Command{
		Use:   "credentials",
		Short: "Print the sandbox's base URL and credentials",
		Long: `Print the sandbox's base URL and its fixed credentials. The base URL is that
of the running 'paycli sandbox serve' when one answers (or of --sandbox-url),
else the default address of serve. The credentials are published and move
no money, so they are printed in full.

--new creates a merchant at the running sandbox and prints its fresh
credentials instead: its sales, saved cards, payment links and webhooks are
seen by no other merchant, so each test (or CI worker) can have its own
from one server. --webhook KEY=URL registers web hook keys for it alone.`,
		Example: `  paycli sandbox credentials
  paycli sandbox credentials --jq .base_url
  paycli sandbox credentials --new -o json
  paycli sandbox credentials --new --webhook sales=http://127.0.0.1:9000/hooks`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			if opts.URL, _, err = sandboxmode.Target(cmd, f.LookupEnv); err != nil {
				return err
			}
			if len(webhooks) > 0 && !opts.New {
				return cmdutil.UsageErrorf("--webhook needs --new: it registers web hook keys for a new merchant")
			}
			opts.Webhooks = map[string]string{}
			for _, kv := range webhooks {
				key, u, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(key) == "" {
					return cmdutil.UsageErrorf("invalid --webhook %q: want KEY=URL", kv)
				}
				opts.Webhooks[strings.TrimSpace(key)] = strings.TrimSpace(u)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return credentialsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to report (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVar(&opts.New, "new", false, "create an isolated merchant at the running sandbox and print its credentials")
	cmd.Flags().StringArrayVar(&webhooks, "webhook", nil, "with --new, register a web hook key for the new merchant: `KEY=URL` (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("webhook", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(f.OutputFormat)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable},
		Notes: map[cmdutil.Kind]string{cmdutil.KindUnavailable: "--new and no sandbox serving"}})
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
	serving := false
	if opts.URL != "" {
		c.BaseURL, serving = opts.URL, opts.Probe(ctx, opts.URL)
	} else if u := sandbox.ReadAddress(opts.StateDir); u != "" && opts.Probe(ctx, u) {
		c.BaseURL, serving = u, true
	}
	if opts.New {
		if !serving {
			return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("no sandbox answers at %s", c.BaseURL),
				"--new creates a merchant at a running sandbox: start 'paycli sandbox serve' (or pass --sandbox-url).")
		}
		var m sandbox.MerchantAnswer
		err := sandbox.CallAdmin(ctx, c.BaseURL, "POST", sandbox.MerchantsPath, sandbox.CreateMerchantRequest{Webhooks: opts.Webhooks}, &m)
		var refusal *sandbox.AdminError
		if errors.As(err, &refusal) && refusal.Status == 400 {
			return cmdutil.UsageErrorf("invalid --webhook: %v", err)
		}
		if err != nil {
			return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("create a merchant at %s: %w", c.BaseURL, err), "")
		}
		c.AppID, c.AppSecret, c.MerchantKey = m.AppID, m.AppSecret, m.MerchantKey
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
