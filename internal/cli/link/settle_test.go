package link

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// TestLinkSettledByCheckStatus: a link of unknown outcome is made when any
// sale carries its invoice, whatever became of the sale, and not made when
// the gateway has no transaction with it — once its request is over.
func TestLinkSettledByCheckStatus(t *testing.T) {
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	deadline := t0.Add(30 * time.Second)
	after := deadline.Add(journal.InFlightMargin).Add(time.Second)
	a := journal.Attempt{Intent: journal.Entry{Type: journal.TypeIntent, Attempt: "a1", Invoice: "INV-1", Kind: KindLink, Time: t0, Deadline: deadline}}
	answer := func(status, linkStatus string) *gateway.CheckStatusResult {
		var r gateway.CheckStatusResult
		link := ""
		if linkStatus != "" {
			link = `,"link_status":"` + linkStatus + `"`
		}
		if err := json.Unmarshal([]byte(`{"status_code":100,"status_description":"ok","order_id":"VP1","invoice_id":"INV-1","transaction_status":"`+status+`"`+link+`}`), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	statusErr := func(code int) error {
		return &gateway.APIError{Endpoint: "checkstatus", HTTPStatus: http.StatusOK, StatusCode: code, HasStatusCode: true, Description: "d"}
	}
	read := Kinds()[0].Read
	for _, c := range []struct {
		name    string
		res     *gateway.CheckStatusResult
		err     error
		asked   time.Time
		outcome string
		waits   bool
	}{
		{name: "awaiting its buyer: made", res: answer("Awaiting Payment", "awaiting_payment"), asked: after, outcome: journal.Succeeded},
		{name: "paid: made", res: answer("Completed", "used"), asked: after, outcome: journal.Succeeded},
		{name: "the buyer's payment failed: made", res: answer("Failed", "used"), asked: after, outcome: journal.Succeeded},
		{name: "paid, waiting for its 3D step (69): made", res: answer("Pending", "used"), err: statusErr(69), asked: after, outcome: journal.Succeeded},
		{name: "waiting for a step, no answer to read: not yet known", err: statusErr(69), asked: after},
		// The reviewer's case: an earlier 2D sale (declined) had taken the
		// invoice, the gateway refused the link (3) and its answer was lost.
		{name: "another sale had taken the invoice: the link was refused", res: answer("Failed", ""), asked: after, outcome: journal.Declined},
		{name: "another sale completed on the invoice: the link was refused", res: answer("Completed", ""), asked: after, outcome: journal.Declined},
		// Issue 39: not found is never final; nothing is recorded.
		{name: "unknown to the gateway: not final", err: statusErr(31), asked: after, outcome: ""},
		{name: "unknown to the gateway while the request may still be processed", err: statusErr(31), asked: deadline, waits: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := journal.Settle(read, a, c.res, c.err, c.asked)
			if l.Outcome != c.outcome || c.waits == l.After.IsZero() {
				t.Errorf("outcome %q after %v, want %q (waiting %v): %s", l.Outcome, l.After, c.outcome, c.waits, l.Message)
			}
		})
	}
}
