package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/testkit/replay"
)

func TestEndpointRequests(t *testing.T) {
	g := newGateway(t)
	answerText(g, "commissions", 200, commissionsOK)
	answerText(g, "walletPay", 200, walletPayOK)
	answerText(g, "checkstatus", 200, checkStatusOK)
	c := newTestClient(t, g.URL+"/ccpayment/")
	ctx := context.Background()

	com, err := c.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY", CommissionBy: "user", AppLang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if e := com.Schedule[1][0]; e.MerchantCommissionPercentage.String() != "1.5000" || string(e.Extra["issuer_name"]) != `"Bank"` {
		t.Errorf("commissions decoded as %+v", e)
	}
	wp, err := c.WalletPay(ctx, walletPayReq())
	if err != nil {
		t.Fatal(err)
	}
	if wp.ServiceStatus != 1 || wp.ServicePaymentMethod != "WALLET" || wp.OrderNo != "VP1" || wp.MerchantCommission.String() != "1.5" || string(wp.Extra["wallet"]) != `"001"` {
		t.Errorf("walletPay decoded as %+v", wp)
	}
	cs, err := c.CheckStatus(ctx, "INV-1")
	if err != nil {
		t.Fatal(err)
	}
	if cs.StatusCode != 100 || cs.TransactionStatus != "Completed" || cs.TransactionAmount.String() != "100.00" || string(cs.Extra["merchant_commission"]) != `"1.50"` {
		t.Errorf("checkstatus decoded as %+v", cs)
	}

	tests := []struct {
		name string
		auth bool
		body map[string]any
	}{
		{"token", false, map[string]any{"app_id": testAppID, "app_secret": testAppSecret}},
		{"commissions", true, map[string]any{"currency_code": "TRY", "commission_by": "user", "app_lang": "en"}},
		{"walletPay", true, map[string]any{"merchant_key": testMerchantKey, "hash_key": signed("150.00|1|TRY|" + testMerchantKey + "|INV-1"), "invoice_id": "INV-1",
			"wallet_transient_token": walletPayReq().WalletTransientToken, "name": "Ada", "surname": "Lovelace", "bill_email": "ada@example.com"}},
		{"checkstatus", true, map[string]any{"merchant_key": testMerchantKey, "invoice_id": "INV-1", "include_pending_status": true,
			"hash_key": signed("INV-1|" + testMerchantKey), "show_refund_info": "Y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := g.Last(api(tt.name))
			if r.Method != http.MethodPost || r.Path != "/ccpayment/api/"+tt.name {
				t.Errorf("%s %s, want POST /ccpayment/api/%s", r.Method, r.Path, tt.name)
			}
			for h, want := range map[string]string{"Accept": "application/json", "Content-Type": "application/json", "User-Agent": "paycli/test"} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("%s: %q, want %q", h, got, want)
				}
			}
			auth := r.Header.Get("Authorization")
			if tt.auth != strings.HasPrefix(auth, "Bearer ey") {
				t.Errorf("Authorization %q (want bearer: %v)", auth, tt.auth)
			}
			if len(r.Fields) != len(tt.body) {
				t.Errorf("body %v, want %v", r.Fields, tt.body)
			}
			for k, v := range tt.body {
				if s, ok := v.(signed); ok {
					if plain, err := hashkey.Decrypt(testAppSecret, fmt.Sprint(r.Fields[k])); err != nil || plain != string(s) {
						t.Errorf("body[%s] holds %q (%v), want %q", k, plain, err, s)
					}
					continue
				}
				if r.Fields[k] != v {
					t.Errorf("body[%s] = %v, want %v", k, r.Fields[k], v)
				}
			}
		})
	}
	if n := g.Count(api("token")); n != 1 {
		t.Errorf("%d token calls for three calls, want 1", n)
	}
}

