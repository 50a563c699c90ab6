package cmdutil

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
)

// Advice about the profile names it when --profile or PAYCLI_PROFILE chose
// it, so that the command it suggests acts on that profile.
func TestConfigCommandNamesTheProfile(t *testing.T) {
	if got := ConfigCommand(&config.Config{Profile: "default"}, "list"); got != "paycli config list" {
		t.Errorf("default profile: %q", got)
	}
	if got := ConfigCommand(&config.Config{Profile: "my shop", ProfileNamed: true}, "init"); got != "paycli config init --profile 'my shop'" {
		t.Errorf("named profile: %q", got)
	}
}

// An unknown merchant_key (status_code 14) gets advice, naming the
// profile; refused credentials too.
func TestExplainMerchantNotFound(t *testing.T) {
	cfg := &config.Config{Profile: "live", ProfileNamed: true}
	err := ExplainGatewayError(fmt.Errorf("walletPay: %w", &gateway.APIError{Endpoint: "walletPay", StatusCode: 14, HasStatusCode: true,
		Description: "Invalid merchant key: merchant not found"}), cfg)
	if k, _ := KindOf(err); k != KindRejected || !strings.Contains(err.Error(), `the gateway does not know the merchant_key of profile "live"`) ||
		HintOf(err) != "Check merchant_key with 'paycli config list --profile live' and fix it with 'paycli config init --profile live' (or set PAYCLI_MERCHANT_KEY); nothing was processed." {
		t.Errorf("%v (kind %v), hint %q", err, k, HintOf(err))
	}
	err = ExplainGatewayError(gateway.ErrUnauthorized, cfg)
	if hint := HintOf(err); !strings.Contains(hint, "'paycli config list --profile live'") || !strings.Contains(hint, "'paycli config init --profile live'") {
		t.Errorf("refused: hint %q", hint)
	}
}

// A refused connection is not advised a longer --timeout; a time limit
// reached is.
func TestUnavailableHint(t *testing.T) {
	refused := fmt.Errorf("token: cannot reach the gateway: %w", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	if hint := UnavailableHint(refused, &config.Config{BaseURL: "http://u:pw@127.0.0.1:9/ccpayment"}); strings.Contains(hint, "--timeout") ||
		hint != "Nothing answers at base_url http://xxxxx@127.0.0.1:9/ccpayment: check it and that the gateway runs; --debug shows the requests." {
		t.Errorf("refused: %q", hint)
	}
	if hint := UnavailableHint(fmt.Errorf("x: %w", context.DeadlineExceeded), nil); !strings.Contains(hint, "give it longer with --timeout") {
		t.Errorf("deadline: %q", hint)
	}
}
