package gateway

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/cardno"
)

// roundTripFunc answers requests without a network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzCommissions runs Client.Commissions end to end (token call, bearer,
// response reading, commission.Schedule decoding, retries) against an
// in-memory gateway whose commission answer is the fuzzed status and body.
// It must never panic; a success must come from a 2xx answer with no
// negative installment; a failure must be a typed error, retried at most
// MaxAttempts times, whose message is valid UTF-8 and repeats neither a
// card number from the body nor a credential.
func FuzzCommissions(f *testing.F) {
	for _, s := range []string{commissionsOK,
		`{"status_code":100,"data":[[{"installment":2,"card_program":"BONUS"}]]}`,
		`{"status_code":100,"data":{"-1":[]}}`,
		`{"status_code":0,"status_description":" No Data Found"}`,
		`{"status_code":100,"data":{"1":[{"merchant_commission_percentage":{}}]}}`,
		`{"status_code":"100"}`, `{"status_code":100,"data":"\xff"}`, `[[[[[[[[`, ``,
	} {
		f.Add(s, 200)
	}
	f.Add(`{"status_code":1,"status_description":"card 4355084355084358 refused"}`, 422)
	f.Add(`<html>`, 503)
	card := regexp.MustCompile(`[0-9]{13,19}`)
	statusCodeShown := regexp.MustCompile(`status_code -?[0-9]+`)
	f.Fuzz(func(t *testing.T, body string, status int) {
		if status < 200 || status > 599 {
			return
		}
		var lookups atomic.Int32
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			_, _ = io.Copy(io.Discard, r.Body)
			answer := func(status int, body string) *http.Response {
				return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(body)), Request: r}
			}
			if strings.HasSuffix(r.URL.Path, "/api/token") {
				return answer(200, `{"status_code":100,"data":{"token":"`+makeJWT(testNow.Add(2*time.Hour), "fuzz")+`"}}`), nil
			}
			lookups.Add(1)
			return answer(status, body), nil
		})
		c, err := New("https://gw.example/ccpayment", Credentials{AppID: testAppID, AppSecret: testAppSecret},
			WithHTTPClient(&http.Client{Transport: rt}),
			WithClock(func() time.Time { return testNow }),
			WithSleep(func(context.Context, time.Duration) error { return nil }))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
		if n := lookups.Load(); n < 1 || n > MaxAttempts {
			t.Fatalf("%d commission requests", n)
		}
		if err == nil {
			if status > 299 {
				t.Fatalf("HTTP %d accepted", status)
			}
			for n := range res.Schedule {
				if n < 0 {
					t.Fatalf("negative installment %d accepted", n)
				}
			}
			return
		}
		var apiErr *APIError
		var reqErr *RequestError
		if !errors.As(err, &apiErr) && !errors.As(err, &reqErr) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		msg := err.Error()
		if !utf8.ValidString(msg) {
			t.Fatalf("error is not valid UTF-8: %q", msg)
		}
		if strings.Contains(msg, testAppSecret) {
			t.Fatalf("error repeats the app secret: %q", msg)
		}
		// The body's status_code is shown as a number by design; a card
		// number must not come through any other part.
		shown := statusCodeShown.ReplaceAllString(msg, "")
		for _, m := range card.FindAllString(body, -1) {
			if !cardno.Luhn(m) {
				continue // a long number that is no card is shown (docs/protocol.md, Common rules)
			}
			if strings.Contains(shown, m) {
				t.Fatalf("error %q repeats %q from the body", msg, m)
			}
		}
	})
}
