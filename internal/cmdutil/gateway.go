package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
)

// GatewayOptions are what NewGatewayClient needs besides the configuration.
type GatewayOptions struct {
	// CacheDir holds the token cache (<user cache dir>/paycli).
	CacheDir string
	// UserAgent is sent with every request, e.g. "paycli/1.2.3".
	UserAgent string
	// Debug receives the redacted HTTP log (--debug); nil logs nothing.
	Debug io.Writer
	// Now is the clock.
	Now func() time.Time
}

// NewGatewayClient builds the gateway client from a resolved configuration,
// and from nothing else, so that whatever fills the configuration (flags,
// environment, file, --sandbox) decides where requests go. The client holds
// the profile's credentials and merchant_key and signs every request
// itself. Missing credentials, an unusable base URL or ca_cert are usage
// errors: exit 2, nothing sent. A missing merchant_key is not: commission
// lookups and tokens need none; the calls that do refuse to go without one
// (gateway.ErrNoMerchantKey, worded by ExplainGatewayError).
func NewGatewayClient(cfg *config.Config, opts GatewayOptions) (*gateway.Client, error) {
	var missing []string
	for _, k := range []struct{ name, value string }{{"base_url", cfg.BaseURL}, {"app_id", cfg.AppID}, {"app_secret", cfg.AppSecret}} {
		if k.value == "" {
			missing = append(missing, k.name)
		}
	}
	if len(missing) > 0 {
		envs := make([]string, len(missing))
		for i, m := range missing {
			envs[i] = config.EnvPrefix + "_" + strings.ToUpper(m)
		}
		hint := fmt.Sprintf("Run '%s' to set up the profile, or set %s.", ConfigCommand(cfg, "init"), strings.Join(envs, ", "))
		if len(missing) == 3 {
			// Nothing set up yet: most likely someone trying paycli out.
			hint += " To try paycli without an account, add --sandbox."
		}
		return nil, UsageHint(fmt.Errorf("profile %q has no %s", cfg.Profile, strings.Join(missing, ", ")), hint)
	}
	hc, err := gateway.NewHTTPClient(gateway.TransportOptions{CACertFile: cfg.CACert, Timeout: cfg.Timeout})
	if err != nil {
		return nil, UsageHint(err, fmt.Sprintf("Fix ca_cert in profile %q (a PEM file of CA certificates), or remove it.", cfg.Profile))
	}
	clientOpts := []gateway.Option{
		gateway.WithHTTPClient(hc),
		gateway.WithUserAgent(opts.UserAgent),
		gateway.WithClock(opts.Now),
		gateway.WithTokenCache(NewTokenCache(cfg, opts.CacheDir, opts.Now)),
		// The member the profile names, or whose URL base_url is, answers
		// in its own dialect; any other base URL is read in any member's.
		gateway.WithGateway(cfg.Gateway),
	}
	if opts.Debug != nil {
		clientOpts = append(clientOpts, gateway.WithLogger(slog.New(slog.NewTextHandler(opts.Debug, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	c, err := gateway.New(cfg.BaseURL, gateway.Credentials{AppID: cfg.AppID, AppSecret: cfg.AppSecret, MerchantKey: cfg.MerchantKey}, clientOpts...)
	if errors.Is(err, gateway.ErrInvalidBaseURL) {
		return nil, UsageHint(err, fmt.Sprintf("Set base_url of profile %q to the gateway's https address, e.g. %s.", cfg.Profile, config.TestBaseURL))
	}
	return c, err
}

// CommandContext returns ctx limited by the configured timeout (--timeout,
// PAYCLI_TIMEOUT, the profile's timeout, 30s): commands that talk to the
// gateway run under it.
func (f *Factory) CommandContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, err
	}
	if cfg.Timeout <= 0 {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	return ctx, cancel, nil
}

// RequireAppSecret is the profile's app_secret, for a command that uses it
// here rather than sending it (hash_keys, webhooks); why says what it is
// needed for.
func RequireAppSecret(cfg *config.Config, why string) (string, error) {
	if cfg.AppSecret == "" {
		return "", UsageHint(fmt.Errorf("no app_secret configured for profile %q: %s", cfg.Profile, why),
			"Set it with 'paycli config set app_secret -' (reads it from stdin) or PAYCLI_APP_SECRET; --sandbox uses the sandbox's.")
	}
	return cfg.AppSecret, nil
}