func TestWalletPayResultSpellings(t *testing.T) {
	for _, body := range []string{
		`{"service_status":1,"service_payment_method":"M","payment_status":"1","error_code":"100"}`,
		`{"sipay_status":"1","sipay_payment_method":"M","payment_status":1,"error_code":100}`,
	} {
		var r WalletPayResult
		if err := r.UnmarshalJSON([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if r.ServiceStatus != 1 || r.ServicePaymentMethod != "M" || r.PaymentStatus != 1 || r.ErrorCode != 100 || len(r.Extra) != 0 {
			t.Errorf("%s decoded as %+v", body, r)
		}
	}
}

// hangUntilDone blocks until the client gives up.
func hangUntilDone(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// resetMidBody promises a body it never finishes.
func resetMidBody(w http.ResponseWriter, r *http.Request) {
	hj := w.(http.Hijacker)
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"status_code\":100,\"data\":{")
	_ = buf.Flush()
	_ = conn.Close()
}

func TestErrorClasses(t *testing.T) {
	oversize := `{"status_code":100,"data":{"pad":"` + strings.Repeat("a", MaxResponseBytes) + `"}}`
	tests := []struct {
		name     string
		endpoint string
		answer   reply
		fault    http.HandlerFunc // a transport fault instead of an answer
		timeout  bool
		want     error // sentinel; nil means none of them
		msg      string
		attempts int
	}{
		{"token bad credentials", "token", textReply(200, `{"status_code":30,"status_description":"Invalid credentials"}`), nil, false, ErrUnauthorized, `token: status_code 30 "Invalid credentials"`, 1},
		{"token missing field", "token", textReply(200, `{"status_code":1,"status_description":"The app id field is required."}`), nil, false, nil, `token: status_code 1 "The app id field is required."`, 1},
		{"commissions 401 after refresh", "commissions", textReply(401, `{"message":"Unauthenticated."}`), nil, false, ErrUnauthorized, `commissions: HTTP 401 Unauthorized "Unauthenticated."`, 2},
		{"commissions no data", "commissions", textReply(200, `{"status_code":0,"status_description":" No Data Found"}`), nil, false, ErrNoData, `commissions: status_code 0 "No Data Found"`, 1},
		{"commissions no data, other words", "commissions", textReply(200, `{"status_code":0,"status_description":"Kayıt bulunamadı"}`), nil, false, ErrNoData, "status_code 0", 1},
		{"commissions 0 refusing (issue 23, defect 14)", "commissions", textReply(200, `{"status_code":0,"status_description":"Invalid currency code."}`), nil, false, nil,
			`commissions: status_code 0 "Invalid currency code."`, 1},
		{"commissions validation", "commissions", textReply(200, `{"status_code":1,"status_description":"The currency code must be 3 characters."}`), nil, false, nil, "status_code 1", 1},
		{"commissions 500 html", "commissions", pageReply(500), nil, false, ErrUnavailable, "commissions: HTTP 500 Internal Server Error: the body is not JSON (text/html)", 1},
		{"commissions 502 html retried", "commissions", pageReply(502), nil, false, ErrUnavailable, "commissions: HTTP 502 Bad Gateway: the body is not JSON (text/html)", 3},
		{"commissions 503 retried", "commissions", textReply(503, `{"message":"Service Unavailable"}`), nil, false, ErrUnavailable, "HTTP 503 Service Unavailable", 3},
		{"commissions 504 retried", "commissions", textReply(504, ``), nil, false, ErrUnavailable, "HTTP 504 Gateway Timeout", 3},
		{"commissions reset mid-body retried", "commissions", nil, resetMidBody, false, ErrUnavailable, "commissions: cannot reach the gateway: unexpected EOF", 3},
		{"commissions truncated json", "commissions", textReply(200, `{"status_code":100,"data":{"1":[`), nil, false, ErrUnavailable, "commissions: HTTP 200 OK: the body is truncated JSON", 1},
		{"commissions html with 200", "commissions", pageReply(200), nil, false, ErrUnavailable, "the body is not JSON (text/html)", 1},
		{"commissions oversize", "commissions", textReply(200, oversize), nil, false, ErrUnavailable, "commissions: HTTP 200 OK: the body is larger than 4 MiB", 1},
		{"commissions bad value", "commissions", textReply(200, `{"status_code":100,"data":{"1":[{"merchant_commission_fixed":"n/a"}]}}`), nil, false, ErrUnreadable, `the data does not match the protocol: commission data: installment 1, entry without a card program, field merchant_commission_fixed: commission value: "n/a" is neither`, 1},
		{"commissions oversize error body", "commissions", textReply(502, strings.Repeat("<p>busy</p>", MaxErrorBytes)), nil, false, ErrUnavailable, "commissions: HTTP 502 Bad Gateway: the body is larger than 64 KiB", 3},
		{"commissions redirect not followed", "commissions", nil, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/ccpayment/api/commissions?token=secret", http.StatusFound)
		}, false, nil, "commissions: HTTP 302 Found: the gateway redirects to https://elsewhere.example/ccpayment/api/commissions; check base_url", 1},
		{"walletPay redirect not followed", "walletPay", nil, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/ccpayment/api/checkstatus", http.StatusTemporaryRedirect)
		}, false, nil, "walletPay: HTTP 307 Temporary Redirect: the gateway redirects to", 1},
		{"commissions timeout", "commissions", nil, hangUntilDone, true, ErrUnavailable, "commissions: the time limit ran out", 1},
		{"walletPay duplicate", "walletPay", textReply(200, `{"status_code":3,"status_description":"Invoice id already processed"}`), nil, false, ErrDuplicateInvoice, `walletPay: status_code 3 "Invoice id already processed"`, 1},
		{"walletPay 117", "walletPay", textReply(200, `{"status_code":"117","status_description":"in flight"}`), nil, false, ErrDuplicateInvoice, "status_code 117", 1},
		{"walletPay declined", "walletPay", textReply(200, `{"status_code":41,"status_description":"Payment failed for card `+testCard+`"}`), nil, false, ErrDeclined, `walletPay: status_code 41 "Payment failed for card 435508******4358"`, 1},
		{"walletPay pending", "walletPay", textReply(200, `{"status_code":69,"status_description":"Order not yet processed"}`), nil, false, ErrPending, "status_code 69", 1},
		{"walletPay 401 never repeated", "walletPay", textReply(401, ``), nil, false, ErrUnauthorized, "walletPay: HTTP 401 Unauthorized: the gateway refused the token and processed nothing; paycli does not repeat a call that moves money; a new token was fetched: run the command again", 1},
		{"walletPay 500 never retried", "walletPay", pageReply(500), nil, false, ErrOutcomeUnknown, "walletPay: HTTP 500 Internal Server Error: the body is not JSON (text/html)", 1},
		{"walletPay 502 never retried", "walletPay", pageReply(502), nil, false, ErrOutcomeUnknown, "HTTP 502", 1},
		{"walletPay 503 never retried", "walletPay", textReply(503, `{}`), nil, false, ErrOutcomeUnknown, "HTTP 503", 1},
		{"walletPay reset mid-body", "walletPay", nil, resetMidBody, false, ErrOutcomeUnknown, "walletPay: the request was sent but no complete response arrived: unexpected EOF", 1},
		{"walletPay truncated json", "walletPay", textReply(200, `{"status_code":100,"data":{"order_no":"VP`), nil, false, ErrOutcomeUnknown, "walletPay: HTTP 200 OK: the body is truncated JSON", 1},
		{"walletPay timeout", "walletPay", nil, hangUntilDone, true, ErrOutcomeUnknown, "walletPay: the request was sent but no complete response arrived (context deadline exceeded)", 1},
		{"walletPay validation", "walletPay", textReply(422, `{"status_code":1,"status_description":"The name field is required."}`), nil, false, nil, `walletPay: status_code 1 "The name field is required." (HTTP 422)`, 1},
		{"checkstatus not found", "checkstatus", textReply(200, `{"status_code":31,"status_description":"Transaction not found"}`), nil, false, ErrNotFound, "status_code 31", 1},
		{"checkstatus 503 not retried", "checkstatus", textReply(503, `<html>`), nil, false, ErrUnavailable, "checkstatus: HTTP 503 Service Unavailable: the body is not JSON", 1},
		{"checkstatus pending", "checkstatus", textReply(200, `{"status_code":69,"status_description":"pending"}`), nil, false, ErrPending, "status_code 69", 1},
	}
	sentinels := []error{ErrUnauthorized, ErrDuplicateInvoice, ErrDeclined, ErrPending, ErrOutcomeUnknown, ErrUnavailable, ErrNoData, ErrNotFound}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, count := errorClassClient(t, tt.endpoint, tt.answer, tt.fault)
			ctx := context.Background()
			if tt.endpoint != "token" {
				if _, _, err := c.BearerToken(ctx, false); err != nil {
					t.Fatal(err)
				}
			}
			if tt.timeout {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
			}
			err := callEndpoint(ctx, c, tt.endpoint)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tt.want) {
					t.Errorf("errors.Is(err, %v) = %v; err: %v", s, got, err)
				}
			}
			if tt.want == nil {
				var apiErr *APIError
				if !errors.As(err, &apiErr) {
					t.Errorf("%T is not an *APIError", err)
				}
			}
			if tt.timeout && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a timeout does not match context.DeadlineExceeded: %v", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.msg)
			}
			assertClean(t, err.Error())
			if n := count(); n != tt.attempts {
				t.Errorf("%d %s requests, want %d", n, tt.endpoint, tt.attempts)
			}
		})
	}
}

