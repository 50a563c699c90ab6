package gateway

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cardno"
)

// FuzzResponse feeds arbitrary bodies to the response reader of every
// endpoint: it must never panic, must classify every failure, and its
// errors must never repeat a card number from the body.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{commissionsOK, walletPayOK, checkStatusOK,
		`{"status_code":41,"status_description":"card 4355084355084358 declined"}`,
		`{"status_code":"100","data":[]}`, `{"status_code":100}`, `<html>`, `{"status_code":100,"data":{"1":[{"installment":"x"}]}}`, ``,
		`[` + checkStatusOK + `]`, `[{"status_code":2,"status_description":"Invalid credentials"}]`, `[{},{}]`, `[[{}]]`} {
		f.Add(s, 200)
		f.Add(s, 502)
	}
	card := regexp.MustCompile(`[0-9]{13,19}`)
	statusCodeShown := regexp.MustCompile(`status_code -?[0-9]+`)
	c, err := New("https://gw.example/ccpayment", Credentials{}, WithClock(func() time.Time { return testNow }))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string, status int) {
		if status < 100 || status > 599 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}}
		for _, ep := range []endpoint{endpointToken, endpointCommissions, endpointWalletPay, endpointCheckStatus} {
			var v any
			switch ep {
			case endpointToken:
				v = &tokenData{}
			case endpointCommissions:
				v = &Commissions{}
			case endpointWalletPay:
				v = &WalletPayResult{}
			default:
				v = &CheckStatusResult{}
			}
			_, err := c.checkResponse(ep, resp, []byte(body), v)
			if err == nil {
				if status < 200 || status > 299 {
					t.Fatalf("%s: HTTP %d accepted", ep.name, status)
				}
				continue
			}
			// The body's status_code is shown as a number by design; a card
			// number must not come through any other part.
			msg := statusCodeShown.ReplaceAllString(err.Error(), "")
			for _, m := range card.FindAllString(body, -1) {
				if !cardno.Luhn(m) {
					continue // a long number that is no card is shown (docs/protocol.md, Common rules)
				}
				if strings.Contains(msg, m) {
					t.Fatalf("%s: error %q repeats %q from the body", ep.name, msg, m)
				}
			}
			if ep == endpointWalletPay && (status >= 500 || status/100 == 2 && err.(*APIError).Problem != "") {
				if err.(*APIError).Sentinel() != ErrOutcomeUnknown {
					t.Fatalf("walletPay HTTP %d %q: %v is not an unknown outcome", status, body, err)
				}
			}
		}
	})
}
