package completecmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
)

// What the help says of exit codes 4 and 6 is what the command does: a
// sale check status shows completed or cancelled exits 4 with nothing
// sent; 6 is the gateway's status_code 117, or another
// paycli command in flight on the invoice.
func TestHelpExitCodes(t *testing.T) {
	long := NewCmdComplete(&cmdutil.Factory{}, nil).Long
	exits := long[strings.Index(long, "Exit codes:"):]
	if strings.Contains(exits, "6 already") || !strings.Contains(exits, "status_code 117") ||
		!strings.Contains(exits, "(check status shows it already completed or cancelled; nothing\nsent)") {
		t.Errorf("complete's exit codes:\n%s", exits)
	}
}
