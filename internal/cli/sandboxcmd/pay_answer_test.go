package sandboxcmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
)

// TestAnswerOfNamesTheCall (issue 40, item 5): a failed call is named as
// the client's error names it, not by a gateway path the command spells;
// a sale's call says the sale may have been made, the token call not.
func TestAnswerOfNamesTheCall(t *testing.T) {
	down := errors.New("connection refused")
	for _, tc := range []struct {
		err      error
		want     string
		saleHint bool
		wantKind cmdutil.Kind
	}{
		{&gateway.RequestError{Endpoint: gateway.EndpointPaySmart2D, Err: down}, "sandbox paySmart2D: connection refused", true, cmdutil.KindUnavailable},
		{&gateway.RequestError{Endpoint: gateway.EndpointChallenge, Err: down}, "sandbox 3d challenge: connection refused", true, cmdutil.KindUnavailable},
		{&gateway.APIError{Endpoint: gateway.EndpointPaySmart3D, HTTPStatus: 503}, "sandbox paySmart3D: HTTP 503", true, cmdutil.KindUnavailable},
		{&gateway.RequestError{Endpoint: "token", Err: down}, "sandbox token: connection refused", false, cmdutil.KindUnavailable},
	} {
		var ans *gateway.CardPaymentResult
		err := answerOf(tc.err, &ans)
		kind, _ := cmdutil.KindOf(err)
		if err == nil || err.Error() != tc.want || kind != tc.wantKind ||
			strings.Contains(cmdutil.HintOf(err), "may have made the sale") != tc.saleHint || strings.Contains(err.Error(), "/api/") {
			t.Errorf("%v: %v (hint %q), want %q", tc.err, err, cmdutil.HintOf(err), tc.want)
		}
	}
}
