// Package tokencmd implements `paycli token`: a bearer token for scripts.
package tokencmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// Options are the inputs of `paycli token`.
type Options struct {
	cmdutil.Deps
	TokenCache func() (*gateway.FileTokenCache, error)

	// Refresh fetches a new token even when the cached one is good.
	Refresh bool
	// Clear deletes the profile's cached tokens instead.
	Clear bool
}

// NewCmdToken builds `paycli token`.
func NewCmdToken(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		Deps:       cmdutil.DepsOf(f),
		TokenCache: f.TokenCache,
	}
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print a bearer token for the gateway",
		Long: `Print a bearer token for the selected profile, and nothing else, so that
scripts can use it:

  curl -H "Authorization: Bearer $(paycli token)" ...

Tokens are cached per profile and gateway under <user cache dir>/paycli/
(mode 0600) and reused until five minutes before they expire, so running
paycli token again costs no request. --refresh asks the gateway for a new
one; --clear deletes the profile's cached tokens.

With -o json the output is {"token", "is_3d", "expires_at", "cached",
"gateway_expires_at"}: is_3d is the gateway's 0 (2D only), 1 (2D or 3D),
2 (3D only) or 4 (branded); expires_at is the instant, in UTC (RFC 3339),
from which paycli no longer uses the token (the earlier of the gateway's
expires_at and the token's own expiry), or null when neither says; an
expires_at the gateway wrote that is already past is shown as it is, with
a warning; cached tells whether the token came from the cache;
gateway_expires_at is the gateway's expires_at as it wrote it (absent when
it sent none).`,
		Example: `  paycli token
  paycli token --profile live -o json
  paycli token --refresh
  paycli token --clear`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Refresh && opts.Clear {
				return cmdutil.UsageErrorf("--refresh and --clear cannot be used together")
			}
			return cmdutil.Run(cmd, opts, runF, tokenRun)
		},
	}
	cmd.Flags().BoolVar(&opts.Refresh, "refresh", false, "get a new token even if the cached one is still good")
	cmd.Flags().BoolVar(&opts.Clear, "clear", false, "delete this profile's cached token and print nothing")
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway})
	return cmd
}

// Output is the JSON form of `paycli token -o json`; its fields are a
// stable interface.
type Output struct {
	Token     string       `json:"token"`
	Is3D      int          `json:"is_3d"`
	ExpiresAt *render.Time `json:"expires_at"`
	Cached    bool         `json:"cached"`
	// GatewayExpiresAt is the gateway's expires_at as it wrote it.
	GatewayExpiresAt string `json:"gateway_expires_at,omitempty"`
}

// tokenRun prints the token, or clears the cache.
func tokenRun(ctx context.Context, opts *Options) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.Clear {
		return clearCache(opts, cfg.Profile)
	}
	ctx, call, err := opts.Open(ctx, cmdutil.Credentials)
	if err != nil {
		return err
	}
	defer call.Close()
	format, client := call.Format, call.Client
	tok, cached, err := client.BearerToken(ctx, opts.Refresh)
	if err != nil {
		return explain(err, cfg)
	}

	out := Output{Token: tok.Value, Is3D: tok.Is3D, Cached: cached, GatewayExpiresAt: tok.RawExpiresAt}
	if !tok.ExpiresAt.IsZero() {
		out.ExpiresAt = &render.Time{Time: tok.ExpiresAt}
	} else if t, ok := gateway.ParseTime(tok.RawExpiresAt); ok {
		// The client ignores an expires_at that is already past (a token
		// just issued cannot have expired): show what the gateway said.
		out.ExpiresAt = &render.Time{Time: t}
		opts.IO.Warnf("the gateway says this token expires at %s (%s), which is already past by this machine's clock; check the clock. paycli does not cache the token.",
			render.Escape(tok.RawExpiresAt), render.FormatTime(t, render.Table))
	}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, out)
	case render.CSV, render.TSV:
		exp := ""
		if out.ExpiresAt != nil {
			exp = render.FormatTime(out.ExpiresAt.Time, format)
		}
		return render.WriteRecords(opts.IO.Out, format, []string{"token", "is_3d", "expires_at", "cached"},
			[][]string{{out.Token, strconv.Itoa(out.Is3D), exp, strconv.FormatBool(out.Cached)}})
	}
	_, err = fmt.Fprintln(opts.IO.Out, tok.Value)
	return err
}

func clearCache(opts *Options, profile string) error {
	cache, err := opts.TokenCache()
	if err != nil {
		return err
	}
	n, err := cache.Clear()
	if err != nil {
		return fmt.Errorf("clearing the token cache in %s: %w", cache.Dir(), err)
	}
	if n == 0 {
		opts.IO.Notef("No cached token for profile %q.", profile)
		return nil
	}
	opts.IO.Notef("Deleted the cached %s of profile %q.", map[bool]string{true: "token", false: "tokens"}[n == 1], profile)
	return nil
}

// explain adds what to do next to the token call's failures that
// cmdutil.ExplainGatewayError leaves alone.
func explain(err error, cfg *config.Config) error {
	err = cmdutil.ExplainGatewayError(err, cfg)
	if cmdutil.HintOf(err) == "" && errors.Is(err, gateway.ErrUnavailable) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, err, cmdutil.UnavailableHint(err, cfg))
	}
	return err
}
