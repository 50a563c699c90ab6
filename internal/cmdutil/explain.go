package cmdutil

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/redact"
)

// ExplainGatewayError gives the failures that mean "the profile is wrong"
// the same message and advice whichever command met them (app.Run applies
// it to every command's error; a command that reports failures itself,
// line by line, calls it too):
//
//   - refused credentials (HTTP 401, status_code 30) name the profile and
//     say how to fix app_id and app_secret;
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
			fmt.Sprintf("Run 'paycli config init', or set %s_MERCHANT_KEY.", config.EnvPrefix))
	case errors.Is(err, gateway.ErrUnauthorized):
		return WithKind(KindAuth,
			fmt.Errorf("the gateway refused the credentials of profile %q (%w)", profile, err),
			fmt.Sprintf("Check app_id and app_secret of profile %q with 'paycli config list' and fix them with 'paycli config init' (or set %s_APP_ID and %s_APP_SECRET).",
				profile, config.EnvPrefix, config.EnvPrefix))
	case errors.As(err, &apiErr) && apiErr.Endpoint == "token" && looksLikeWrongBaseURL(apiErr):
		kind := KindRejected
		if errors.Is(err, gateway.ErrUnavailable) {
			kind = KindUnavailable
		}
		return WithKind(kind,
			fmt.Errorf("base_url %s of profile %q looks wrong: %w", redact.URL(config.Shorten(cfg.BaseURL)), profile, err),
			fmt.Sprintf("A base URL ends in /ccpayment: %s (test) or %s (live). Fix it with 'paycli config set base_url URL --profile %s'.",
				config.TestBaseURL, config.LiveBaseURL, profile))
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