// errorClassClient is a client for a gateway giving the answer to the
// call name (commissions answered, for the token call's rows), or for a
// server with the transport fault; count is how many requests the call
// made.
func errorClassClient(t *testing.T, name string, answer reply, fault http.HandlerFunc) (c *Client, count func() int) {
	if fault != nil {
		f := newFaultServer(t, fault)
		return f.client(t), f.count
	}
	g := newGateway(t)
	answerText(g, "commissions", 200, commissionsOK)
	answer(g, name)
	return newTestClient(t, g.URL+"/ccpayment"), func() int { return g.Count(api(name)) }
}

func callEndpoint(ctx context.Context, c *Client, name string) error {
	var err error
	switch name {
	case "token":
		_, err = c.Token(ctx)
	case "commissions":
		_, err = c.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"})
	case "walletPay":
		_, err = c.WalletPay(ctx, walletPayReq())
	case "checkstatus":
		_, err = c.CheckStatus(ctx, "INV-1")
	default:
		err = callMerchantEndpoint(ctx, c, name)
	}
	return err
}

// assertNoSecrets fails when s holds a secret or a card number.
func assertNoSecrets(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{testAppID, testAppSecret, testMerchantKey, testCard, "ada@example.com", "cipher/text"} {
		if strings.Contains(s, bad) {
			t.Errorf("%q leaks %q", s, bad)
		}
	}
}

