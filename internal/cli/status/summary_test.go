package status

import (
	"encoding/json"
	"testing"

	"github.com/paycli/paycli/internal/gateway"
)

// TestSummary: status says first, in one line, where the sale stands and
// its amounts in the currency's minor unit (issue 34, part 2, item 8).
func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{`{"transaction_status":"Partially Refunded","transaction_amount":"100","total_refunded_amount":"10.0","currency_code":"TRY"}`,
			"INV-1: completed, 100.00 TRY, refunded 10.00 TRY"},
		{`{"transaction_status":"Completed","transaction_amount":100,"total_refunded_amount":0,"currency_code":"TRY"}`,
			"INV-1: completed, 100.00 TRY"},
		{`{"transaction_status":"Refunded","transaction_amount":"1250.5","total_refunded_amount":"1250.5","currency_code":"TRY"}`,
			"INV-1: refunded in full, 1,250.50 TRY"},
		{`{"transaction_status":"Failed","transaction_amount":"20.41","currency_code":"TRY"}`,
			"INV-1: failed, 20.41 TRY; nothing was taken"},
		{`{"transaction_status":"Pre-Authorized","transaction_amount":"80","currency_code":"TRY"}`,
			"INV-1: pre-authorized, 80.00 TRY held"},
		{`{"transaction_status":"Cancelled","transaction_amount":"80.00","currency_code":"TRY"}`,
			"INV-1: cancelled, 80.00 TRY; nothing was taken"},
		{`{"transaction_status":"Pending","transaction_amount":"5","currency_code":"JPY"}`,
			"INV-1: pending, 5 JPY; the outcome is not known yet"},
		{`{"transaction_status":"Odd\u001b[31m","transaction_amount":"5.5"}`,
			`INV-1: transaction_status "Odd\\x1b[31m", 5.5`},
		{`{"transaction_status":"Completed","currency_code":"TRY"}`, "INV-1: completed"},
	} {
		var r gateway.CheckStatusResult
		if err := json.Unmarshal([]byte(tc.body), &r); err != nil {
			t.Fatal(err)
		}
		if got := Summary(&r, "INV-1"); got != tc.want {
			t.Errorf("Summary(%s)\n= %q\nwant %q", tc.body, got, tc.want)
		}
	}
}
