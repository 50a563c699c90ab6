package complete

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
	exits, ok := cmdutil.ExitsOf(NewCmdComplete(&cmdutil.Factory{}, nil))
	if !ok || !exits.MovesMoney || !strings.Contains(exits.Notes[cmdutil.KindRejected], "check status shows it completed or cancelled; nothing sent") ||
		!strings.HasPrefix(exits.Notes[cmdutil.KindDuplicate], "the gateway answered status_code 117") {
		t.Errorf("complete's exit codes: %+v", exits)
	}
}