// assertClean fails when an error line holds a secret, a card number, a
// bearer token or a raw body.
func assertClean(t *testing.T, s string) {
	t.Helper()
	assertNoSecrets(t, s)
	for _, bad := range []string{"<html", "Bearer", "eyJ"} {
		if strings.Contains(s, bad) {
			t.Errorf("%q leaks %q", s, bad)
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/ccpayment"
	ln.Close()
	for _, endpoint := range []string{"token", "commissions", "walletPay", "checkstatus"} {
		t.Run(endpoint, func(t *testing.T) {
			cache := &memCache{}
			_ = cache.Store(CacheKey{BaseURL: base, AppID: testAppID}, &Token{Value: "cached", ExpiresAt: testNow.Add(time.Hour)})
			c := newTestClient(t, base, WithTokenCache(cache))
			err := callEndpoint(context.Background(), c, endpoint)
			// Nothing left the machine, so even walletPay is merely unavailable.
			if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrOutcomeUnknown) {
				t.Fatalf("err = %v, want unavailable", err)
			}
			var re *RequestError
			if !errors.As(err, &re) || re.Sent {
				t.Errorf("err = %#v, want a RequestError not sent", err)
			}
			if !strings.Contains(err.Error(), endpoint+": cannot reach the gateway: dial tcp") {
				t.Errorf("err = %q", err)
			}
		})
	}
}

// TestRefreshAfter401ThenSuccess: a read that gets HTTP 401 is repeated
// once with a new token (TestMoneyNeverSentTwiceAfter401 covers the calls
// that move money).
func TestRefreshAfter401ThenSuccess(t *testing.T) {
	for _, endpoint := range []string{"commissions", "checkstatus", "getpos", "installments", "getCardTokens"} {
		t.Run(endpoint, func(t *testing.T) {
			g := newGateway(t)
			ok := map[string]string{"commissions": commissionsOK, "checkstatus": checkStatusOK, "getpos": getPOSOK,
				"installments": installmentsOK, "getCardTokens": `{"status_code":100,"data":[]}`}[endpoint]
			// The first token is refused, the call repeated with a fresh one.
			g.AnswerOnce(http.MethodPost, replayToken, 200, replay.Recorded("token.json"))
			g.Answer(http.MethodPost, replayToken, 200, replay.Recorded("token_2.json"))
			g.AnswerTextOnce(methodOf(endpoint), api(endpoint), 401, `{"message":"Unauthenticated."}`)
			answerText(g, endpoint, 200, ok)
			cache := &memCache{}
			c := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache))
			if err := callEndpoint(context.Background(), c, endpoint); err != nil {
				t.Fatal(err)
			}
			var sent []string
			for _, r := range g.Requests() {
				if r.Path == api(endpoint) {
					sent = append(sent, r.Header.Get("Authorization"))
				}
			}
			firstToken := sent[0]
			if len(sent) == 2 && sent[1] == firstToken {
				t.Errorf("the call was repeated with the refused token")
			}
			if g.Count(api("token")) != 2 || g.Count(api(endpoint)) != 2 {
				t.Errorf("token calls %d, %s calls %d; want 2 and 2", g.Count(api("token")), endpoint, g.Count(api(endpoint)))
			}
			stored, _ := cache.Load(c.cacheKey())
			if stored == nil || "Bearer "+stored.Value == firstToken {
				t.Errorf("the cache still holds the refused token")
			}
		})
	}
}

