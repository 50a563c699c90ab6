package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
)

// TestExitCode pins the exit code of every typed error paycli has.
func TestExitCode(t *testing.T) {
	api := func(endpoint string, http, code int) error {
		return &gateway.APIError{Endpoint: endpoint, HTTPStatus: http, StatusCode: code, HasStatusCode: true}
	}
	bad := func(endpoint string, http int) error {
		return &gateway.APIError{Endpoint: endpoint, HTTPStatus: http, Problem: "the body is not JSON (text/html)"}
	}
	req := func(endpoint string, sent bool, cause error) error {
		return &gateway.RequestError{Endpoint: endpoint, Sent: sent, Err: cause}
	}
	wrap := func(err error) error { return fmt.Errorf("walletpay: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain error", errors.New("boom"), ExitError},
		{"io error", io.ErrUnexpectedEOF, ExitError},

		{"kind unexpected", cmdutil.WithKind(cmdutil.KindUnexpected, errors.New("x"), ""), ExitError},
		{"kind usage", cmdutil.UsageErrorf("bad flag"), ExitUsage},
		{"kind auth", cmdutil.WithKind(cmdutil.KindAuth, errors.New("x"), ""), ExitAuth},
		{"kind rejected", cmdutil.WithKind(cmdutil.KindRejected, errors.New("x"), ""), ExitRejected},
		{"kind declined", cmdutil.WithKind(cmdutil.KindDeclined, errors.New("x"), ""), ExitDeclined},
		{"kind duplicate", cmdutil.WithKind(cmdutil.KindDuplicate, errors.New("x"), ""), ExitDuplicate},
		{"kind outcome unknown", cmdutil.WithKind(cmdutil.KindOutcomeUnknown, errors.New("x"), ""), ExitOutcomeUnknown},
		{"kind unavailable", cmdutil.WithKind(cmdutil.KindUnavailable, errors.New("x"), ""), ExitUnavailable},
		{"kind journal refused", cmdutil.WithKind(cmdutil.KindJournalRefused, errors.New("x"), ""), ExitJournalRefused},
		{"the journal refused an intent: unsettled", fmt.Errorf("cannot record: %w", fmt.Errorf("refused: %w", journal.ErrUnsettled)), ExitUsage},
		{"kind interrupted", cmdutil.WithKind(cmdutil.KindInterrupted, errors.New("x"), ""), ExitInterrupted},
		{"silent", cmdutil.SilentError(cmdutil.KindDeclined), ExitDeclined},
		{"kind beats the gateway error it wraps", cmdutil.WithKind(cmdutil.KindAuth, api("token", 200, 1), ""), ExitAuth},

		{"config file error", &config.FileError{Path: "c.yaml", Err: errors.New("x")}, ExitUsage},
		{"config profile error", &config.ProfileError{Profile: "p", Path: "c.yaml"}, ExitUsage},
		{"config value error", &config.ValueError{Key: "timeout", Where: "--timeout", Err: errors.New("x")}, ExitUsage},
		{"invalid base url", fmt.Errorf("%w: http://example.com", gateway.ErrInvalidBaseURL), ExitUsage},
		{"stdin line over the cap", fmt.Errorf("reading app_secret: %w", iostreams.ErrLineTooLong), ExitUsage},

		// A lookup's success whose data could not be read (getpos's data
		// of a shape paycli does not know) is not an unreachable gateway.
		{"getpos data unreadable", &gateway.APIError{Endpoint: "getpos", HTTPStatus: 200, Problem: "the data does not match the protocol", DataErr: errors.New("x")}, ExitError},
		{"commissions data unreadable", &gateway.APIError{Endpoint: "commissions", HTTPStatus: 200, Problem: "the data does not match the protocol", DataErr: errors.New("x")}, ExitError},
		{"walletpay data unreadable", &gateway.APIError{Endpoint: gateway.EndpointWalletPay, HTTPStatus: 200, Problem: "the data does not match the protocol", DataErr: errors.New("x")}, ExitOutcomeUnknown},
		{"http 401", &gateway.APIError{Endpoint: "commissions", HTTPStatus: 401}, ExitAuth},
		{"status 30", api("token", 200, 30), ExitAuth},
		{"status 1", api("token", 200, 1), ExitRejected},
		{"status 12", api("walletPay", 200, 12), ExitRejected},
		{"status 90 hash", api("walletPay", 200, 90), ExitRejected},
		{"status 0 no data", api("commissions", 200, 0), ExitRejected},
		{"status 31 not found", api("checkstatus", 200, 31), ExitRejected},
		{"status 41", api("walletPay", 200, 41), ExitDeclined},
		{"status 44", api("walletPay", 200, 44), ExitDeclined},
		{"status 60", api("walletPay", 200, 60), ExitDeclined},
		{"status 3", api("walletPay", 200, 3), ExitDuplicate},
		{"status 117", api("walletPay", 200, 117), ExitDuplicate},
		{"status 69", api("walletPay", 200, 69), ExitOutcomeUnknown},
		{"status 69 on checkstatus", api("checkstatus", 200, 69), ExitOutcomeUnknown},
		{"http 422 no status", &gateway.APIError{Endpoint: "walletPay", HTTPStatus: 422}, ExitRejected},
		{"http 429 safe call", &gateway.APIError{Endpoint: "commissions", HTTPStatus: 429}, ExitUnavailable},
		{"http 429 walletPay", &gateway.APIError{Endpoint: "walletPay", HTTPStatus: 429}, ExitRejected},
		{"http 500 safe call", bad("commissions", 500), ExitUnavailable},
		{"http 502 token", bad("token", 502), ExitUnavailable},
		{"http 503 checkstatus", bad("checkstatus", 503), ExitUnavailable},
		{"http 500 walletPay", bad("walletPay", 500), ExitOutcomeUnknown},
		{"http 502 walletPay", bad("walletPay", 502), ExitOutcomeUnknown},
		{"html 200 safe call", bad("commissions", 200), ExitUnavailable},
		{"truncated 200 walletPay", bad("walletPay", 200), ExitOutcomeUnknown},
		{"http 404 html walletPay", bad("walletPay", 404), ExitRejected},
		{"refund 104 id used", api("refund", 200, 104), ExitDuplicate},
		{"refund 110 partial", api("refund", 200, 110), ExitRejected},
		{"refund 49 failed", api("refund", 200, 49), ExitRejected},
		{"refund 31 no transaction", api("refund", 200, 31), ExitRejected},
		{"refund 502", bad("refund", 502), ExitOutcomeUnknown},
		{"confirmPayment 500", bad("confirmPayment", 500), ExitOutcomeUnknown},
		{"payment/complete truncated", bad("payment/complete", 200), ExitOutcomeUnknown},
		{"api money path 503", &gateway.APIError{Endpoint: "/api/refund", HTTPStatus: 503}, ExitOutcomeUnknown},
		{"refund answer about another invoice", &gateway.InconsistentError{Endpoint: "refund", Reasons: []string{"x"}}, ExitOutcomeUnknown},
		{"refund 401 not repeated", &gateway.TokenRefusedError{Err: &gateway.APIError{Endpoint: "refund", HTTPStatus: 401}}, ExitAuth},
		{"request refused by the client", fmt.Errorf("getpos: %w: credit_card", gateway.ErrInvalidRequest), ExitUsage},

		{"refused safe call", req("commissions", false, errors.New("connection refused")), ExitUnavailable},
		{"refused walletPay, not sent", req("walletPay", false, errors.New("connection refused")), ExitUnavailable},
		{"reset walletPay, sent", req("walletPay", true, io.ErrUnexpectedEOF), ExitOutcomeUnknown},
		{"timeout safe call", req("token", true, context.DeadlineExceeded), ExitUnavailable},
		{"timeout walletPay", req("walletPay", true, context.DeadlineExceeded), ExitOutcomeUnknown},
		{"ctrl-c safe call", req("commissions", true, context.Canceled), ExitInterrupted},
		{"ctrl-c walletPay before sending", req("walletPay", false, context.Canceled), ExitInterrupted},
		{"ctrl-c walletPay after sending", req("walletPay", true, context.Canceled), ExitOutcomeUnknown},
		{"wrapped outcome unknown", wrap(req("walletPay", true, io.EOF)), ExitOutcomeUnknown},
		{"wrapped declined", wrap(api("walletPay", 200, 41)), ExitDeclined},
		{"context canceled", context.Canceled, ExitInterrupted},
		{"deadline exceeded", fmt.Errorf("x: %w", context.DeadlineExceeded), ExitUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}
