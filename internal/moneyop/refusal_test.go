package moneyop

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestARefusalReadsOnce: every money command's rejection reads the same
// way, as one sentence — what happened, the gateway's words once, what
// was not done in the command's own verb — with what to do on the line
// after; a batch line says the same sentence.
func TestARefusalReadsOnce(t *testing.T) {
	env := &Env{GatewayFlags: []string{"--sandbox"}}
	refused := func(code int, text string) Outcome {
		o := ClassifyError(gateway.EndpointRefund, &gateway.APIError{Endpoint: gateway.EndpointRefund, HTTPStatus: http.StatusOK, StatusCode: code, HasStatusCode: true, Description: text})
		if o.Class != journal.Rejected {
			t.Fatalf("status_code %d classified %s", code, o.Class)
		}
		return o
	}
	partial := refused(110, "Partial refund is not allowed for this merchant")
	partial.Say = "the gateway refused the refund: this merchant may not refund part of a sale"
	partial.Hint = "Refund all that remains instead: paycli refund --invoice R1 --full --sandbox"
	for _, c := range []struct {
		name     string
		d        Description
		o        Outcome
		want     string
		wantHint string
	}{
		{"a refund's 110, in the operation's words", Description{Noun: "refund", NotDone: "nothing was refunded"}, partial,
			`the gateway refused the refund: this merchant may not refund part of a sale (status_code 110 "Partial refund is not allowed for this merchant"); nothing was refunded`,
			partial.Hint},
		{"a payment's, in the pipeline's", Description{}, refused(12, "Invalid wallet token"),
			`the gateway refused the payment (status_code 12 "Invalid wallet token"); nothing was charged`,
			"Correct what the gateway names, then run the command again."},
		{"a capture's", Description{Noun: "capture", NotDone: "nothing was captured"}, refused(52, "Amount too high"),
			`the gateway refused the capture (status_code 52 "Amount too high"); nothing was captured`,
			"Correct what the gateway names, then run the command again."},
		{"an unknown merchant_key: the profile's advice is app's", Description{}, refused(cmdutil.StatusMerchantNotFound, "merchant not found"),
			`the gateway refused the payment (status_code 14 "merchant not found"); nothing was charged`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := explainFailure(env, c.d, "R1", c.o)
			if err.Error() != c.want {
				t.Errorf("error\n %s\nwant\n %s", err, c.want)
			}
			if hint := cmdutil.HintOf(err); hint != c.wantHint {
				t.Errorf("hint %q, want %q", hint, c.wantHint)
			}
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected {
				t.Errorf("kind %v, want rejected (exit 4)", k)
			}
			var apiErr *gateway.APIError
			if !errors.As(err, &apiErr) {
				t.Error("the gateway's error is lost under the refusal")
			}
			var line BatchResult
			fillResult(&line, c.o, env, "R1", c.d)
			wantLine := c.want
			if c.o.Hint != "" {
				wantLine += "; " + c.o.Hint
			}
			if line.Error == nil || *line.Error != wantLine {
				t.Errorf("batch line's error %v, want %q", line.Error, wantLine)
			}
			if strings.Count(err.Error(), "status_code") != 1 {
				t.Errorf("the gateway's words are not there once: %s", err)
			}
		})
	}
	// Refused credentials are no refusal of the operation: they keep
	// exit 3 and the profile's advice, which app adds.
	creds := ClassifyError("fake", &gateway.APIError{Endpoint: "walletPay", HTTPStatus: http.StatusOK, StatusCode: 30, HasStatusCode: true, Description: "Invalid credentials"})
	err := explainFailure(env, Description{}, "R1", creds)
	if k, ok := cmdutil.KindOf(err); (ok && k == cmdutil.KindRejected) || !errors.Is(err, gateway.ErrUnauthorized) {
		t.Errorf("status_code 30 from another endpoint: %v (kind %v), want the gateway's error for exit 3", err, k)
	}
}
