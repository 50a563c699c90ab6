package app

import (
	"net/http"
	"os"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// TestCompleteReadsPaymentStatusTrue (issue 39, defect 10): `paycli
// complete` answered as the Platformode document shows payment/complete's
// success (§11.16: status_code 100, "payment_status": true) says the sale
// is completed (exit 0, journaled succeeded), not "outcome unknown" (exit
// 7) after the money moved.
func TestCompleteReadsPaymentStatusTrue(t *testing.T) {
	body, err := os.ReadFile("../gateway/testdata/recorded/complete_platformode.json")
	if err != nil {
		t.Fatal(err)
	}
	const invoice, order = "9a197ed9-cfaf-4456-b0fc-da74a95f461c", "166254527653758"
	g := newHostileGateway(t, map[string]http.HandlerFunc{
		"/api/checkstatus": answer(checkStatusOf(invoice, "100.00", map[string]any{"order_id": order,
			"transaction_status": "Pending", "three_d_status": "awaiting_merchant_completion"})),
		"/payment/complete": answer(string(body)),
	})
	r := runHostile(t, g, t.TempDir(), "complete", "--invoice", invoice, "--order-id", order, "--yes")
	if r.code != ExitOK || g.calls("/payment/complete") != 1 {
		t.Fatalf("exit %d, %d completions sent; stderr:\n%s", r.code, g.calls("/payment/complete"), r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Succeeded {
		t.Errorf("journal: outcome %q, want succeeded", a.Class())
	}
}
