package app

import (
	"net/http"
	"testing"

	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// TestCompleteReadsPaymentStatusTrue (issue 39, defect 10): `paycli
// complete` answered as the Platformode document shows payment/complete's
// success (§11.16: status_code 100, "payment_status": true) says the sale
// is completed (exit 0, journaled succeeded), not "outcome unknown" (exit
// 7) after the money moved.
func TestCompleteReadsPaymentStatusTrue(t *testing.T) {
	const invoice, order = "9a197ed9-cfaf-4456-b0fc-da74a95f461c", "166254527653758"
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf(invoice, "100.00", map[string]any{"order_id": order,
			"transaction_status": "Pending", "three_d_status": "awaiting_merchant_completion"}),
	})
	g.Answer(http.MethodPost, "/ccpayment/payment/complete", 200, replay.Recorded("complete_platformode.json"))
	r := runHostile(t, g.URL, t.TempDir(), "complete", "--invoice", invoice, "--order-id", order, "--yes")
	if r.code != ExitOK || g.Count("/ccpayment/payment/complete") != 1 {
		t.Fatalf("exit %d, %d completions sent; stderr:\n%s", r.code, g.Count("/ccpayment/payment/complete"), r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Succeeded {
		t.Errorf("journal: outcome %q, want succeeded", a.Class())
	}
}
