package sandboxcmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/sandbox"
)

// TestPayHelpListsFaultValues: every fault value the sandbox acts out is
// in `sandbox pay --help`.
func TestPayHelpListsFaultValues(t *testing.T) {
	f, _ := testFactory(t, nil)
	long := NewCmdPay(f, nil).Long
	for _, m := range sandbox.MagicFaults {
		if !strings.Contains(long, m.Amount) || !strings.Contains(long, m.Card) || !strings.Contains(long, m.What) {
			t.Errorf("sandbox pay --help lacks the %s fault (%s, %s)", m.Name, m.Amount, m.Card)
		}
	}
}

// TestOpenAPIServerIsServesDefault: the OpenAPI description's server is
// where `sandbox serve` listens by default.
func TestOpenAPIServerIsServesDefault(t *testing.T) {
	doc, err := sandbox.OpenAPIDocument()
	if err != nil || !strings.Contains(string(doc), `"url": "http://`+DefaultAddr+`"`) {
		t.Errorf("the description's server is not http://%s (%v)", DefaultAddr, err)
	}
}
