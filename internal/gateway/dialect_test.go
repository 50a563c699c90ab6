package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/family"
)

// TestEveryMemberHasADialect: each gateway of the family table is read in
// a dialect, and a name that is no member's is refused when the client is
// built.
func TestEveryMemberHasADialect(t *testing.T) {
	clock := WithClock(func() time.Time { return testNow })
	for _, name := range append(family.Names(), "") {
		if _, err := New("https://example.com/ccpayment", Credentials{}, clock, WithGateway(name)); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	if _, err := New("https://example.com/ccpayment", Credentials{}, clock, WithGateway("qnb")); err == nil {
		t.Error("a client for gateway qnb was built")
	}
}

// TestDialectRefusesAnotherMembersShape (issue 40, item 3): QNBpay's
// documented answers are read from QNBpay and from a gateway paycli
// cannot name, and refused from Sipay and the members that speak its
// dialect: an answer that could not be read (for a refund, whose money
// may have moved, an unknown outcome), saying which shape, not read as
// if Sipay wrote it. Sipay's own documented answer is read from all.
func TestDialectRefusesAnotherMembersShape(t *testing.T) {
	for _, tc := range []struct {
		path, file, invoice, shape string
	}{
		{replayCheckStatus, "testdata/recorded/checkstatus_qnbpay_array.json", "33491162435928", "an array of one object"},
		{replayCheckStatus, "../sandbox/testdata/recorded/checkstatus_qnbpay.json", "INV-1", "order_id as a JSON number"},
		{replayRefund, "testdata/recorded/refund_qnbpay.json", "66955", "order_no as a JSON number"},
		{replayCheckStatus, "../sandbox/testdata/recorded/checkstatus.json", "INV-1", ""},
	} {
		for _, gw := range []string{"qnbpay", "", "sipay", "vepara"} {
			g, c := newReplayClient(t, gw)
			g.Answer(http.MethodPost, tc.path, 200, tc.file)
			var err error
			if tc.path == replayRefund {
				_, err = c.Refund(context.Background(), RefundRequest{InvoiceID: tc.invoice, Amount: "1.00", RefundTransactionID: "R-1"})
			} else {
				_, err = c.CheckStatus(context.Background(), tc.invoice)
			}
			foreign := tc.shape != "" && gw != "qnbpay" && gw != ""
			if !foreign {
				if err != nil {
					t.Errorf("%s from %q: %v", tc.file, gw, err)
				}
				continue
			}
			var ae *APIError
			var se *ShapeError
			want := ErrUnreadable
			if tc.path == replayRefund {
				want = ErrOutcomeUnknown
			}
			if !errors.Is(err, want) || !errors.As(err, &ae) || !errors.As(ae.DataErr, &se) ||
				!strings.Contains(ae.Problem, tc.shape) || !strings.Contains(ae.Problem, "Sipay does not write") {
				t.Errorf("%s from %q: %v, want %v saying %q", tc.file, gw, err, want, tc.shape)
			}
		}
	}
}

// TestErrorAnswersReadInEveryDialect: an HTTP error answer is read for
// its status_code whatever its shape and whichever member the profile
// names: a refund answered 400 with QNBpay's array of one 69 is not yet
// processed (an unknown outcome, exit 7) for a Sipay profile too, never a
// plain refusal that would free the invoice for a second refund.
func TestErrorAnswersReadInEveryDialect(t *testing.T) {
	for _, gw := range []string{"qnbpay", "", "sipay", "vepara"} {
		g, c := newReplayClient(t, gw)
		g.AnswerText(http.MethodPost, replayRefund, http.StatusBadRequest, `[{"status_code":69,"status_description":"Not yet processed"}]`)
		_, err := c.Refund(context.Background(), RefundRequest{InvoiceID: "INV-1", Amount: "1.00", RefundTransactionID: "R-1"})
		if !errors.Is(err, ErrPending) {
			t.Errorf("gateway %q: %v, want %v", gw, err, ErrPending)
		}
	}
}

// TestNumericOrderID: the scan finds an order reference written as a JSON
// number at any depth, and not one written as a string, a key's name in a
// string's text, or another field's number.
func TestNumericOrderID(t *testing.T) {
	for body, want := range map[string]string{
		`{"order_id":"162435932934307"}`:                  "",
		`{"order_id" : 162435932934307}`:                  "order_id",
		`{"data":{"order_no":-1}}`:                        "order_no",
		`{"refunds":[{"invoice_id":66955}]}`:              "invoice_id",
		`{"note":"\"order_id\": 1","order_id":"A"}`:       "",
		`{"merchant_id":10001,"id":1418,"order_no":null}`: "",
		`[{"order_id":1}]`:                                "",
	} {
		if got := numericOrderID([]byte(body)); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}
