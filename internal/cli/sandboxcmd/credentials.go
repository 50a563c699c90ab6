package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// CredentialsOptions are the inputs of `paycli sandbox credentials`.
type CredentialsOptions struct {
	cmdutil.Deps
	StateDir string
	// Probe reports whether a sandbox answers at a base URL before ctx
	// ends.
	Probe func(ctx context.Context, baseURL string) bool
	// Sleep waits between --new's attempts to find the sandbox.
	Sleep func(ctx context.Context, d time.Duration) error
	// Timeout bounds --new's wait for the sandbox to answer (--timeout).
	Timeout time.Duration
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
	opts := &CredentialsOptions{Deps: cmdutil.DepsOf(f), Probe: sandbox.Healthy, Sleep: pause.For}
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
from one server. --webhook KEY=URL registers web hook keys for it alone.
--new waits up to --timeout for the sandbox to answer: the one --sandbox-url
names, else the state folder's serve, else the default address of serve.`,
		Example: `  paycli sandbox credentials
  paycli sandbox credentials --jq .base_url
  paycli sandbox credentials --new -o json
  paycli sandbox credentials --new --webhook sales=http://127.0.0.1:9000/hooks`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.StateDir, opts.URL, err = addressedSandbox(f, cmd, state); err != nil {
				return err
			}
			if opts.Timeout, err = commandTimeout(cmd, f.LookupEnv); err != nil {
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
			return cmdutil.Run(cmd, opts, runF, credentialsRun)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "state folder of the server to report (default <state dir>/paycli/sandbox)")
	cmd.Flags().BoolVar(&opts.New, "new", false, "create an isolated merchant at the running sandbox and print its credentials")
	cmd.Flags().StringArrayVar(&webhooks, "webhook", nil, "with --new, register a web hook key for the new merchant: `KEY=URL` (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("webhook", noValueCompletion)
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	opts.AddJSONFlags(cmd)
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
	switch {
	case !opts.New && opts.URL != "":
		c.BaseURL = opts.URL
	case !opts.New:
		// Only the base URL to print depends on it: one short probe.
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		if u := sandbox.ReadAddress(opts.StateDir); u != "" && opts.Probe(pctx, u) {
			c.BaseURL = u
		}
		cancel()
	default:
		if c.BaseURL, err = findSandbox(ctx, opts); err != nil {
			return err
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

// findSandbox returns the base URL of the sandbox --new creates the merchant
// at: --sandbox-url's, else the state folder's serve (its address file read
// again on every try, as ready does), else the default address. It tries
// until one answers or opts.Timeout ends, so a sandbox slow under a CI
// job's load is still found. A Timeout of 0 asks once.
func findSandbox(ctx context.Context, opts *CredentialsOptions) (string, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	const every = 200 * time.Millisecond
	var url string
	for {
		url = opts.URL
		if url == "" {
			if url = sandbox.ReadAddress(opts.StateDir); url == "" {
				url = "http://" + DefaultAddr + sandbox.Base
			}
		}
		if opts.Probe(ctx, url) {
			return url, nil
		}
		if opts.Timeout <= 0 || opts.Sleep(ctx, every) != nil {
			break
		}
	}
	what := "answers"
	if opts.Timeout > 0 {
		what = fmt.Sprintf("answered within %s", opts.Timeout)
	}
	return "", cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("no sandbox %s at %s", what, url),
		"--new creates a merchant at a running sandbox: start 'paycli sandbox serve' (or pass --sandbox-url).")
}

// commandTimeout is the command's time limit: --timeout, else
// PAYCLI_TIMEOUT, else 30s. The sandbox commands read no profile, so a
// profile's timeout does not apply to them.
func commandTimeout(cmd *cobra.Command, lookupEnv func(string) (string, bool)) (time.Duration, error) {
	raw, from := "30s", ""
	if fl := cmd.Flag("timeout"); fl != nil && fl.Changed {
		raw, from = fl.Value.String(), "--timeout"
	} else if v, ok := lookupEnv("PAYCLI_TIMEOUT"); ok && strings.TrimSpace(v) != "" {
		raw, from = strings.TrimSpace(v), "PAYCLI_TIMEOUT"
	}
	d, err := config.ParseTimeout(raw)
	if err != nil {
		return 0, cmdutil.UsageErrorf("invalid %s: %v", from, err)
	}
	return d, nil
}