func TestRetryHonoursRetryAfterAndBackoff(t *testing.T) {
	g := newGateway(t)
	for range 2 {
		g.AnswerTextOnce(http.MethodPost, api("commissions"), 503, `{}`, "Retry-After", "2")
	}
	answerText(g, "commissions", 200, commissionsOK)
	var waits []time.Duration
	c := newTestClient(t, g.URL+"/ccpayment",
		WithBackoff(func(n int) time.Duration { return time.Duration(n) * time.Second * 3 / 2 }),
		WithSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	if _, err := c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"}); err != nil {
		t.Fatal(err)
	}
	// The larger of the backoff (1.5s, 3s) and Retry-After (2s) is waited.
	if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] != 3*time.Second {
		t.Errorf("waits = %v, want [2s 3s]", waits)
	}
}

func TestRetryGivesUpWhenTheWaitWouldOutliveTheDeadline(t *testing.T) {
	g := newGateway(t)
	g.AnswerTextOnce(http.MethodPost, api("commissions"), 503, `{}`, "Retry-After", "3600")
	slept := false
	// A context's deadline is wall-clock time: the client reads it against
	// its clock, here the real one.
	c := newTestClient(t, g.URL+"/ccpayment", WithClock(time.Now), WithSleep(func(context.Context, time.Duration) error { slept = true; return nil }))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, _ = c.BearerToken(context.Background(), false)
	_, err := c.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"})
	if !errors.Is(err, ErrUnavailable) || slept || g.Count(api("commissions")) != 1 {
		t.Errorf("err %v, slept %v, %d calls", err, slept, g.Count(api("commissions")))
	}
}

func TestCancelDuringBackoffIsInterrupted(t *testing.T) {
	g := newGateway(t)
	answerText(g, "commissions", 502, `{}`)
	ctx, cancel := context.WithCancel(context.Background())
	c := newTestClient(t, g.URL+"/ccpayment", WithSleep(func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }))
	_, _, _ = c.BearerToken(context.Background(), false)
	_, err := c.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want context.Canceled and not unavailable", err)
	}
	if g.Count(api("commissions")) != 1 {
		t.Errorf("%d calls after cancel", g.Count(api("commissions")))
	}
}

