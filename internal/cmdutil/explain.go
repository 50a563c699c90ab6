package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
)

// StatusMerchantNotFound is the gateway's status_code for a merchant_key
// it does not know ("Invalid merchant key: merchant not found").
const StatusMerchantNotFound = 14

// ExplainGatewayError gives the failures that mean "the profile is wrong"
// the same message and advice whichever command met them (app.Run applies
// it to every command's error; a command that reports failures itself,
// line by line, calls it too):
//
//   - refused credentials (HTTP 401, status_code 30) name the profile and
//     say how to fix app_id and app_secret, and an unknown merchant_key
//     (status_code 14) how to fix it, with the profile's config commands
//     (ConfigCommand);
//   - a token call answered with HTTP 404 or an HTML page means base_url
//     does not point at the gateway's API: the message shows it (userinfo
//     masked) and the advice shows correct ones;
//   - a call the client refused to sign for want of a merchant_key
//     (gateway.ErrNoMerchantKey) names the profile and how to set one:
//     exit 2, nothing was sent.
//
// Other errors, and errors that already carry advice, are returned as they
// are; so is anything whose outcome is unknown (exit 7 must not be hidden).
// cfg may be nil when the configuration could not be read.
func ExplainGatewayError(err error, cfg *config.Config) error {
	if err == nil || cfg == nil || HintOf(err) != "" ||
		errors.Is(err, gateway.ErrOutcomeUnknown) || errors.Is(err, gateway.ErrPending) {
		return err
	}
	if kind, ok := KindOf(err); ok && kind != KindAuth && kind != KindRejected && kind != KindUnavailable {
		return err
	}
	profile := cfg.Profile
	var apiErr *gateway.APIError
	switch {
	case errors.Is(err, gateway.ErrNoMerchantKey):
		return UsageHint(fmt.Errorf("profile %q has no merchant_key", profile),
			fmt.Sprintf("Run '%s', or set %s_MERCHANT_KEY.", ConfigCommand(cfg, "init"), config.EnvPrefix))
	case errors.Is(err, gateway.ErrUnauthorized):
		return WithKind(KindAuth,
			fmt.Errorf("the gateway refused the credentials of profile %q (%w)", profile, err),
			fmt.Sprintf("Check app_id and app_secret of profile %q with '%s' and fix them with '%s' (or set %s_APP_ID and %s_APP_SECRET).",
				profile, ConfigCommand(cfg, "list"), ConfigCommand(cfg, "init"), config.EnvPrefix, config.EnvPrefix))
	case errors.As(err, &apiErr) && apiErr.HasStatusCode && apiErr.StatusCode == StatusMerchantNotFound:
		// Nothing was processed: the gateway did not find the merchant.
		return WithKind(KindRejected,
			fmt.Errorf("the gateway does not know the merchant_key of profile %q (%w)", profile, err),
			fmt.Sprintf("Check merchant_key with '%s' and fix it with '%s' (or set %s_MERCHANT_KEY); nothing was processed.",
				ConfigCommand(cfg, "list"), ConfigCommand(cfg, "init"), config.EnvPrefix))
	case errors.As(err, &apiErr) && apiErr.Endpoint == "token" && looksLikeWrongBaseURL(apiErr):
		kind := KindRejected
		if errors.Is(err, gateway.ErrUnavailable) {
			kind = KindUnavailable
		}
		return WithKind(kind,
			fmt.Errorf("base_url %s of profile %q looks wrong: %w", redact.URL(config.Shorten(cfg.BaseURL)), profile, err),
			fmt.Sprintf("A base URL ends in /ccpayment: %s (test) or %s (live). Fix it with 'paycli config set base_url URL --profile %s'.",
				config.TestBaseURL, config.LiveBaseURL, ShellQuote(profile)))
	}
	return err
}

// looksLikeWrongBaseURL reports whether a token call's answer came from
// something other than the gateway's API: no such path, or a web page. A
// 5xx page is the gateway (or its proxy) failing, not a wrong address.
func looksLikeWrongBaseURL(e *gateway.APIError) bool {
	return e.HTTPStatus == http.StatusNotFound ||
		(e.HTTPStatus < 500 && !e.HasStatusCode && strings.Contains(e.Problem, "html"))
}

// ConfigCommand is a `paycli config …` line of advice about the profile
// of cfg, quoted for a shell: it names the profile (--profile NAME) when
// --profile or PAYCLI_PROFILE chose it, so that the advice acts on that
// profile and not on the default one.
func ConfigCommand(cfg *config.Config, words ...string) string {
	line := append([]string{"paycli", "config"}, words...)
	if cfg != nil && cfg.ProfileNamed {
		line = append(line, "--profile", cfg.Profile)
	}
	return CommandLine(line...)
}

// UnavailableHint is the advice under an exit-8 error (the gateway or
// the shared journal out of reach for a call that was safe): a refused
// connection says nothing answers at base_url, where a longer --timeout
// would not help; a time limit reached says how to give the gateway
// longer; a shared journal out of reach points at its database, not at
// the gateway. cfg, the profile's configuration, may be nil.
func UnavailableHint(err error, cfg *config.Config) string {
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, journal.ErrUnavailable):
		return "Check that the shared journal's database (journal, " + config.EnvPrefix + "_JOURNAL) runs and can be reached, then run the command again."
	case errors.Is(err, syscall.ECONNREFUSED):
		at := "base_url"
		if cfg != nil && cfg.BaseURL != "" {
			at = "base_url " + redact.URL(config.Shorten(cfg.BaseURL))
		}
		return "Nothing answers at " + at + ": check it and that the gateway runs; --debug shows the requests."
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &timeout) && timeout.Timeout():
		return "The gateway did not answer in time: try again later, or give it longer with --timeout; --debug shows the requests."
	}
	return "Check base_url and the network, then try again; --timeout sets the time limit and --debug shows the requests."
}
