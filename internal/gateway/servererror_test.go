package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// TestServerErrorBoundary: an HTTP 500 and above to a call that moves
// money leaves its outcome unknown; 499 is an answer. The rule holds for
// a typed call's error (Sentinel) and for `paycli api` (Client.Do), and a
// call that moves no money is never unknown.
func TestServerErrorBoundary(t *testing.T) {
	for _, tc := range []struct {
		status  int
		unknown bool
	}{{499, false}, {500, true}, {501, true}, {599, true}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			for _, ep := range []string{EndpointRefund, EndpointWalletPay, "/api/refund"} {
				var err error = &APIError{Endpoint: ep, HTTPStatus: tc.status}
				if got := errors.Is(err, ErrOutcomeUnknown); got != tc.unknown {
					t.Errorf("%s HTTP %d: unknown outcome %v, want %v", ep, tc.status, got, tc.unknown)
				}
			}
			var err error = &APIError{Endpoint: "checkstatus", HTTPStatus: tc.status}
			if got := errors.Is(err, ErrUnavailable); got != tc.unknown || errors.Is(err, ErrOutcomeUnknown) {
				t.Errorf("checkstatus HTTP %d: unavailable %v, unknown %v; want unavailable %v, never unknown", tc.status, got, errors.Is(err, ErrOutcomeUnknown), tc.unknown)
			}

			g := newGateway(t)
			answerText(g, "refund", tc.status, `{}`)
			answerText(g, "getCardTokens", tc.status, `{}`)
			c := newTestClient(t, g.URL+"/ccpayment")
			res, err := c.Do(context.Background(), Request{Path: "/api/refund", Body: []byte(`{}`)})
			if res == nil || res.StatusCode != tc.status || errors.Is(err, ErrOutcomeUnknown) != tc.unknown || (err != nil) != tc.unknown {
				t.Errorf("Do refund HTTP %d: %+v, %v; want unknown outcome %v", tc.status, res, err, tc.unknown)
			}
			res, err = c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/getCardTokens"})
			if err != nil || res.StatusCode != tc.status {
				t.Errorf("Do getCardTokens HTTP %d: %+v, %v; want the answer, no error", tc.status, res, err)
			}
		})
	}
}