func TestExponentialBackoff(t *testing.T) {
	b := ExponentialBackoff(500*time.Millisecond, 5*time.Second, func() float64 { return 0.5 })
	want := []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 3750 * time.Millisecond, 3750 * time.Millisecond}
	for i, w := range want {
		if got := b(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	lo := ExponentialBackoff(time.Second, 4*time.Second, func() float64 { return 0 })
	if lo(1) != 500*time.Millisecond {
		t.Errorf("lowest jitter = %v, want half the step", lo(1))
	}
}

func TestParseRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"":                              0,
		"5":                             5 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"Sun, 22 Nov 2026 10:00:30 GMT": 30 * time.Second,
		"Sun, 22 Nov 2026 09:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, testNow); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestCheckBaseURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://app.sipay.com.tr/ccpayment", "https://app.sipay.com.tr/ccpayment", true},
		{"https://app.sipay.com.tr/ccpayment/", "https://app.sipay.com.tr/ccpayment", true},
		{"http://127.0.0.1:8080/ccpayment", "http://127.0.0.1:8080/ccpayment", true},
		{"http://localhost:1/ccpayment", "http://localhost:1/ccpayment", true},
		{"http://[::1]:1/ccpayment", "http://[::1]:1/ccpayment", true},
		{"http://app.sipay.com.tr/ccpayment", "plain http to a host that is not loopback", false},
		{"http://user:pw@example.com/ccpayment", "http://user:xxxxx@example.com/ccpayment uses plain http", false},
		{"http://10.0.0.1/ccpayment", "not loopback", false},
		{"ftp://example.com", "is not an http(s) URL", false},
		{"app.sipay.com.tr", "is not an http(s) URL", false},
	}
	for _, tt := range tests {
		u, err := CheckBaseURL(tt.in)
		if tt.ok {
			if err != nil || u.String() != tt.want {
				t.Errorf("CheckBaseURL(%q) = %v, %v", tt.in, u, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidBaseURL) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckBaseURL(%q) error = %v, want %q", tt.in, err, tt.want)
		}
		if strings.Contains(err.Error(), ":pw@") {
			t.Errorf("error shows the URL's password: %v", err)
		}
	}
	if _, err := New("http://example.com/ccpayment", Credentials{}); !errors.Is(err, ErrInvalidBaseURL) {
		t.Errorf("New accepted plain http to a remote host: %v", err)
	}
}

// TestWalletPayNeverRetried: not even a policy that retries everything
// makes walletPay repeat, on any failure.
func TestWalletPayNeverRetried(t *testing.T) {
	failures := map[string]struct {
		answer reply
		fault  http.HandlerFunc // a transport fault instead of an answer
	}{
		"502":   {answer: pageReply(502)},
		"503":   {answer: textReply(503, `{}`)},
		"reset": {fault: resetMidBody},
	}
	for name, f := range failures {
		t.Run(name, func(t *testing.T) {
			always := WithRetryPolicy(func(int, error) bool { return true })
			var c *Client
			var count func() int
			if f.fault != nil {
				fs := newFaultServer(t, f.fault)
				c, count = fs.client(t, always), fs.count
			} else {
				g := newGateway(t)
				f.answer(g, "walletPay")
				c, count = newTestClient(t, g.URL+"/ccpayment", always), func() int { return g.Count(api("walletPay")) }
			}
			_, err := c.WalletPay(context.Background(), walletPayReq())
			if !errors.Is(err, ErrOutcomeUnknown) || count() != 1 {
				t.Errorf("err %v after %d requests", err, count())
			}
		})
	}
}

// TestWalletPayInterruptedAfterSending: Ctrl-C while the gateway holds the
// payment leaves its outcome unknown, and says it was interrupted.
func TestWalletPayInterruptedAfterSending(t *testing.T) {
	received := make(chan struct{})
	// The gateway holds the payment: a server that hangs, not a double.
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(received)
		<-r.Context().Done()
	})
	c := f.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-received; cancel() }()
	_, err := c.WalletPay(ctx, walletPayReq())
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want an unknown outcome and context.Canceled", err)
	}
	want := "walletPay: the request was sent but no complete response arrived (context canceled)"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
